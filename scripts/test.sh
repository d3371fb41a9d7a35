#!/usr/bin/env bash
# npm test: every test of the project, native release and sanitizer builds.
source "$(dirname "$0")/lib.sh"
ensure_native_deps

log "native build + tests"
build_preset native
ctest --preset native -j2

log "sanitizer build (ASan + UBSan) + tests"
build_preset sanitize
ctest --preset sanitize -j2
