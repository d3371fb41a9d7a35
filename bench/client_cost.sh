#!/usr/bin/env bash
# What a closed-loop client costs against an open-loop one on the same
# requests: the command line's CPU time (user + system), every policy, one
# job, the two clients run alternately ROUNDS times (a virtual machine's speed
# drifts between processes); prints each case's medians and closed / open.
#
#   bash bench/client_cost.sh [PREFIXROUTE_BINARY] [ROUNDS]
#
# Cases: the reference scenario at 40,000 requests (fifo engine) and
# Llama-3.1-8B on H100s under the batched engine (6,000 requests with
# decode); closed loops of about the open loop's mean requests in flight (16 on
# the reference, 136 under the batched engine, whose cost follows its steps:
# a loop of fewer requests runs smaller batches and many more steps), and a
# closed ladder on the reference.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$ROOT/build/native/tools/prefixroute}
rounds=${2:-7}
cpu() {
  /usr/bin/time -f '%U %S' "$bin" "$@" --set policies=all --jobs 1 >/dev/null 2>"$tmp/time" || {
    echo "client_cost.sh: failed: $bin $*" >&2
    cat "$tmp/time" >&2
    exit 1
  }
  tail -1 "$tmp/time" | awk '{print $1 + $2}'
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
reference=(--set workload.requests=40000)
batched=(--set hardware.model=llama-3.1-8b --set hardware.gpu=h100 --set cluster.engine=batched
         --set workload.requests=6000 --set workload.output_tokens_min=10 --set workload.output_tokens_max=300)
closed=(--set client.kind=closed --set client.concurrency=16)
closed_batched=(--set client.kind=closed --set client.concurrency=136)
staged=(--set client.kind=closed --set client.stages=4x10,16x10,64x1000)
echo "| Case | Open loop CPU s | Closed loop CPU s | Closed / open |"
echo "|---|---|---|---|"
for case in reference batched reference-stages; do
  case $case in
    reference) base=("${reference[@]}"); other=("${closed[@]}") ;;
    batched) base=("${batched[@]}"); other=("${closed_batched[@]}") ;;
    reference-stages) base=("${reference[@]}"); other=("${staged[@]}") ;;
  esac
  : >"$tmp/open"; : >"$tmp/closed"
  for _ in $(seq "$rounds"); do
    cpu "${base[@]}" >>"$tmp/open"
    cpu "${base[@]}" "${other[@]}" >>"$tmp/closed"
  done
  o=$(median <"$tmp/open"); c=$(median <"$tmp/closed")
  echo "| $case | $o | $c | $(awk -v c="$c" -v o="$o" 'BEGIN {printf "%.2fx", c / o}') |"
done
