#!/usr/bin/env bash
# npm start: build and run the reference benchmark (the playground will replace this).
source "$(dirname "$0")/lib.sh"
exec bash "$ROOT/scripts/bench.sh" "$@"
