#!/usr/bin/env bash
# npm run serve (and npm start): builds the playground when needed and serves
# web/dist on 127.0.0.1, printing the URL. PORT=8080 picks the port.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
if [ ! -f web/dist/index.html ] || [ -n "$(find web/src web/index.html scenarios -newer web/dist/index.html -print -quit 2>/dev/null)" ]; then
  bash "$ROOT/scripts/build-web.sh"
fi
port=${PORT:-5173}
log "serving web/dist at http://127.0.0.1:$port/ (Ctrl-C stops)"
exec npx --no-install vite preview --config web/vite.config.ts --host 127.0.0.1 --port "$port" --strictPort
