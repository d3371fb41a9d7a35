#!/usr/bin/env bash
# Builds the libFuzzer targets (CMake preset `sanitize`: clang 14, ASan + UBSan,
# the same build as the sanitized test suites) and runs each for SECONDS seconds (default 20),
# as many at once as there are cores, failing on any crash, hang,
# sanitizer report, model mismatch or allocation over the limits.
#
#   bash scripts/fuzz.sh            # 20 s per target (npm test)
#   bash scripts/fuzz.sh 600        # longer
#   bash scripts/fuzz.sh 60 radix_lockstep_fuzzer   # one target
#
# Each target starts from its seed corpus (fuzz/corpus/<target>/, in git) plus
# what earlier runs found (build/sanitize/corpus/<target>/, not in git). A crash
# input is written to build/sanitize/artifacts/; replay it with
#   build/sanitize/fuzz/<target> build/sanitize/artifacts/<file>
source "$(dirname "$0")/lib.sh"

seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(radix_lockstep_fuzzer scenario_fuzzer url_state_fuzzer trace_reader_fuzzer)
# Each target once: two runs of one target would share its log, corpus and status.
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | awk '!seen[$0]++')

ensure_native_deps
ensure_apt clang-14 libclang-rt-14-dev

log "fuzz targets (preset sanitize: clang 14, libFuzzer + ASan + UBSan)"
cd "$ROOT"
[ -f build/sanitize/build.ninja ] || cmake --preset sanitize >/dev/null
cmake --build --preset sanitize --target "${targets[@]}"

mkdir -p build/sanitize/artifacts
# One fuzzer is one process on one core: as many run at once as there are
# cores, each writing its own log and corpus.
fuzz_one() {
  local target=$1 corpus=build/sanitize/corpus/$1
  mkdir -p "$corpus"
  log "fuzzing $target for ${seconds}s"
  # -rss_limit_mb / -malloc_limit_mb: a hostile input must be refused before
  # it can make the core allocate without bound. -timeout: one input may take
  # at most 25 s (a hang is a failure).
  set +e
  build/sanitize/fuzz/"$target" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -timeout=25 -print_final_stats=1 -artifact_prefix=build/sanitize/artifacts/ \
    "$corpus" "fuzz/corpus/$target" > "build/sanitize/$target.log" 2>&1
  echo $? > "build/sanitize/$target.status"
}
failed=()
# Stopped early (Ctrl-C, a CI timeout), the script takes its fuzzers with it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
  rm -f "build/sanitize/$target.status"
  fuzz_one "$target" &
done
wait
for target in "${targets[@]}"; do
  if [ "$(cat "build/sanitize/$target.status" 2>/dev/null)" != 0 ]; then
    failed+=("$target")
    tail -n 60 "build/sanitize/$target.log" >&2
  fi
  grep -E '^stat::number_of_executed_units|^lockstep totals|^#[0-9]+ *DONE' "build/sanitize/$target.log" >&2 || true
done

if [ ${#failed[@]} -gt 0 ]; then
  log "fuzzing FAILED: ${failed[*]} (logs in build/sanitize/<target>.log, inputs in build/sanitize/artifacts/)"
  exit 1
fi
log "fuzzing passed: ${targets[*]}"
