#!/usr/bin/env bash
# npm run build:guide: the guide (docs/guide/*.md) as a static site in
# web/dist/guide/, beside the playground it embeds (npm run build calls it
# after the playground's build, which empties web/dist).
#   1. vitepress build (docs/guide/.vitepress/config.mts): multi-page HTML
#      under a placeholder base
#   2. every address under that base made relative to its file, so the site
#      works under any sub-path, as the playground does (VitePress wants an
#      absolute base: one it cannot know for a fork's Pages address)
source "$(dirname "$0")/lib.sh"
ensure_npm_deps

cd "$ROOT"
log "vitepress build docs/guide -> web/dist/guide"
npx --no-install vitepress build docs/guide --logLevel warn

node - "$ROOT/web/dist/guide" <<'JS'
const fs = require('fs'), path = require('path');
const root = process.argv[2];
const BASE = '/__prefixroute_guide__/';
let files = 0;
(function walk(dir) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) { walk(p); continue; }
    if (!/\.(html|css|js|mjs|json)$/.test(name)) continue;
    const text = fs.readFileSync(p, 'utf8');
    if (!text.includes(BASE)) continue;
    // From this file's folder up to the guide's root.
    const up = path.relative(path.dirname(p), root).split(path.sep).filter(Boolean).join('/');
    fs.writeFileSync(p, text.split(BASE).join(up ? `${up}/` : './'));
    files++;
  }
})(root);
// The playground's server and the file check below must see no trace of the placeholder.
const left = [];
(function check(dir) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) check(p);
    else if (/\.(html|css|js|mjs)$/.test(name) && fs.readFileSync(p, 'utf8').includes(BASE)) left.push(p);
  }
})(root);
if (left.length) { console.error(`build-guide: the placeholder base is left in ${left.join(', ')}`); process.exit(1); }
console.error(`guide: ${files} files made relative`);
JS
