// The first view on a mobile-class connection (docs/performance.md): how long
// after navigation the full page and one embed show their results table and
// their charts, against the targets table <= 2.0 s and charts <= 2.5 s, and
// the bytes of every file they download.
//
//   node bench/first_view.mjs [--runs N] [--rtt MS] [--down-kbps KBPS] [--cpu RATE]
//                             [--dist DIR] [--embed QUERY]
//                             (after `npm run build`; defaults: 3 runs, 150 ms,
//                              1600 kbit/s, CPU x4: Lighthouse's mobile setting)
//
// The built page (web/dist) is served by bench/throttled_server.mjs: every
// response starts a round trip after its request (one more for a new
// connection) and all responses share one downlink, gzip as a static host
// sends it. The server throttles, not Chromium, because Chromium's network
// throttling does not reach the page's Web Workers, which fetch the wasm.
// Each load is a new Debian Chromium with an empty profile (cold cache), with
// CPU throttling (CDP Emulation.setCPUThrottlingRate) on the page's main
// thread; Chromium cannot throttle workers ("only supported for pages"), so
// the simulation itself runs at this machine's speed.
//
// Views: the full page at 1280x800, and the embed the page's own snippet
// makes for the default scenario and options (its iframe's src, read from the
// Embed box of an unthrottled load), opened in a 700x900 window (a blog
// column); --embed QUERY opens that query as the embed instead. The times are
// the page's own first-view marks on its status line (data-first-table-ms:
// the results table filled; data-first-chart-ms: every chart of the view
// drawn), in ms since navigation start; medians over the runs.
import path from 'node:path';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { CHROMIUM_FLAGS, launchChromium } from '../tests/e2e/harness.mjs';
import { serveStatic } from '../tests/e2e/server.mjs';
import { serveThrottled } from './throttled_server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const positive = (name, fallback) => {
  const text = option(name, fallback);
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name}: must be a number above 0; got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
};
const runs = Math.round(positive('--runs', '3'));
const rttMs = positive('--rtt', '150');
const downKbps = positive('--down-kbps', '1600');
const cpuRate = positive('--cpu', '4');
const dist = path.resolve(root, option('--dist', 'web/dist'));
const embedOption = option('--embed', null);
const TARGETS = { table: 2000, chart: 2500 };
const TIMEOUT_MS = 180_000;

