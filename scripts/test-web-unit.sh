#!/usr/bin/env bash
# npm run test:web-unit: vitest unit tests of the playground (URL state,
# override resolution, worker client, CDF, CSV), against the real
# WebAssembly core (rebuilt incrementally first, so it matches the sources).
source "$(dirname "$0")/lib.sh"
ensure_npm_deps
cd "$ROOT"
bash "$ROOT/scripts/build-wasm.sh"
exec npx --no-install vitest run --config tests/web-unit/vitest.config.ts "$@"
