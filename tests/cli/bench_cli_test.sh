#!/usr/bin/env bash
# Command-line behaviour of prefixroute: exit codes and error messages.
#   bench_cli_test.sh PATH/TO/prefixroute
set -uo pipefail
bench=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# expect NAME EXPECTED_EXIT PATTERN -- ARGS...: runs the bench, checks exit code and output.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out code
  out=$("$bench" "$@" 2>&1)
  code=$?
  if [ "$code" -eq "$want" ] && grep -qE -- "$pattern" <<<"$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: exit %s (want %s), output:\n%s\n' "$name" "$code" "$want" "$out"
  fi
}

expect zero_replicas 2 'cluster\.replicas: must be an integer in \[1, 4096\]' -- --json '' --set cluster.replicas=0
expect unknown_key 2 'workload\.bogus: unknown key; allowed keys in workload: requests, tenants, zipf_s' -- --json '' --set workload.bogus=3
expect several_errors_at_once 2 'workload\.requests.*' -- --json '' --set workload.requests=-1 --set workload.zipf_s=nan
# ... each with its own line: the field, what is allowed, what was given.
expect several_errors_at_once_requests 2 '^  workload\.requests: must be an integer in \[1, 10000000\] \(requests\); got -1$' -- \
  --json '' --set workload.requests=-1 --set workload.zipf_s=nan
expect several_errors_at_once_zipf_s 2 '^  workload\.zipf_s: must be a number in \[0, 10\]; got "nan" \(a string\)$' -- \
  --json '' --set workload.requests=-1 --set workload.zipf_s=nan
expect nan_is_refused 2 'workload\.zipf_s: must be a number in \[0, 10\]; got "nan"' -- --json '' --set workload.zipf_s=nan
expect set_without_equals 2 '^error: --set cluster\.replicas: expected key=value, e\.g\. cluster\.replicas=8$' -- --json '' --set cluster.replicas
expect missing_scenario_file 1 "^error: cannot read scenario file $tmp/nope\\.json\$" -- --json '' --scenario "$tmp/nope.json"
printf '{"workload": {"requests": 50' >"$tmp/broken.json"
expect malformed_scenario_file 2 '^  \(document\): .*parse error at line 1, column 29: .*unexpected end of input' -- --json '' --scenario "$tmp/broken.json"
printf '{"workload": {"requests": 200}, "policies": ["affinity"]}' >"$tmp/small.json"
expect small_scenario_runs 0 '^affinity ' -- --json "$tmp/out.json" --scenario "$tmp/small.json"
if grep -q '"requests": 200' "$tmp/out.json" 2>/dev/null; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL results JSON does not echo the scenario"; fi
expect set_overrides_file 0 'trace: 300 requests' -- --json '' --scenario "$tmp/small.json" --set workload.requests=300

# Replicates: means ± half-widths and the pairs that are not distinguishable.
expect replicates_table 0 'not distinguishable at N = 3 \(their 95% intervals overlap\):' -- --json '' \
  --set workload.requests=300 --set replicates=3 --set policies=round_robin,least_loaded --jobs 2
expect replicates_mean_pm 0 '^round_robin +mean_ttft= +[0-9.]+ ± +[0-9.]+ ms' -- --json '' \
  --set workload.requests=300 --set replicates=3 --set policies=round_robin,least_loaded
expect replicates_range 2 'replicates: must be an integer in \[1, 1000\]' -- --json '' --set replicates=0
expect jobs_zero 2 'jobs' -- --json '' --jobs 0

# A trace whose prefill work at the cluster's rate exceeds 1e9 s would overflow
# simulated time: refused, naming the field (101 requests of 10^7 tokens).
for i in $(seq 0 100); do
  printf '{"timestamp": %d, "input_length": 10000000, "output_length": 1, "hash_ids": [%d, %d, %d, %d, %d, %d, %d, %d, %d, %d]}\n' \
    "$i" $(seq $((i * 10)) $((i * 10 + 9)))
done >"$tmp/huge.jsonl"
expect trace_prefill_bound 2 'cluster\.prefill_tokens_per_s: the trace.s total prompt tokens \(1010000000\)' -- \
  --json '' --trace "$tmp/huge.jsonl" --set trace.block_size=1048576 --set cluster.prefill_tokens_per_s=1

# A trace streams through a temporary file: a bad line still names its line
# and field, a line out of time order is refused naming its line (nothing is
# sorted), skipped lines are counted, and the temporary file never stays in
# TMPDIR.
{
  printf '{"timestamp": 0, "input_length": 4, "output_length": 1, "hash_ids": [1]}\n'
  printf '{"timestamp": 10, "input_length": 4, "output_length": 1, "hash_ids": [2]}\n'
  printf '{"timestamp": 5, "input_length": 4, "output_length": 1, "hash_ids": [3]}\n'
  printf '{"timestamp": 11, "input_length": 4, "output_length": 1}\n'
} >"$tmp/unsorted.jsonl"
mkdir "$tmp/spill"
TMPDIR="$tmp/spill" expect trace_out_of_order 2 \
  "^line 3, timestamp: is 5, earlier than the previous request's; timestamps must not decrease$" -- \
  --json '' --trace "$tmp/unsorted.jsonl" --set trace.block_size=4
