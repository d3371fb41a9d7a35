#!/usr/bin/env bash
# Instruction-count profiles of simulate() with callgrind (docs/performance.md).
#
#   bash bench/profile.sh [reference] [mooncake] [replicas] [requests] [timeshares]
#                                                      (default: all five)
#   POLICIES=llmd_epp,affinity_balanced bash bench/profile.sh replicas   (the replicas case for some policies)
#
# Instruction counts do not depend on machine load, so they are the stable
# figure for comparisons (hardware counters are not available on the project's virtual machines:
# `perf stat -e instructions true` reports <not supported>). Builds an -O3 -g
# copy of the native release build in build/perf-prof, runs each case of
# prefixroute-perf in-process under callgrind with collection limited to
# prefixroute::simulate, writes build/profiles/<case>_<policy>.out and prints
# a Markdown report. Look deeper with e.g.
#   callgrind_annotate --inclusive=yes build/profiles/ref_affinity.out
# Under callgrind a run is ~50x slower: the mooncake case takes minutes per policy.
#
# `timeshares` adds sampling profiles (perf record -e cpu-clock, a software
# event that works on virtual machines) of the main cases: real time shares, which
# differ from instruction shares where memory copies and page faults dominate.
source "$(dirname "$0")/../scripts/lib.sh"
ensure_native_deps
ensure_apt valgrind linux-perf

cd "$ROOT"
prof=build/perf-prof
[ -f "$prof/build.ninja" ] || cmake -S . -B "$prof" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-g \
  -DPREFIXROUTE_BUILD_TESTS=OFF >/dev/null
cmake --build "$prof" -j2 --target prefixroute-perf >/dev/null
perf_bin=$ROOT/$prof/bench/prefixroute-perf
out=$ROOT/build/profiles
mkdir -p "$out"
policies=(round_robin least_loaded affinity affinity_balanced)
trace=$ROOT/../shared/traces/mooncake_conversation_trace.jsonl

cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=(reference mooncake replicas requests timeshares)

# sample NAME FREQ ARGS... : one cpu-clock sampling profile of prefixroute-perf, reported for simulate().
sample() {
  local name=$1 freq=$2
  shift 2
  perf record -q -e cpu-clock -F "$freq" --call-graph dwarf,16384 -o "$out/$name.data" \
    "$perf_bin" --in-process "$@" >"$out/$name.log" 2>&1
  perf script -i "$out/$name.data" -F ip,sym 2>/dev/null | node bench/perf_report.mjs "$name: $*"
}

# grind NAME ARGS... : one callgrind run of prefixroute-perf, collection inside simulate() only.
grind() {
  local name=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out/$name.out" --toggle-collect='prefixroute::simulate(prefixroute::RequestSource&*' \
    "$perf_bin" --in-process --repeat 1 "$@" >"$out/$name.log" 2>&1
}

# An awk function: an integer with thousands separators (mawk has no %\047d).
AWK_COMMAS='function commas(x,  s, r) { s = sprintf("%.0f", x); r = ""; while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) } return s r }'

