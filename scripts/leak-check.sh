#!/usr/bin/env bash
# Leak check: the release command line (build/native/tools/prefixroute)
# under valgrind (memcheck), on the reference scenario, a trace replay, a
# refused scenario, replicates on 2 jobs, a shard and a merge. Fails on any
# leak (definite, indirect or possible) or memory error.
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
  log "building prefixroute (native release)"
  cmake --build --preset native --target prefixroute-cli
  bench=build/native/tools/prefixroute
fi
if [ ! -x "$bench" ]; then
  echo "leak check: $bench is not an executable file" >&2
  exit 2
fi

# Exit 1 is reserved for valgrind's findings: the command line itself exits 0 or 2.
vg=(valgrind --quiet --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=definite,indirect,possible
    --error-exitcode=1)

run() {
  local expect=$1
  shift
  log "valgrind: prefixroute $*"
  local status=0
  "${vg[@]}" "$bench" "$@" >/dev/null || status=$?
  if [ "$status" -ne "$expect" ]; then
    echo "leak check FAILED: exit status $status (expected $expect) for: prefixroute $*" >&2
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