TMPDIR="$tmp/spill" expect trace_skip_counts 0 '^warning: skipped 2 bad lines of .*unsorted\.jsonl:$' -- \
  --json '' --trace "$tmp/unsorted.jsonl" --set trace.block_size=4 --set trace.on_error=skip --set cluster.replicas=2
TMPDIR="$tmp/spill" expect trace_missing_field 0 '^line 4, hash_ids: missing \(the prompt.s block ids\)$' -- \
  --json '' --trace "$tmp/unsorted.jsonl" --set trace.block_size=4 --set trace.on_error=skip --set cluster.replicas=2
if [ -z "$(ls -A "$tmp/spill")" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "FAIL the trace's temporary file stayed in TMPDIR: $(ls "$tmp/spill")"; fi
TMPDIR="$tmp/no-such-dir" expect trace_no_tmpdir 1 '^error: cannot replay trace .*: cannot create a temporary file in .*no-such-dir' -- \
  --json '' --trace "$tmp/unsorted.jsonl" --set trace.block_size=4

# Workloads with sessions add the per-session figures to the table (the
# tenants kind's rows above have none).
expect sessions_table 0 '^round_robin .* later_call_hit= *[0-9.]+%  one_replica= *[0-9.]+% of [0-9,]+ sessions$' -- \
  --json '' --set workload.kind=sessions --set workload.requests=300 --set policies=round_robin
expect sessions_markdown 0 '^\| Policy .* \| Later-call hit rate \| Sessions on one replica \|$' -- \
  --json '' --set workload.kind=sessions --set workload.requests=300 --set policies=round_robin --markdown
expect tenants_no_session_figures 0 '^round_robin .*imbalance=[0-9.]+$' -- \
  --json '' --set workload.requests=300 --set policies=round_robin
# An openai-format log streams too; its sessions come from session_id.
{
  printf '{"timestamp": "2026-03-01T12:00:00Z", "messages": [{"role": "user", "content": "Hello there"}], "output_tokens": 5, "session_id": "a"}\n'
  printf '{"timestamp": "2026-03-01T12:00:02Z", "messages": [{"role": "user", "content": "Hello there"}, {"role": "assistant", "content": "Hi! How can I help?"}, {"role": "user", "content": "Tell me a story."}], "output_tokens": 9, "session_id": "a"}\n'
} >"$tmp/chat.jsonl"
TMPDIR="$tmp/spill" expect openai_trace 0 '^round_robin .* later_call_hit= *[0-9.]+%  one_replica= *0\.0% of 1 sessions$' -- \
  --json '' --trace "$tmp/chat.jsonl" --set cluster.replicas=2 --set policies=round_robin
printf '{"timestamp": "2026-03-01 12:00:00", "prompt": "x", "output_tokens": 1}\n' >"$tmp/bad-chat.jsonl"
TMPDIR="$tmp/spill" expect openai_bad_line 2 '^openai trace, line 1, timestamp: "2026-03-01 12:00:00" is not an ISO 8601 date-time' -- \
  --json '' --trace "$tmp/bad-chat.jsonl" --set trace.format=openai

# A run writes no file unless --json (or --timeline) names one: not even the
# committed docs/results.json of the folder it runs in.
mkdir -p "$tmp/cwd/docs"
abs_bench=$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")
if (cd "$tmp/cwd" && "$abs_bench" --set workload.requests=200 --set policies=affinity >/dev/null 2>&1) &&
  [ -z "$(find "$tmp/cwd" -type f)" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAIL a run without --json wrote: $(find "$tmp/cwd" -type f)"
fi
# A sweep of a trace: every point replays it; keys the trace makes meaningless are refused by name
# (before the file is read), and an openai log dated by `created` (Unix seconds) replays.
TMPDIR="$tmp/spill" expect trace_sweep 0 '^2 +round_robin' -- \
  --json '' --trace "$tmp/chat.jsonl" --sweep cluster.replicas=1,2 --set policies=round_robin
expect trace_sweep_workload_key 2 '^  \(sweep\): workload\.arrival_rate_per_s sets the synthetic workload, which the replayed trace replaces' -- \
  --json '' --trace "$tmp/nope.jsonl" --sweep workload.arrival_rate_per_s=50,100
expect trace_sweep_trace_key 2 '^  \(sweep\): trace\.limit is a reading setting of the replayed trace' -- \
  --json '' --trace "$tmp/chat.jsonl" --sweep trace.limit=1,2
printf '{"created": 1767225600, "prompt": "x", "output_tokens": 1}\n{"created": 1767225603, "prompt": "y", "output_tokens": 1}\n' >"$tmp/created.jsonl"
TMPDIR="$tmp/spill" expect openai_created 0 '^trace: created\.jsonl, 2 requests' -- --json '' --trace "$tmp/created.jsonl" --set policies=round_robin

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
