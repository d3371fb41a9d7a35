#!/usr/bin/env bash
# Leak check: the release command line (prefixroute-bench-memcheck, its
# objects linked dynamically on glibc's malloc) under valgrind (memcheck), on
# the reference scenario, a trace replay, a refused scenario, replicates on 2
# jobs, a shard and a merge. Fails on any leak (definite, indirect or
# possible) or memory error.
#
#   bash scripts/leak-check.sh            # the reference scenario (4000 requests)
#   bash scripts/leak-check.sh 500        # fewer requests
source "$(dirname "$0")/lib.sh"

requests=${1:-}

ensure_native_deps
ensure_apt valgrind

cd "$ROOT"
# PREFIXROUTE_BENCH=path checks another build of the binary instead.
bench=${PREFIXROUTE_BENCH:-}
if [ -z "$bench" ]; then
  [ -f build/native/build.ninja ] || cmake --preset native >/dev/null
  log "building prefixroute-bench-memcheck (native release)"
  cmake --build --preset native --target prefixroute-bench-memcheck
  bench=build/native/tools/prefixroute-bench-memcheck
fi

# Exit 1 is reserved for valgrind's findings: the benchmark itself exits 0 or 2.
# prefixroute-bench-memcheck is prefixroute-bench's code dynamically linked on
# glibc's malloc (tools/CMakeLists.txt): valgrind follows every allocation.
# A binary given as PREFIXROUTE_BENCH may be the static executable, whose C
# library valgrind cannot follow, or a build on Debian's shared libmimalloc,
# whose entry points valgrind then replaces (somalloc). There operator new
# and new[] are one function, and delete, delete[] and free another, so
# valgrind cannot tell which a block came from or went to: its
# mismatched-free reports would be false, and are not shown.
vg=(valgrind --quiet --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=definite,indirect,possible
    --error-exitcode=1)
if [ ! -x "$bench" ]; then
  echo "leak check: $bench is not an executable file" >&2
  exit 2
fi
if ! readelf -d "$bench" | grep -q '(NEEDED)'; then
  echo "leak check: $bench is a static executable; valgrind cannot check one (build prefixroute-bench-memcheck)" >&2
  exit 2
fi
if readelf -d "$bench" | grep -q 'NEEDED.*libmimalloc'; then
  vg+=('--soname-synonyms=somalloc=libmimalloc.so*' --show-mismatched-frees=no)
fi

run() {
  local expect=$1
  shift
  log "valgrind: prefixroute-bench $*"
  local status=0
  "${vg[@]}" "$bench" "$@" >/dev/null || status=$?
  if [ "$status" -ne "$expect" ]; then
    echo "leak check FAILED: exit status $status (expected $expect) for: prefixroute-bench $*" >&2
    exit 1
  fi
}

if [ -n "$requests" ]; then
  run 0 --json '' --set workload.requests="$requests"
else
  run 0 --json ''
fi
run 0 --json '' --trace scenarios/traces/mooncake-conversation-first-1000.jsonl --set trace.limit=200
run 2 --json '' --set cluster.replicas=0 --set workload.bogus=1
# The run pool (2 threads), replicates, a shard and the merge.
small=(--set workload.requests=500 --set replicates=3 --set policies=affinity,expected_ttft)
run 0 --json '' "${small[@]}" --jobs 2
shards=$(mktemp -d)
trap 'rm -rf "$shards"' EXIT
run 0 "${small[@]}" --jobs 2 --shard 1/2 --json "$shards/1.json"
"$bench" "${small[@]}" --shard 2/2 --json "$shards/2.json" >/dev/null
run 0 --merge "$shards/1.json" "$shards/2.json" --json "$shards/merged.json"
log "leak check passed: no leaks, no memory errors"
