// Page payload: what a visitor downloads, gzip -9 (docs/performance.md).
//
//   node bench/payload.mjs [--module DIR] [--dist DIR] [--no-browser]
//
// Counts the wasm module alone (prefixroute.mjs + prefixroute.wasm) and, when
// the page has been built (npm run build -> web/dist):
//   - first view: the files the default page downloads until its first
//     results table and chart are shown, as Debian's Chromium requests them
//     from a local server (every file the server sends, the workers' and the
//     lazily imported chunks' included), and the files the page then fetches
//     on its own in the next 2 s with no one touching it (idle prefetches),
//     unless --no-browser;
//   - whole page: every .js/.mjs/.wasm/.css/.html file of the built page
//     (what a visitor who opens every panel can download).
// Target: the page under 250 KB gzip; the table says which of the two is.
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
const useBrowser = !args.includes('--no-browser');
const kBudget = 250_000;

const sizes = (file) => {
  const data = fs.readFileSync(file);
  return { raw: data.length, gzip: zlib.gzipSync(data, { level: 9 }).length };
};
const kb = (b) => `${(b / 1000).toFixed(1)} KB`;
const verdict = (gzip) => (gzip < kBudget ? 'yes' : '**no**');

/** Totals of `files` (absolute paths): raw, gzip, and the gzip of the JS and the wasm among them. */
function totals(files) {
  const t = { files: files.length, raw: 0, gzip: 0, js: 0, wasm: 0 };
  for (const f of files) {
    const s = sizes(f);
    t.raw += s.raw;
    t.gzip += s.gzip;
    if (f.endsWith('.wasm')) t.wasm += s.gzip;
    if (/\.m?js$/.test(f)) t.js += s.gzip;
  }
  return t;
}
const row = (what, t) =>
  `| ${what} | ${t.files} files (JS ${kb(t.js)}, wasm ${kb(t.wasm)} gzip) | ${kb(t.raw)} | ${kb(t.gzip)} | ${verdict(t.gzip)} |`;

/**
 * The files of `dist` Chromium downloads for the default page: { shown, idle }:
 * `shown` until its results table has rows and its first chart has drawn,
 * `idle` all of them 2 s later (what the page fetches on its own after the
 * first result). Served by the end-to-end tests' static server, which reports
 * every file it sends.
 */
async function defaultPageFiles() {
  const { serveStatic } = await import('../tests/e2e/server.mjs');
  const { launchChromium } = await import('../tests/e2e/harness.mjs');
  const served = new Set();
  const server = await serveStatic(dist, '/', (file) => served.add(file));
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(server.url);
    await page.waitForFunction(
      () => document.querySelectorAll('#results-table tbody tr').length > 0 && document.querySelector('#chart-ttft canvas'),
      null,
      { timeout: 120_000, polling: 10 },
    );
    const shown = [...served].sort();
    await page.waitForTimeout(2000);
    return { shown, idle: [...served].sort() };
  } finally {
    await browser.close();
    await server.close();
  }
}

console.log('\n### Page payload (gzip -9)\n');
console.log('| What | Files | Raw | gzip | Under 250 KB gzip |');
console.log('|---|---|---|---|---|');

const moduleFiles = ['prefixroute.mjs', 'prefixroute.wasm'].map((f) => path.join(moduleDir, f));
if (moduleFiles.every((f) => fs.existsSync(f))) {
  const t = totals(moduleFiles);
  console.log(`| wasm module alone (${path.relative(root, moduleDir)}) | prefixroute.mjs + prefixroute.wasm | ` +
    `${kb(t.raw)} | ${kb(t.gzip)} | (part of the page) |`);
} else {
  console.log(`| wasm module alone | not built (bash scripts/build-wasm.sh) | | | |`);
}

if (!fs.existsSync(dist)) {
  console.log(`| whole page | not built (npm run build -> web/dist) | | | |`);
  process.exit(0);
}

const pageFiles = [];
(function walk(dir) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    if (fs.statSync(p).isDirectory()) { walk(p); continue; }
    if (!/\.(js|mjs|wasm|css|html)$/.test(name)) continue;
    // embed.html is index.html under the embed's policy: a visitor loads one of the two.
    if (name === 'embed.html') continue;
    pageFiles.push(p);
  }
})(dist);
pageFiles.sort();

let viewed = null;
if (useBrowser && fs.existsSync('/usr/bin/chromium')) {
  try {
    viewed = await defaultPageFiles();
  } catch (error) {
    console.error(`first view not measured: ${error instanceof Error ? error.message : error}`);
  }
}
const where = path.relative(root, dist);
if (viewed) {
  console.log(row(`first view (${where}, Chromium: until the first table and chart)`, totals(viewed.shown)));
  console.log(row(`default page untouched (${where}, Chromium: 2 s after the first chart)`, totals(viewed.idle)));
} else {
  console.log(`| first view | not measured (needs /usr/bin/chromium; --no-browser skips it) | | | |`);
}
console.log(row(`whole page (${where}, every file)`, totals(pageFiles)));

console.log('\n| File | Raw | gzip | First view | Untouched page |');
console.log('|---|---|---|---|---|');
const mark = (list, f) => (list ? (list.includes(f) ? 'yes' : 'no') : '?');
for (const f of [...new Set([...pageFiles, ...(viewed?.idle ?? [])])].sort()) {
  const s = sizes(f);
  console.log(`| ${path.relative(dist, f)} | ${s.raw} B | ${s.gzip} B | ${mark(viewed?.shown, f)} | ${mark(viewed?.idle, f)} |`);
}
