#!/usr/bin/env bash
# npm run test:e2e: end-to-end tests of the built playground in Debian's
# Chromium, driven by playwright-core (no browser download). The page's
# numbers are compared with the native benchmark's, so both are brought up to
# date from the same sources first (incremental builds: cheap when current).
source "$(dirname "$0")/lib.sh"
ensure_npm_deps
ensure_apt chromium
cd "$ROOT"
bash "$ROOT/scripts/build-wasm.sh"
bash "$ROOT/scripts/build-web.sh"
ensure_native_deps
[ -f build/native/build.ninja ] || cmake --preset native >/dev/null
cmake --build build/native --target prefixroute-cli
mkdir -p build/e2e
exec node --test --test-concurrency=1 tests/e2e/playground.test.mjs tests/e2e/trace-replay.test.mjs tests/e2e/sweep.test.mjs tests/e2e/embed.test.mjs tests/e2e/pool.test.mjs tests/e2e/scenario-controls.test.mjs tests/e2e/timeline.test.mjs tests/e2e/trace-upload.test.mjs tests/e2e/table-layout.test.mjs tests/e2e/stages.test.mjs tests/e2e/capacity.test.mjs tests/e2e/verdict.test.mjs tests/e2e/phone.test.mjs tests/e2e/same-as.test.mjs
