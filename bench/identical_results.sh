#!/usr/bin/env bash
# Are two builds' results byte-identical? Runs prefixroute of BEFORE and
# of AFTER on a set of scenarios chosen to reach every path of the simulator
# and the policies, and compares the results JSON: byte for byte (cmp) when
# AFTER adds nothing, else with bench/same_results.mjs, which lets AFTER's
# scenario echo hold fields added since (with their defaults) and AFTER's
# results hold rows of policies added to the catalogue since (every case runs
# policies=all), and lets AFTER add the top-level "recommended" key (or, with
# RECOMMENDED_MOVED=1, name another policy there: the grid moved the mark), and
# requires everything else to be identical: each of BEFORE's rows equal to
# AFTER's row of the same policy, in the same order. Performance work and new
# options must keep every existing result (docs/performance.md); this is the
# check behind that claim.
#
# The cases, in groups (each a few seconds at most, the whole script about
# half a minute on 2 cores):
#   fifo engine, default costs: presets, the Mooncake excerpt, many replicas,
#     decode with KV-event lag, pins with protection, 1 ms scrapes, a single
#     replica, no cache, a 50-request run whose last admission sets the peak;
#   fifo engine with step costs: attention, KV reads and a step overhead set
#     by hand, and derived from a hardware.model preset;
#   batched engine: default costs (outputs of 0 tokens: requests without a
#     TPOT sample), hardware.model presets (dense, and mixture-of-experts on 8
#     GPUs with an FP8 KV cache), a small KV capacity and step budget that
#     preempt and recompute;
#   router queues: dynamo_kv.router_queue fcfs and spf under both engines,
#     with several router instances and lagged KV events;
#   trace windows: trace.start_s / end_s, trace.limit with time_scale, a
#     window replayed by the batched engine;
#   workload kinds: sessions, agentic (with fifo decode), gsp, each also under
#     the batched engine (tenants is every other case);
#   affinity_balanced.load_slack_s at 0 (only the least-waiting replicas are
#     eligible: idle ones, each exactly at the limit) and at its largest
#     value, 3,600 s (every replica eligible); replicates = 3; the ready
#     scenarios of scenarios/ (failure modes: predicted TTL, gates, router
#     instances, slow polls).
#
#   bash bench/identical_results.sh BEFORE_BENCH AFTER_BENCH
#
# BEFORE_BENCH / AFTER_BENCH: prefixroute binaries. One of an older
# commit: `git worktree add /tmp/old COMMIT && cd /tmp/old && cmake --preset
# native && cmake --build --preset native --target prefixroute-cli`, then
# /tmp/old/build/native/tools/prefixroute.
# Prints one line per scenario; exits 1 when any differs, and when either
# build writes no results for a case (a refused scenario: its message is
# printed), so a case that stopped running cannot pass unnoticed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
before=${1:?usage: identical_results.sh BEFORE_BENCH AFTER_BENCH}
after=${2:?usage: identical_results.sh BEFORE_BENCH AFTER_BENCH}
excerpt=scenarios/traces/mooncake-conversation-first-1000.jsonl
short="--set workload.requests=3000"
all="--set policies=all"
batched="--set cluster.engine=batched"
queue="--set dynamo_kv.queue_threshold=0.1"
cases=(
  # fifo engine, default costs
  "--set policies=all"
  "--scenario scenarios/one-hot-tenant.json --set policies=all"
  "--scenario scenarios/overloaded.json --set policies=all"
  "--trace $excerpt --set policies=all"
  "--trace $excerpt --set policies=all --set cluster.replicas=32"
  "--set policies=all --set cluster.replicas=64 --set workload.tenants=192 --set workload.arrival_rate_per_s=1600"
  "--set policies=all --set cluster.replicas=130 --set workload.tenants=390 --set workload.requests=8000"
  "--set policies=all --set cluster.decode_ms_per_token=30 --set router.kv_event_lag_ms=50 --set cluster.replicas=16"
  "--set policies=all --set cluster.cache_tokens=1000 --set cluster.replicas=16"
  "--set policies=all $short --set cluster.decode_ms_per_token=20 --set workload.output_tokens_min=0 --set workload.output_tokens_max=3 --set router.kv_event_lag_ms=5"
  "--set policies=all $short --set cluster.decode_ms_per_token=20 --set cluster.protect_after_hits=1 --set cluster.cache_tokens=3000 --set cluster.replicas=8 --set router.kv_event_lag_ms=20"
  "--set policies=all $short --set workload.arrival_rate_per_s=2000 --set cluster.decode_ms_per_token=50 --set router.scrape_period_ms=1 --set router.kv_event_lag_ms=3 --set cluster.replicas=32 --set cluster.cache_tokens=20000"
  "--set policies=all $short --set cluster.replicas=1 --set cluster.decode_ms_per_token=10"
  "--set policies=all $short --set cluster.replicas=3 --set cluster.cache_tokens=0 --set cluster.decode_ms_per_token=10"
  "--set policies=all --set workload.requests=2000 --set cluster.replicas=257 --set workload.arrival_rate_per_s=100000 --set cluster.decode_ms_per_token=5"
  "--set policies=all --set workload.requests=50"
  # fifo engine with step costs
  "$all $short --set cluster.attention_ns_per_token_pair=40 --set cluster.kv_read_ns_per_token=2 --set cluster.step_overhead_ms=1 --set cluster.decode_ms_per_token=10 --set workload.output_tokens_max=20"
  "$all $short --set hardware.model=llama-3.1-8b"
  # batched engine
  "$all $batched --set workload.requests=2000 --set workload.output_tokens_min=0 --set workload.output_tokens_max=40"
  "$all $batched --set hardware.model=llama-3.1-8b --set workload.requests=2000 --set workload.output_tokens_min=1 --set workload.output_tokens_max=200"
  "$all $batched --set hardware.model=deepseek-v3 --set hardware.gpu=b200 --set hardware.tp=8 --set hardware.kv_dtype=fp8 --set workload.requests=2000 --set workload.output_tokens_max=100"
  "$all $batched --set hardware.model=qwen2.5-7b --set cluster.cache_tokens=3000 --set cluster.max_batched_tokens=512 --set cluster.max_running=16 --set workload.requests=2000 --set workload.output_tokens_max=300 --set workload.arrival_rate_per_s=100"
  # router queues
  "--scenario scenarios/overloaded.json $all $short --set dynamo_kv.router_queue=fcfs $queue"
  "--scenario scenarios/overloaded.json $all $short --set dynamo_kv.router_queue=spf $queue --set router.instances=2 --set router.kv_event_lag_ms=20"
  "$all $short $batched --set dynamo_kv.router_queue=fcfs $queue --set router.instances=3 --set workload.arrival_rate_per_s=160 --set workload.output_tokens_max=50"
  "$all $short $batched --set dynamo_kv.router_queue=spf $queue --set router.instances=2 --set router.kv_event_lag_ms=20 --set workload.arrival_rate_per_s=160 --set workload.output_tokens_max=50"
  # trace windows
  "--trace $excerpt $all --set trace.start_s=60 --set trace.end_s=240"
  "--trace $excerpt $all --set trace.limit=400 --set trace.time_scale=0.25"
  "--trace $excerpt $all --set trace.start_s=100 --set trace.time_scale=3 $batched --set hardware.model=llama-3.1-70b --set hardware.tp=4"
  # workload kinds
  "--scenario scenarios/chat-sessions.json $all"
  "--scenario scenarios/agentic.json $all --set cluster.decode_ms_per_token=20"
  "--scenario scenarios/gsp.json $all"
  "--scenario scenarios/chat-sessions.json $all $batched --set hardware.model=qwen2.5-32b --set hardware.tp=2 --set workload.requests=1500"
  "--scenario scenarios/agentic.json $all $batched --set workload.requests=1500 --set router.instances=3"
  "--scenario scenarios/gsp.json $all $batched --set hardware.model=llama-3.1-8b --set workload.gsp_output_len=64"
  # slack boundaries, replicates, the ready scenarios
  "$all $short --set affinity_balanced.load_slack_s=0 --set cluster.replicas=6"
  "$all $short --set affinity_balanced.load_slack_s=3600"
  "$all --set replicates=3 --set workload.requests=1000"
  "--scenario scenarios/failure-agent-burst.json $all"
  "--scenario scenarios/failure-fleet-gate.json $all"
  "--scenario scenarios/failure-hash-thrash.json $all"
  "--scenario scenarios/failure-many-routers.json $all"
  "--scenario scenarios/failure-shared-prompt.json $all"
  "--scenario scenarios/failure-slow-poll.json $all"
)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cd "$ROOT"
fail=0
i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # each case is a list of arguments
  "$before" $c --json "$out/b$i.json" >"$out/b$i.txt" 2>&1
  status_before=$?
  # shellcheck disable=SC2086
  "$after" $c --json "$out/a$i.json" >"$out/a$i.txt" 2>&1
  status_after=$?
  if [ "$status_before" -ne 0 ] || [ "$status_after" -ne 0 ] || [ ! -s "$out/b$i.json" ] || [ ! -s "$out/a$i.json" ]; then
    echo "NO RESULTS  $c"
    if [ "$status_before" -ne 0 ] || [ ! -s "$out/b$i.json" ]; then
      echo "  BEFORE (exit $status_before) wrote no results:"
      tail -3 "$out/b$i.txt" | sed 's/^/    /'
    fi
    if [ "$status_after" -ne 0 ] || [ ! -s "$out/a$i.json" ]; then
      echo "  AFTER (exit $status_after) wrote no results:"
      tail -3 "$out/a$i.txt" | sed 's/^/    /'
    fi
    fail=1
  elif cmp -s "$out/b$i.json" "$out/a$i.json"; then
    echo "same  $c"
  elif node "$ROOT/bench/same_results.mjs" "$out/b$i.json" "$out/a$i.json" >"$out/d$i.txt"; then
    if [ -s "$out/d$i.txt" ]; then
      echo "same  $c (the scenario echo adds fields; $(head -1 "$out/d$i.txt"))"
    else
      echo "same  $c (the scenario echo adds fields)"
    fi
  else
    echo "DIFF  $c"
    tail -2 "$out/a$i.txt"
    [ -s "$out/d$i.txt" ] && cat "$out/d$i.txt"
    fail=1
  fi
done
echo "$i cases"
exit $fail
