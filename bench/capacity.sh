#!/usr/bin/env bash
# The capacity search's time targets (run/capacity_search.h): each case runs
# `prefixroute --capacity` ROUNDS times and prints the median wall time, the
# median user CPU time (GNU time's %e and %U) and the answer table of the
# last round.
#   reference   the reference scenario, every policy, p99 TTFT <= 2 s
#               (target: under 2 s on 2 cores);
#   trace       the Mooncake conversation trace under the batched engine,
#               Llama-3.1-8B on H100, p90 TTFT <= 2 s, the scenario's four
#               policies (target: under 30 s natively).
#
#   bash bench/capacity.sh [BENCH] [ROUNDS]
#
# BENCH defaults to build/native/tools/prefixroute; TRACE (default
# ../shared/traces/mooncake_conversation_trace.jsonl) names the trace.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bench=${1:-$ROOT/build/native/tools/prefixroute}
rounds=${2:-3}
trace=${TRACE:-$ROOT/../shared/traces/mooncake_conversation_trace.jsonl}
command -v /usr/bin/time >/dev/null || { echo "capacity.sh: needs GNU time (Debian package time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# case NAME ARGS...: ROUNDS runs, then the medians and the last table.
measure() {
  local name=$1
  shift
  : >"$tmp/wall"
  : >"$tmp/user"
  for _ in $(seq "$rounds"); do
    /usr/bin/time -f "%e %U" -o "$tmp/time" "$bench" --capacity --jobs 2 "$@" >"$tmp/table"
    read -r wall user <"$tmp/time"
    echo "$wall" >>"$tmp/wall"
    echo "$user" >>"$tmp/user"
  done
  echo "$name: median of $rounds: $(median <"$tmp/wall") s wall, $(median <"$tmp/user") s user CPU (--jobs 2)"
  echo "  prefixroute --capacity --jobs 2 $*"
  sed 's/^/  /' "$tmp/table"
}

measure reference --set slo.ttft_ms=2000 --set policies=all
if [ -f "$trace" ]; then
  measure trace --trace "$trace" --set cluster.engine=batched --set hardware.model=llama-3.1-8b \
    --set hardware.gpu=h100 --set slo.ttft_ms=2000 --set slo.ttft_percentile=90
else
  echo "trace: $trace not found (set TRACE)"
fi
