#!/usr/bin/env bash
# npm test: every test of the project, in the order a failure is cheapest to see.
#   1. native release build + GoogleTest suites + CLI and docs checks (ctest),
#      then the benchmark under valgrind (no leak, no memory error)
#   2. sanitizer build (clang 14, ASan + UBSan) + the same suites; the same
#      build holds the libFuzzer targets
#   3. WebAssembly module: build, TypeScript declarations, Node and Chromium
#      tests (native == wasm results byte for byte on the presets and 20
#      random scenarios; the browser checks are required, not skipped)
#   4. playground: unit tests of the URL state, TypeScript check and production
#      build (scripts/build-web.sh, run by test-e2e.sh), end-to-end tests in
#      headless Chromium
#   5. a bounded fuzz run of every libFuzzer target (built in step 2)
# Each step installs what it needs when missing (apt as root, npm ci).
source "$(dirname "$0")/lib.sh"
ensure_native_deps

log "1/5 native build + tests"
build_preset native
ctest --preset native -j2
bash "$ROOT/scripts/leak-check.sh"

log "2/5 sanitizer build (clang 14, ASan + UBSan; also the fuzz targets) + tests"
ensure_apt clang-14 libclang-rt-14-dev
build_preset sanitize
ctest --preset sanitize -j2

log "3/5 WebAssembly module + Node tests"
ensure_npm_deps
ensure_apt chromium
bash "$ROOT/scripts/build-wasm.sh"
cd "$ROOT"
npx --no-install tsc -p wasm/tsconfig.json
PREFIXROUTE_REQUIRE_BROWSER=1 node --test --test-concurrency=2 tests/js/

log "4/5 playground: unit tests, typecheck + build, browser tests"
bash "$ROOT/scripts/test-web-unit.sh"
bash "$ROOT/scripts/test-e2e.sh"

log "5/5 bounded fuzz run"
bash "$ROOT/scripts/fuzz.sh" "${FUZZ_SECONDS:-10}"
