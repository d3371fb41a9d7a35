#!/usr/bin/env bash
# npm run test:e2e: end-to-end tests of the built playground in Debian's
# Chromium, driven by playwright-core (no browser download). Builds web/dist
# and the native benchmark (the reference numbers) when missing.
source "$(dirname "$0")/lib.sh"
ensure_npm_deps
ensure_apt chromium
cd "$ROOT"
bash "$ROOT/scripts/build-web.sh"
[ -x build/native/tools/prefixroute-bench ] || { ensure_native_deps; build_preset native; }
mkdir -p build/e2e
exec node --test --test-concurrency=1 tests/e2e/
