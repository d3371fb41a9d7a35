#!/usr/bin/env bash
# Before/after CPU time of simulate(), two builds of prefixroute-perf run
# alternately (docs/performance.md). On a virtual machine a process's speed varies by
# 20 - 40 % from one process to the next, so two separate runs of a benchmark
# are not comparable; alternating the binaries case by case, ROUNDS times, and
# taking medians is.
#
#   bash bench/interleave.sh BEFORE_BIN AFTER_BIN [ROUNDS] [POLICY ...]
#
# Cases: the reference scenario (4,000 requests, 4 replicas) and 100,000
# requests at 4 and at 256 replicas (arrival rate 25/s and 3 tenants per
# replica, as the replicas section of `npm run perf`). Policies default to
# every policy of AFTER_BIN's catalogue. Runs on one CPU (taskset). Prints a Markdown table: median CPU
# time of simulate() of each binary (one run per process) and after / before.
set -euo pipefail
# Both builds on one CPU: a virtual machine's vCPUs may differ by ~35 % in speed, and an
# older build may not pin itself (prefixroute-perf's --cpu).
if [ -z "${PREFIXROUTE_PINNED:-}" ] && command -v taskset >/dev/null; then
  export PREFIXROUTE_PINNED=1
  exec taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')" bash "$0" "$@"
fi
before=${1:?usage: interleave.sh BEFORE_BIN AFTER_BIN [ROUNDS] [POLICY ...]}
after=${2:?usage: interleave.sh BEFORE_BIN AFTER_BIN [ROUNDS] [POLICY ...]}
rounds=${3:-5}
shift $(($# < 3 ? $# : 3))
policies=("$@")
[ ${#policies[@]} -eq 0 ] && read -r -a policies <<<"$("$after" --list-policies | tr '\n' ' ')"

# One run's CPU time; a failed run stops the script (an empty value would
# otherwise sort as 0 and make a ratio silently wrong).
cpu() {
  local v
  v=$("$@" --format json 2>/dev/null | sed -n 's/.*"cpu_median_s":\([0-9.e-]*\).*/\1/p' | head -1)
  if [ -z "$v" ]; then
    echo "interleave.sh: no result from: $*" >&2
    exit 1
  fi
  echo "$v"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "Load before: $(uptime | sed 's/.*load average: //') (1, 5, 15 min)"
echo
printf "| Case | Policy | before CPU (median of %d) | after CPU (median of %d) | after / before |\n|---|---|---|---|---|\n" \
  "$rounds" "$rounds"
for c in "reference 4000 4" "replicas=4 100000 4" "replicas=256 100000 256"; do
  read -r name n r <<<"$c"
  for p in "${policies[@]}"; do
    b=(); a=()
    for _ in $(seq "$rounds"); do
      args=(--only custom --repeat 1 --policies "$p" --set "workload.requests=$n" --set "cluster.replicas=$r"
            --set "workload.arrival_rate_per_s=$((25 * r))" --set "workload.tenants=$((3 * r))")
      b+=("$(cpu "$before" "${args[@]}")")
      a+=("$(cpu "$after" "${args[@]}")")
    done
    mb=$(printf "%s\n" "${b[@]}" | median)
    ma=$(printf "%s\n" "${a[@]}" | median)
    awk -v c="$name" -v p="$p" -v b="$mb" -v a="$ma" -v n="$n" 'BEGIN {
      printf "| %s | %s | %.2f ms (%.2f µs/req) | %.2f ms (%.2f µs/req) | %.2fx |\n", c, p, b * 1e3, b * 1e6 / n, a * 1e3, a * 1e6 / n, a / b }'
  done
done
echo
echo "Load after: $(uptime | sed 's/.*load average: //')"
