// Loads the real WebAssembly core for the tests, the way the toolchain notes
// say works in Node: the web/worker build with the wasm bytes passed in.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { PrefixrouteFactory, PrefixrouteModule } from '../../web/src/worker/prefixroute-module';
import { fieldsFromSchema, type FieldInfo } from '../../web/src/state/schema';

const generated = fileURLToPath(new URL('../../web/src/generated/', import.meta.url));

export const MODULE_PRESENT = existsSync(`${generated}prefixroute.mjs`) && existsSync(`${generated}prefixroute.wasm`);

let loading: Promise<PrefixrouteModule> | null = null;

export function loadCore(): Promise<PrefixrouteModule> {
  if (!MODULE_PRESENT) {
    throw new Error('web/src/generated/prefixroute.{mjs,wasm} missing: run `bash scripts/build-wasm.sh` first');
  }
  loading ??= (async () => {
    const factory = (await import(/* @vite-ignore */ `${generated}prefixroute.mjs`)).default as PrefixrouteFactory;
    return factory({ wasmBinary: readFileSync(`${generated}prefixroute.wasm`) });
  })();
  return loading;
}

export async function loadFields(): Promise<FieldInfo[]> {
  const core = await loadCore();
  return fieldsFromSchema(core.scenarioSchema());
}
