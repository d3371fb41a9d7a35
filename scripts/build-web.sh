#!/usr/bin/env bash
# npm run build: the playground as a static site in web/dist (relocatable:
# works from any sub-path and from a plain file server).
#   1. npm dependencies (npm ci when node_modules is missing or stale)
#   2. the WebAssembly module, when web/src/generated lacks it
#   3. type check, then vite build (root web/)
#   4. the guide beside it, in web/dist/guide (scripts/build-guide.sh)
source "$(dirname "$0")/lib.sh"
ensure_npm_deps

cd "$ROOT"
if [ ! -f web/src/generated/prefixroute.mjs ] || [ ! -f web/src/generated/prefixroute.wasm ]; then
  bash "$ROOT/scripts/build-wasm.sh"
fi

log "type check (web)"
npx --no-install tsc -p web/tsconfig.json

log "vite build -> web/dist"
npx --no-install vite build --config web/vite.config.ts --logLevel warn

# After the playground: vite build empties web/dist.
bash "$ROOT/scripts/build-guide.sh"

# Page payload: what a visitor downloads (JS + wasm + CSS + HTML), gzip -9.
node - "$ROOT/web/dist" <<'JS'
const fs = require('fs'), path = require('path'), zlib = require('zlib');
const dist = process.argv[2];
let raw = 0, gz = 0;
const rows = [];
(function walk(dir) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) {
      if (p !== path.join(dist, 'guide')) walk(p); // the guide is its own site: not the page's payload
      continue;
    }
    if (!/\.(js|mjs|wasm|css|html)$/.test(name)) continue;
    if (name === 'embed.html') continue; // index.html under the embed's policy: a visitor loads one of the two
    const data = fs.readFileSync(p);
    const z = zlib.gzipSync(data, { level: 9 }).length;
    raw += data.length; gz += z;
    rows.push(`${path.relative(dist, p).padEnd(44)} ${String(data.length).padStart(9)} B  gzip ${String(z).padStart(8)} B`);
  }
})(dist);
console.error(rows.sort().join('\n'));
console.error(`page payload: ${raw} B raw, ${gz} B gzip (${(gz / 1024).toFixed(1)} KiB; budget 250 KB)`);
// A size target is a figure to report, like the speed targets (node
// bench/payload.mjs, docs/performance.md), not a gate on building the page.
if (gz > 250_000) console.error(`page payload OVER the 250 KB budget by ${gz - 250_000} B`);
JS
