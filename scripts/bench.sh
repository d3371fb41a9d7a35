#!/usr/bin/env bash
# npm run bench [-- --scenario FILE] [-- --set key=value ...] [-- --json PATH]
# Builds the native command line and runs it. The reference scenario's run
# (no --scenario, --set, --trace, --sweep, --shard, --merge or --json) also
# writes docs/results.json, the committed results scripts/generated-docs.sh
# checks; any other run writes a file only where --json says.
source "$(dirname "$0")/lib.sh"
ensure_native_deps
build_preset native >/dev/null
cd "$ROOT"
reference=1
for arg in "$@"; do
  case "$arg" in
    --scenario | --scenario=* | --set | --set=* | --trace | --trace=* | --sweep | --sweep=* | \
      --shard | --shard=* | --merge | --merge=* | --json | --json=*) reference=0 ;;
  esac
done
if [ "$reference" = 1 ]; then
  exec build/native/tools/prefixroute "$@" --json docs/results.json
fi
exec build/native/tools/prefixroute "$@"
