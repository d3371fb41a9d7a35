#!/usr/bin/env bash
# The sanitizer half of npm test: the clang 14 ASan + UBSan build of the core
# and its suites (preset sanitize; the same build holds the libFuzzer
# targets), the suites as gtest shards, then a bounded run of every fuzz
# target. npm test runs it in the background at the lowest CPU priority
# beside the other steps (scripts/test.sh), so it takes the cycles the
# browser tests leave idle; run alone it is the same check.
#
#   bash scripts/test-sanitized.sh            # build, suites, 10 s per fuzz target
#   FUZZ_SECONDS=60 bash scripts/test-sanitized.sh
source "$(dirname "$0")/lib.sh"
ensure_native_deps
ensure_apt clang-14 libclang-rt-14-dev

log "sanitizer build (clang 14, ASan + UBSan; also the fuzz targets)"
build_preset sanitize
log "sanitized suites"
ctest --preset sanitize -j2
log "bounded fuzz run"
bash "$ROOT/scripts/fuzz.sh" "${FUZZ_SECONDS:-10}"
log "sanitizer step passed"
