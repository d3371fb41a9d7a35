#!/usr/bin/env bash
# npm start: build the WebAssembly module and the playground, then serve it
# on 127.0.0.1 and print its URL (installs what is missing).
source "$(dirname "$0")/lib.sh"
exec bash "$ROOT/scripts/serve-web.sh" "$@"
