#!/usr/bin/env bash
# npm run perf [-- OPTIONS]: the macro benchmark of docs/PERFORMANCE.md.
#
#   1. the machine (CPU model, cores, load: timings are only as good as the quiet)
#   2. prefixroute-perf: reference scenario, Mooncake trace, 1M requests, scaling
#      (options after `--` go to it: --only, --policies, --repeat, --quick, ...)
#   3. the reference scenario through the wasm module in Node, as a ratio to native
#      (builds the module with scripts/build-wasm.sh when it is missing)
#   4. page payload, gzip (of web/dist when the page has been built)
#
# Own options: --no-wasm skips 3, --no-payload skips 4.
source "$(dirname "$0")/lib.sh"

wasm=1
payload=1
perf_args=()
for arg in "$@"; do
  case "$arg" in
    --no-wasm) wasm=0 ;;
    --no-payload) payload=0 ;;
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
echo "- Load before the run: $(uptime | sed 's/.*load average: //') (1, 5, 15 min)"

status=0
build/native/bench/prefixroute-perf "${perf_args[@]}" || status=$?

if [ "$wasm" = 1 ]; then
  if [ ! -f build/wasm/wasm/prefixroute.mjs ] || [ ! -f build/wasm/wasm/prefixroute.wasm ]; then
    bash scripts/build-wasm.sh >&2
  fi
  node bench/wasm_perf.mjs --repeat 5 || status=1
fi

if [ "$payload" = 1 ]; then
  node bench/payload.mjs || status=1
fi

echo
echo "- Load after the run: $(uptime | sed 's/.*load average: //')"
exit $status
