#!/usr/bin/env bash
# Shards through GNU parallel, as docs/guide/seeds-and-machines.md shows: a small experiment with
# replicates and a small sweep each split into 3 shards run by `parallel`,
# merged with --merge, and compared byte for byte (cmp) with one machine's
# output; --jobs 1 and --jobs 4 compared the same way. Installs GNU parallel
# (Debian) when it is missing, as the project's scripts do.
#   shards_parallel_test.sh PATH/TO/prefixroute
set -uo pipefail
bench=$1
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/../../scripts/lib.sh"
set +e  # lib.sh sets -e; this script counts failures itself
command -v parallel >/dev/null || ensure_apt parallel
if ! command -v parallel >/dev/null; then
  echo "FAIL GNU parallel is not installed and could not be installed (apt-get install parallel)"
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() {  # NAME FILE_A FILE_B: the two files are the same bytes
  if [ -s "$2" ] && cmp -s "$2" "$3"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "FAIL $1: $2 and $3 differ"; cmp "$2" "$3" | head -3; fi
}

small=(--set workload.requests=400 --set policies=round_robin,affinity,expected_ttft,dynamo_kv --set replicates=3)
"$bench" "${small[@]}" --jobs 1 --json "$tmp/single.json" >/dev/null

# 3 shards, run by GNU parallel ({} is the shard number 1..3), then merged.
parallel --will-cite --halt now,fail=1 "$bench" "${small[@]}" --jobs 1 --shard {}/3 --json "$tmp/shard-{}.json" \
  ::: 1 2 3 >/dev/null
"$bench" --merge "$tmp"/shard-*.json --json "$tmp/merged.json" >/dev/null
check "3 shards through GNU parallel, merged" "$tmp/single.json" "$tmp/merged.json"

"$bench" "${small[@]}" --jobs 4 --json "$tmp/jobs4.json" >/dev/null
check "--jobs 4 against --jobs 1" "$tmp/single.json" "$tmp/jobs4.json"

sweep=(--set workload.requests=300 --set policies=affinity,least_loaded --sweep cluster.replicas=2:4:3)
"$bench" "${sweep[@]}" --jobs 1 --json "$tmp/sweep.json" >/dev/null
parallel --will-cite --halt now,fail=1 "$bench" "${sweep[@]}" --shard {}/3 --json "$tmp/sweep-shard-{}.json" \
  ::: 1 2 3 >/dev/null
"$bench" --merge "$tmp"/sweep-shard-*.json --json "$tmp/sweep-merged.json" >/dev/null
check "a sweep in 3 shards through GNU parallel, merged" "$tmp/sweep.json" "$tmp/sweep-merged.json"

# The excerpt trace, sharded: the shards carry its content hash.
trace=(--trace "$ROOT/scenarios/traces/mooncake-conversation-first-1000.jsonl" --set trace.limit=300 --set policies=all)
"$bench" "${trace[@]}" --json "$tmp/trace.json" >/dev/null
parallel --will-cite "$bench" "${trace[@]}" --shard {}/3 --json "$tmp/trace-shard-{}.json" ::: 1 2 3 >/dev/null
"$bench" --merge "$tmp"/trace-shard-*.json --json "$tmp/trace-merged.json" >/dev/null
check "a trace replay in 3 shards, merged" "$tmp/trace.json" "$tmp/trace-merged.json"

# A wrong set of shards is an error naming the problem, and writes nothing.
expect_error() {  # NAME PATTERN -- ARGS...
  local name=$1 pattern=$2
  shift 3
  local out code
  out=$("$bench" "$@" 2>&1)
  code=$?
  if [ "$code" -eq 2 ] && grep -qE -- "$pattern" <<<"$out" && [ ! -e "$tmp/wrong.json" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); printf 'FAIL %s: exit %s, output:\n%s\n' "$name" "$code" "$out"; fi
}
expect_error missing_shard 'missing shard 2/3' -- --merge "$tmp/shard-1.json" "$tmp/shard-3.json" --json "$tmp/wrong.json"
expect_error twice 'shard 1/3 is given twice' -- --merge "$tmp/shard-1.json" "$tmp/shard-1.json" "$tmp/shard-3.json" \
  --json "$tmp/wrong.json"
"$bench" "${small[@]}" --set seed=7 --shard 2/3 --json "$tmp/other-2.json" >/dev/null
expect_error other_scenario 'runs another scenario than .*: seed is 7 here and 42 there' -- \
  --merge "$tmp/shard-1.json" "$tmp/other-2.json" "$tmp/shard-3.json" --json "$tmp/wrong.json"
expect_error experiment_and_sweep 'is a shard of a' -- --merge "$tmp/shard-1.json" "$tmp/sweep-shard-2.json" \
  "$tmp/shard-3.json" --json "$tmp/wrong.json"
expect_error results_json 'not a shard document' -- --merge "$tmp/single.json" --json "$tmp/wrong.json"
expect_error merge_without_json 'needs --json OUT' -- --merge "$tmp/shard-1.json"
expect_error shard_without_json 'needs --json SHARD.json' -- --shard 1/3
expect_error bad_shard 'expected K/N' -- --shard 4/3 --json "$tmp/wrong.json"
expect_error trace_replicates 'replicates: must be 1 when a trace is replayed' -- "${trace[@]}" --set replicates=2 \
  --json "$tmp/wrong.json"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
