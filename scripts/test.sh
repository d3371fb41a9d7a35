#!/usr/bin/env bash
# npm test: every test of the project.
#   1. native release build + GoogleTest suites + CLI and docs checks (ctest),
#      then the command line under valgrind (no leak, no memory error)
#   2. sanitizer build (clang 14, ASan + UBSan) + the same suites + a bounded
#      fuzz run of every libFuzzer target (scripts/test-sanitized.sh): started
#      first, in the background at the lowest CPU priority, so it uses the
#      cycles the other steps leave idle (the browser tests keep the two cores
#      less than half busy); its log is printed when it ends
#   3. WebAssembly module: build, TypeScript declarations, Node and Chromium
#      tests (native == wasm results byte for byte on the presets and 20
#      random scenarios; the browser checks are required, not skipped)
#   4. playground: unit tests of the URL state, TypeScript check and production
#      build (scripts/build-web.sh, run by test-e2e.sh), end-to-end tests in
#      headless Chromium
# Each step installs what it needs when missing (apt as root, npm ci); the
# packages are installed before the steps start, so two steps never run apt
# at once. Any step failing fails npm test.
source "$(dirname "$0")/lib.sh"
ensure_native_deps
ensure_apt clang-14 libclang-rt-14-dev chromium openssl
ensure_npm_deps

mkdir -p "$ROOT/build"
SANITIZED_LOG="$ROOT/build/test-sanitized.log"
log "2/4 sanitizer build + suites + fuzz run: in the background at nice 19 (log: build/test-sanitized.log)"
# Its own process group (setsid), so a failing foreground step stops it whole
# (the process alone if it has not yet made its group). A new session is also
# a new scheduler autogroup on Linux, whose share nice alone does not lower:
# the group's own nice value is set too.
setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null || true; exec nice -n 19 bash "$0"' \
  "$ROOT/scripts/test-sanitized.sh" >"$SANITIZED_LOG" 2>&1 &
SANITIZED_PID=$!
trap 'kill -- -"$SANITIZED_PID" 2>/dev/null || kill "$SANITIZED_PID" 2>/dev/null || true' EXIT

log "1/4 native build + tests"
build_preset native
ctest --preset native -j2
bash "$ROOT/scripts/leak-check.sh"

log "3/4 WebAssembly module + Node tests"
bash "$ROOT/scripts/build-wasm.sh"
cd "$ROOT"
npx --no-install tsc -p wasm/tsconfig.json
PREFIXROUTE_REQUIRE_BROWSER=1 node --test --test-concurrency=2 tests/js/

log "4/4 playground: unit tests, typecheck + build, browser tests"
bash "$ROOT/scripts/test-web-unit.sh"
bash "$ROOT/scripts/test-e2e.sh"

log "waiting for the sanitizer step (2/4)"
status=0
wait "$SANITIZED_PID" || status=$?
trap - EXIT
cat "$SANITIZED_LOG"
if [ "$status" -ne 0 ]; then
  log "the sanitizer step (2/4) FAILED (exit $status): its log is above"
  exit "$status"
fi
log "every step passed"