/** The embed link the page's Embed box gives for the default scenario and options (its iframe's src, relative to the page). */
async function snippetEmbedQuery() {
  const server = await serveStatic(dist, '/');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => document.querySelector('#embed-snippet')?.value.includes('<iframe'), null, { timeout: TIMEOUT_MS });
    const snippet = await page.inputValue('#embed-snippet');
    const src = /<iframe src="([^"]+)"/.exec(snippet)[1].replace(/&amp;/g, '&');
    return src.startsWith(server.url) ? src.slice(server.url.length) : src;
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * One cold load of `query` at `viewport`: { table, chart } (ms since
 * navigation start, the page's marks) and the files sent until both were on
 * screen: [{ file, raw, sent, doneMs }] (doneMs: last byte written, from the
 * page's request).
 */
async function coldLoad(query, viewport) {
  const files = [];
  const server = await serveThrottled(dist, { rttMs, downKbps, onFile: (f) => files.push(f) });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
  try {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuRate });
    await page.goto(`${server.url}${query}`, { waitUntil: 'commit', timeout: TIMEOUT_MS });
    await page.waitForFunction(
      () => {
        const d = document.querySelector('#status')?.dataset;
        return d?.firstTableMs !== undefined && d?.firstChartMs !== undefined;
      },
      null,
      { timeout: TIMEOUT_MS, polling: 250 },
    );
    if (problems.length) throw new Error(`page errors: ${problems.join('; ')}`);
    const marks = await page.evaluate(() => {
      const d = document.querySelector('#status').dataset;
      const mark = (name) => performance.getEntriesByName(name)[0]?.startTime ?? NaN;
      return { table: Number(d.firstTableMs), chart: Number(d.firstChartMs), runStart: mark('prefixroute:run-start'), result: mark('prefixroute:result') };
    });
    // One row per file: a file sent more than once (two workers each fetching the wasm) counts every time.
    const first = Math.min(...files.map((f) => f.startMs));
    const byFile = new Map();
    for (const f of files) {
      const name = path.relative(dist, f.file);
      const row = byFile.get(name) ?? { file: name, raw: f.raw, sent: 0, times: 0, doneMs: 0 };
      row.sent += f.sent;
      row.times += 1;
      row.doneMs = Math.max(row.doneMs, f.doneMs - first);
      byFile.set(name, row);
    }
    return { ...marks, files: [...byFile.values()] };
  } finally {
    await browser.close();
    await server.close();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const bytes = (b) => b.toLocaleString('en-US');
const against = (ms, target) =>
  ms <= target ? `met by ${seconds(target - ms)}` : `**not met**, ${seconds(ms - target)} over`;

const embedQuery = embedOption ?? (await snippetEmbedQuery());
const views = [
  { name: 'Full page', query: '', viewport: { width: 1280, height: 800 } },
  { name: `Embed (\`${embedQuery}\`)`, query: embedQuery, viewport: { width: 700, height: 900 } },
];
for (const view of views) {
  view.loads = [];
  // Alternate nothing: each view's runs back to back, each load its own browser and server.
  for (let i = 0; i < runs; i++) {
    const load = await coldLoad(view.query, view.viewport);
    console.error(`${view.name} run ${i + 1}: run asked at ${load.runStart.toFixed(0)} ms, result at ${load.result.toFixed(0)} ms, ` +
      `table ${load.table} ms, charts ${load.chart} ms, ${load.files.length} files`);
    view.loads.push(load);
  }
}

console.log(`\n### First view: ${rttMs} ms RTT, ${downKbps} kbit/s down (server-side), CPU x${cpuRate} (main thread), cold cache; medians of ${runs}\n`);
console.log('| View | Table shown | Charts drawn | Table target (≤ 2.0 s) | Charts target (≤ 2.5 s) | Runs (table / charts) |');
console.log('|---|---|---|---|---|---|');
for (const v of views) {
  const table = median(v.loads.map((l) => l.table));
  const chart = median(v.loads.map((l) => l.chart));
  const each = v.loads.map((l) => `${seconds(l.table)} / ${seconds(l.chart)}`).join('; ');
  console.log(`| ${v.name} | **${seconds(table)}** | **${seconds(chart)}** | ${against(table, TARGETS.table)} | ${against(chart, TARGETS.chart)} | ${each} |`);
}

// Bytes per file: what each view downloaded until its charts were drawn (the
// same files every run; the time is the median of when its last byte left).
const names = [...new Set(views.flatMap((v) => v.loads.flatMap((l) => l.files.map((f) => f.file)))).values()].sort();
console.log('\n| File | Raw bytes | Bytes sent (gzip) | ' + views.map((v) => `${v.name.split(' (')[0]}: last byte at`).join(' | ') + ' |');
console.log('|---|---|---|' + views.map(() => '---|').join(''));
const totals = views.map(() => ({ raw: 0, sent: 0 }));
for (const name of names) {
  let size = null;
  const cells = views.map((v, i) => {
    const got = v.loads.map((l) => l.files.find((f) => f.file === name)).filter(Boolean);
    if (got.length === 0) return '–';
    size = got[0];
    totals[i].raw += got[0].raw;
    totals[i].sent += got[0].sent;
    return `${median(got.map((f) => f.doneMs)).toFixed(0)} ms${got.length < v.loads.length ? ` (${got.length} of ${v.loads.length} runs)` : ''}`;
  });
  const times = size.times > 1 ? ` (sent ${size.times} times)` : '';
  console.log(`| \`${name}\` | ${bytes(size.raw)} | ${bytes(size.sent)}${times} | ${cells.join(' | ')} |`);
}
for (const [i, v] of views.entries()) {
  const where = views.map((_, j) => (j === i ? 'until its charts' : '')).join(' | ');
  console.log(`| **Total, ${v.name.split(' (')[0].toLowerCase()}** | ${bytes(totals[i].raw)} | **${bytes(totals[i].sent)}** | ${where} |`);
}
console.log(`\n- Load: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores; the workers' simulation is not CPU-throttled (Chromium cannot).`);
