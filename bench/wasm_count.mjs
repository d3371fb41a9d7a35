// Runs runScenario N times in the wasm module, for instruction counting under
// callgrind (docs/PERFORMANCE.md, "wasm vs native in instructions"):
//
//   valgrind --tool=callgrind --smc-check=all node bench/wasm_count.mjs N [overridesJson] [moduleDir]
//
// Instructions per run = (total at N=3 - total at N=1) / 2, which removes
// Node's start-up and the module's first compilation.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] || '1');
const overrides = process.argv[3] || '[["policies","all"]]';
const dir = path.resolve(root, process.argv[4] || 'build/wasm/wasm');
const { default: create } = await import(pathToFileURL(path.join(dir, 'prefixroute.mjs')).href);
const module = await create({ wasmBinary: fs.readFileSync(path.join(dir, 'prefixroute.wasm')) });
for (let i = 0; i < runs; ++i) {
  const result = module.runScenario('', overrides, null);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
}
