#!/usr/bin/env bash
# npm run perf [-- OPTIONS]: the macro benchmark of docs/performance.md.
#
#   1. the machine (CPU model, cores, load: timings are only as good as the quiet)
#   2. prefixroute-perf: reference scenario, Mooncake trace, 1M requests, scaling
#      (options after `--` go to it: --only, --policies, --repeat, --quick, ...)
#   3. the reference scenario through the wasm module in Node, as a ratio to native
#      (builds the module with scripts/build-wasm.sh when it is missing)
#   4. page payload, gzip (of web/dist when the page has been built), and the
#      page's re-run time and longest main-thread task in Chromium
#      (bench/page_perf.mjs, when web/dist exists and Chromium is installed)
#
#   5. with --micro: the Google Benchmark micro-benchmarks (bench/micro_bench.cpp)
#
# Own options: --no-wasm skips 3, --no-payload skips 4, --micro adds 5.
source "$(dirname "$0")/lib.sh"

wasm=1
payload=1
micro=0
perf_args=()
for arg in "$@"; do
  case "$arg" in
    --no-wasm) wasm=0 ;;
    --no-payload) payload=0 ;;
    --micro) micro=1 ;;
    *) perf_args+=("$arg") ;;
  esac
done

ensure_native_deps
build_preset native >/dev/null
cd "$ROOT"

echo "## Machine"
echo
echo "- CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores ($(lscpu | sed -n 's/^Thread(s) per core: *//p') thread(s) per core)"
echo "- Memory: $(free -g | awk '/^Mem:/ {print $2}') GiB; $(uname -sr); $(g++ --version | head -1); node $(node --version 2>/dev/null || echo absent)"
if git rev-parse --git-dir >/dev/null 2>&1; then
  core_state="commit $(git rev-parse --short HEAD)"
  [ -n "$(git status --porcelain -- core bench)" ] && core_state+=" with uncommitted changes in core/ or bench/"
  echo "- Code: $core_state; core/ sources hash $(find core -name "*.h" -o -name "*.cpp" | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)"
fi
echo "- Load before the run: $(uptime | sed 's/.*load average: //') (1, 5, 15 min)"

status=0
build/native/bench/prefixroute-perf "${perf_args[@]}" || status=$?

if [ "$wasm" = 1 ]; then
  if [ ! -f build/wasm/wasm/prefixroute.mjs ] || [ ! -f build/wasm/wasm/prefixroute.wasm ]; then
    bash scripts/build-wasm.sh >&2
  fi
  # Native and Node processes on one CPU: a virtual machine's vCPUs may differ in speed
  # (prefixroute-perf pins itself the same way; see its --cpu).
  pin=()
  command -v taskset >/dev/null && pin=(taskset -c "$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')")
  "${pin[@]}" node bench/wasm_perf.mjs --repeat 5 --rounds 5 || status=1
fi

if [ "$payload" = 1 ]; then
  node bench/payload.mjs || status=1
  if [ -f web/dist/index.html ] && [ -x /usr/bin/chromium ]; then
    node bench/page_perf.mjs --runs 20 || status=1
  fi
fi

if [ "$micro" = 1 ]; then
  echo
  echo '### Micro-benchmarks (Google Benchmark; items/s = tokens/s for the radix rows, requests/s for simulation)'
  echo
  echo '```text'
  build/native/bench/prefixroute-microbench --benchmark_min_time=0.2 2>&1 | grep -v '^\*\*\*WARNING' || status=1
  echo '```'
fi

echo
echo "- Load after the run: $(uptime | sed 's/.*load average: //')"
exit $status
