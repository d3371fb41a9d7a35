#!/usr/bin/env bash
# npm run test:web-unit: vitest unit tests of the playground (URL state,
# override resolution, CDF, CSV), against the real WebAssembly core.
source "$(dirname "$0")/lib.sh"
ensure_npm_deps
cd "$ROOT"
if [ ! -f web/src/generated/prefixroute.mjs ] || [ ! -f web/src/generated/prefixroute.wasm ]; then
  bash "$ROOT/scripts/build-wasm.sh"
fi
exec npx --no-install vitest run --config tests/web-unit/vitest.config.ts "$@"
