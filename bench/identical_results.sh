#!/usr/bin/env bash
# Are two builds' results byte-identical? Runs prefixroute of BEFORE and
# of AFTER on a set of scenarios chosen to reach every path of the simulator
# and the policies (presets, the Mooncake excerpt, many replicas, decode with
# KV-event lag, pins with protection, 1 ms scrapes, a single replica, no
# cache, a 50-request run whose last admission sets the peak usage), and
# compares the results JSON: byte for byte (cmp) when AFTER adds nothing,
# else with bench/same_results.mjs, which lets AFTER's scenario echo hold
# fields added since (with their defaults) and AFTER's results hold rows of
# policies added to the catalogue since (every case runs policies=all), and
# lets AFTER add the top-level "recommended" key, and requires everything else to be identical: each of BEFORE's rows equal to
# AFTER's row of the same policy, in the same order. Performance work and new options must keep every existing
# result (docs/PERFORMANCE.md); this is the check behind that claim.
#
#   bash bench/identical_results.sh BEFORE_BENCH AFTER_BENCH
#
# BEFORE_BENCH / AFTER_BENCH: prefixroute binaries. One of an older
# commit: `git worktree add /tmp/old COMMIT && cd /tmp/old && cmake --preset
# native && cmake --build --preset native --target prefixroute-cli`, then
# /tmp/old/build/native/tools/prefixroute.
# Prints one line per scenario; exits 1 when any differs.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
before=${1:?usage: identical_results.sh BEFORE_BENCH AFTER_BENCH}
after=${2:?usage: identical_results.sh BEFORE_BENCH AFTER_BENCH}
excerpt=scenarios/traces/mooncake-conversation-first-1000.jsonl
short="--set workload.requests=3000"
cases=(
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
  # shellcheck disable=SC2086
  "$after" $c --json "$out/a$i.json" >"$out/a$i.txt" 2>&1
  if [ -s "$out/a$i.json" ] && cmp -s "$out/b$i.json" "$out/a$i.json"; then
    echo "same  $c"
  elif [ -s "$out/a$i.json" ] && node "$ROOT/bench/same_results.mjs" "$out/b$i.json" "$out/a$i.json" >"$out/d$i.txt"; then
    if [ -s "$out/d$i.txt" ]; then
      echo "same  $c (the scenario echo adds fields; $(head -1 "$out/d$i.txt"))"
    else
      echo "same  $c (the scenario echo adds fields)"
    fi
  else
    echo "DIFF  $c"
    tail -2 "$out/a$i.txt"
    [ -s "$out/d$i.txt" ] && head -3 "$out/d$i.txt"
    fail=1
  fi
done
exit $fail