total_of() { callgrind_annotate --auto=no --threshold=100 "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'; }

# ratio_table TITLE PREFIX_A PREFIX_B REQ_A REQ_B POLICY... : instructions per request, B / A, per policy.
ratio_table() {
  local title=$1 a=$2 b=$3 ra=$4 rb=$5
  shift 5
  echo
  echo "#### $title"
  echo
  echo "| Policy | $a: instructions / request | $b: instructions / request | $b / $a |"
  echo "|---|---|---|---|"
  for p in "$@"; do
    local ia ib
    ia=$(total_of "$out/${a}_$p.out")
    ib=$(total_of "$out/${b}_$p.out")
    awk -v p="$p" -v ia="$ia" -v ib="$ib" -v ra="$ra" -v rb="$rb" \
      "$AWK_COMMAS"' BEGIN { printf "| %s | %s | %s | %.2fx |\n", p, commas(ia / ra), commas(ib / rb), (ib / rb) / (ia / ra) }'
  done
}

for c in "${cases[@]}"; do
  case "$c" in
    reference)
      log "callgrind: reference scenario, 4 policies"
      args=()
      for p in "${policies[@]}"; do
        grind "ref_$p" --only reference --policies "$p"
        args+=("reference, $p=$out/ref_$p.out")
      done
      echo "### Profiles: reference scenario (4,000 requests)"
      node bench/callgrind_report.mjs --requests 4000 "${args[@]}"
      ;;
    mooncake)
      log "callgrind: Mooncake conversation trace, 8 replicas, 4 policies (minutes each)"
      args=()
      for p in "${policies[@]}"; do
        grind "moon_$p" --only mooncake --policies "$p" --trace "$trace"
        args+=("Mooncake trace, $p=$out/moon_$p.out")
      done
      echo "### Profiles: Mooncake conversation trace (12,031 requests, 8 replicas, 1M-token caches)"
      node bench/callgrind_report.mjs --requests 12031 "${args[@]}"
      ;;
    replicas)
      # Every policy of the catalogue: the target (cost per request at most 1.5x
      # from 4 to 256 replicas) applies to each.
      read -r -a all_policies <<<"$("$perf_bin" --list-policies | tr '\n' ' ')"
      [ -n "${POLICIES:-}" ] && IFS=, read -r -a all_policies <<<"$POLICIES"
      log "callgrind: 4 and 256 replicas, 20,000 requests, ${#all_policies[@]} policies"
      # The two sizes of a policy run side by side (callgrind counts do not
      # depend on the machine's load): half the time on two cores.
      for p in "${all_policies[@]}"; do
        for r in 4 256; do
          grind "rep${r}_$p" --only custom --policies "$p" --set workload.requests=20000 --set cluster.replicas=$r \
            --set workload.arrival_rate_per_s=$((25 * r)) --set workload.tenants=$((3 * r)) &
        done
        wait
      done
      ratio_table "Replica scaling in instructions (20,000 requests; rate 25/s and 3 tenants per replica)" \
        rep4 rep256 20000 20000 "${all_policies[@]}"
      args=()
      for p in affinity affinity_balanced; do
        [[ " ${all_policies[*]} " == *" $p "* ]] && args+=("256 replicas, $p=$out/rep256_$p.out")
      done
      [ ${#args[@]} -eq 0 ] || node bench/callgrind_report.mjs --requests 20000 "${args[@]}"
      ;;
    requests)
      log "callgrind: 1,000 and 100,000 requests, 4 policies"
      for n in 1000 100000; do
        for p in "${policies[@]}"; do
          grind "req${n}_$p" --only custom --policies "$p" --set workload.requests=$n
        done
      done
      ratio_table "Request scaling in instructions (reference scenario)" req1000 req100000 1000 100000 "${policies[@]}"
      ;;
    timeshares)
      log "perf (cpu-clock sampling): time shares inside simulate()"
      echo "### Time shares (sampling)"
      sample perf_ref_affinity_balanced 4000 --only reference --policies affinity_balanced --repeat 30
      sample perf_ref_round_robin 4000 --only reference --policies round_robin --repeat 30
      # Every policy of the catalogue on the Mooncake trace (the seed four and any added since).
      for p in $("$perf_bin" --list-policies); do
        sample "perf_moon_$p" 1000 --only mooncake --policies "$p" --repeat 2 --trace "$trace"
      done
      sample perf_rep256_affinity_balanced 1000 --only custom --policies affinity_balanced --repeat 1 \
        --set workload.requests=20000 --set cluster.replicas=256 --set workload.arrival_rate_per_s=6400 \
        --set workload.tenants=768
      ;;
    *)
      echo "unknown case $c (reference, mooncake, replicas, requests, timeshares)" >&2
      exit 2
      ;;
  esac
done
