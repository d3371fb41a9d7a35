// Page payload: what a visitor downloads, gzip -9 (docs/PERFORMANCE.md).
//
//   node bench/payload.mjs [--module DIR] [--dist DIR]
//
// Counts the wasm module alone (prefixroute.mjs + prefixroute.wasm) and, when
// the page has been built (npm run build -> web/dist), every .js/.mjs/.wasm/
// .css/.html file of the built page. Target: the page under 250 KB gzip.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const moduleDir = path.resolve(root, option('--module', 'build/wasm/wasm'));
const dist = path.resolve(root, option('--dist', 'web/dist'));
const kBudget = 250_000;

const sizes = (file) => {
  const data = fs.readFileSync(file);
  return { raw: data.length, gzip: zlib.gzipSync(data, { level: 9 }).length };
};
const kb = (b) => `${(b / 1000).toFixed(1)} KB`;

console.log('\n### Page payload (gzip -9)\n');
console.log('| What | Files | Raw | gzip | Target (page under 250 KB gzip) |');
console.log('|---|---|---|---|---|');

const moduleFiles = ['prefixroute.mjs', 'prefixroute.wasm'].map((f) => path.join(moduleDir, f));
if (moduleFiles.every((f) => fs.existsSync(f))) {
  let raw = 0, gzip = 0;
  for (const f of moduleFiles) {
    const s = sizes(f);
    raw += s.raw;
    gzip += s.gzip;
  }
  console.log(`| wasm module alone (${path.relative(root, moduleDir)}) | prefixroute.mjs + prefixroute.wasm | ` +
    `${kb(raw)} | ${kb(gzip)} | (part of the page) |`);
} else {
  console.log(`| wasm module alone | not built (bash scripts/build-wasm.sh) | | | |`);
}

if (fs.existsSync(dist)) {
  let raw = 0, gzip = 0, files = 0, wasmGzip = 0, jsGzip = 0;
  (function walk(dir) {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      if (fs.statSync(p).isDirectory()) { walk(p); continue; }
      if (!/\.(js|mjs|wasm|css|html)$/.test(name)) continue;
      // embed.html is index.html under the embed's policy: a visitor loads one of the two.
      if (name === 'embed.html') continue;
      const s = sizes(p);
      raw += s.raw;
      gzip += s.gzip;
      files += 1;
      if (name.endsWith('.wasm')) wasmGzip += s.gzip;
      if (/\.m?js$/.test(name)) jsGzip += s.gzip;
    }
  })(dist);
  console.log(`| whole page (${path.relative(root, dist)}) | ${files} files (JS ${kb(jsGzip)}, wasm ${kb(wasmGzip)} gzip) | ` +
    `${kb(raw)} | ${kb(gzip)} | ${gzip < kBudget ? 'yes' : '**no**'} |`);
} else {
  console.log(`| whole page | not built (npm run build -> web/dist) | | | |`);
}
