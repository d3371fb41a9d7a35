#!/usr/bin/env bash
# npm run bench [-- --scenario FILE] [-- --set key=value ...] [-- --json PATH]
source "$(dirname "$0")/lib.sh"
ensure_native_deps
build_preset native >/dev/null
cd "$ROOT"
exec build/native/tools/prefixroute-bench "$@"
