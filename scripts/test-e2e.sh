#!/usr/bin/env bash
# npm run test:e2e: end-to-end tests of the built playground in Debian's
# Chromium, driven by playwright-core (no browser download). The page's
# numbers are compared with the native benchmark's, so both are brought up to
# date from the same sources first (incremental builds: cheap when current).
source "$(dirname "$0")/lib.sh"
ensure_npm_deps
# openssl: the hosted-trace test makes its https server's certificate.
ensure_apt chromium openssl
cd "$ROOT"
bash "$ROOT/scripts/build-wasm.sh"
bash "$ROOT/scripts/build-web.sh"
ensure_native_deps
[ -f build/native/build.ninja ] || cmake --preset native >/dev/null
cmake --build build/native --target prefixroute-cli
mkdir -p build/e2e
# Three files at a time: a file keeps under one core busy on average (its
# page, the page's workers and the command lines it compares with wait on
# each other). Every file starts its own browser and server.
exec node --test --test-concurrency=3 tests/e2e/*.test.mjs
