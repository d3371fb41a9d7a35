#!/usr/bin/env bash
# The whole-process performance targets of docs/performance.md, measured for
# two builds of prefixroute side by side: each case runs BEFORE and
# AFTER alternately, ROUNDS times, and the table gives the median wall time
# (perf stat's elapsed time of the process, to the tenth of a millisecond;
# see measure) and peak resident memory (GNU time's %M) of each. Alternating cancels
# most of a shared machine's drift; the medians are what the targets judge.
# The sweep's case runs AFTER in both columns, with 1 job and with 2 (the
# target compares the jobs of one build).
#
#   bash bench/targets.sh BEFORE_BENCH AFTER_BENCH [ROUNDS]
#
# TRACE (default ../shared/traces/mooncake_conversation_trace.jsonl) is the
# Mooncake conversation trace; LONG (default: made here from TRACE with
# bench/repeat_trace.mjs, 100 copies) the long trace; BEFORE is skipped on
# LONG unless BEFORE_LONG=1 (a build that keeps every token in memory needs
# tens of GB there); the long cases run LONG_ROUNDS times (default 1). AFTER
# runs with --jobs where a case says so.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
before=${1:?usage: targets.sh BEFORE_BENCH AFTER_BENCH [ROUNDS]}
after=${2:?usage: targets.sh BEFORE_BENCH AFTER_BENCH [ROUNDS]}
rounds=${3:-5}
trace=${TRACE:-$ROOT/../shared/traces/mooncake_conversation_trace.jsonl}
long=${LONG:-}
before_long=${BEFORE_LONG:-0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v /usr/bin/time >/dev/null || { echo "targets.sh: needs GNU time (Debian package time)" >&2; exit 1; }
if [ -z "$long" ]; then
  long=$tmp/long.jsonl
  node "$ROOT/bench/repeat_trace.mjs" "$trace" 100 "$long" 2>/dev/null
fi

# One process: "wall_s rss_kb" on stdout (the benchmark's own output dropped).
# The wall time is perf stat's elapsed time, the process alone from fork to
# exit; the peak RSS comes from a second run under GNU time, whose own start
# (~3 ms here) would be in a clock read around it. Without perf (or with
# WALL=shell), and for the long cases, one run under GNU time with the
# shell's clock around it gives both.
use_perf=0
if [ "${WALL:-perf}" = perf ] && perf stat -o /dev/null -e task-clock true >/dev/null 2>&1; then use_perf=1; fi
measure() {
  local start end wall
  if [ $use_perf = 1 ] && [ "${ONE_RUN:-0}" = 0 ]; then
    perf stat -o "$tmp/perf" -e task-clock "$@" --json '' >/dev/null 2>&1 || { echo "fail fail"; return; }
    wall=$(awk '/seconds time elapsed/ { printf "%.4f", $1 }' "$tmp/perf")
    /usr/bin/time -f '%M' -o "$tmp/time" "$@" --json '' >/dev/null 2>&1 || { echo "fail fail"; return; }
    echo "$wall $(cat "$tmp/time")"
    return
  fi
  start=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$tmp/time" "$@" --json '' >/dev/null 2>&1 || { echo "fail fail"; return; }
  end=$(date +%s%N)
  echo "$(awk -v ns=$((end - start)) 'BEGIN { printf "%.4f", ns / 1e9 }') $(cat "$tmp/time")"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "-")}'; }

# case NAME BEFORE_ARGS... -- AFTER_ARGS... (AFTER_ARGS empty: the same)
run_case() {
  local name=$1; shift
  local b=() a=() side=b
  for arg in "$@"; do
    if [ "$arg" = "--" ]; then side=a; continue; fi
    if [ $side = b ]; then b+=("$arg"); else a+=("$arg"); fi
  done
  [ ${#a[@]} -eq 0 ] && a=("${b[@]}")
  : >"$tmp/b"; : >"$tmp/a"
  for _ in $(seq "${ROUNDS_HERE:-$rounds}"); do
    if [ "${SKIP_BEFORE:-0}" = 1 ]; then echo "- -" >>"$tmp/b"; else measure "${CASE_BEFORE:-$before}" "${b[@]}" >>"$tmp/b"; fi
    measure "$after" "${a[@]}" >>"$tmp/a"
  done
  local bw bm aw am
  bw=$(cut -d' ' -f1 "$tmp/b" | median); bm=$(cut -d' ' -f2 "$tmp/b" | median)
  aw=$(cut -d' ' -f1 "$tmp/a" | median); am=$(cut -d' ' -f2 "$tmp/a" | median)
  printf '| %s (%s) | %s s | %s MiB | %s s | %s MiB |\n' "$name" "${ROUNDS_HERE:-$rounds}" "$bw" "$(awk -v k="$bm" 'BEGIN{print (k=="-"?"-":sprintf("%.1f",k/1024))}')" \
    "$aw" "$(awk -v k="$am" 'BEGIN{print (k=="-"?"-":sprintf("%.1f",k/1024))}')"
}

t=(--trace "$trace" --set cluster.replicas=8 --set cluster.cache_tokens=1000000)
l=(--trace "$long" --set cluster.replicas=8 --set cluster.cache_tokens=1000000)
echo "Load before: $(uptime | sed 's/.*load average: //')"
echo "Wall times: $([ $use_perf = 1 ] && echo "perf stat's elapsed time (the process alone)" || echo "the shell's clock around GNU time (its start included)")"
echo
echo "| Case (whole process; medians of the runs in brackets) | before wall | before peak RSS | after wall | after peak RSS |"
echo "|---|---|---|---|---|"
sweep=(--sweep affinity_balanced.load_slack_s=0:0.14:8 --set policies=round_robin,least_loaded,affinity,affinity_balanced)
CASE_BEFORE=$after run_case "sweep of 8 points x 4 policies: AFTER with 1 job (before columns) and 2 jobs" "${sweep[@]}" --jobs 1 -- "${sweep[@]}" --jobs 2
run_case "conversation trace, affinity balanced" "${t[@]}" --set policies=affinity_balanced
run_case "conversation trace, every policy" "${t[@]}" --set policies=all -- "${t[@]}" --set policies=all --jobs 1
run_case "conversation trace, every policy, 2 jobs" "${t[@]}" --set policies=all -- "${t[@]}" --set policies=all --jobs 2
# The long trace once per build (LONG_ROUNDS, default 1): minutes per run.
ONE_RUN=1 SKIP_BEFORE=$((1 - before_long)) ROUNDS_HERE=${LONG_ROUNDS:-1} \
  run_case "100 x conversation trace, affinity balanced" "${l[@]}" --set policies=affinity_balanced
ONE_RUN=1 SKIP_BEFORE=$((1 - before_long)) ROUNDS_HERE=${LONG_ROUNDS:-1} \
  run_case "100 x conversation trace, every policy, 2 jobs" "${l[@]}" --set policies=all -- "${l[@]}" --set policies=all --jobs 2
echo
echo "Load after: $(uptime | sed 's/.*load average: //')"
