// The page in Chromium replaying a long trace (by default the conversation
// trace repeated 100 times, 1.2 M requests), for the target of
// docs/performance.md: a progress bar, a responsive page and a wasm heap
// under 512 MB.
//
//   node bench/page_long_trace.mjs [--trace FILE] [--dist DIR] [--query '?v=1&...'] [--workers N]
//                                  (after `npm run build`; FILE defaults to
//                                   /tmp/mooncake-x100.jsonl, made by
//                                   `node bench/repeat_trace.mjs TRACE 100 FILE`)
//
// Serves the built page (web/dist), opens it (by default with 8 replicas and
// 1M-token caches, as the conversation trace's preset runs), picks FILE in the
// trace panel and waits for the replay's result. Meanwhile it samples the
// progress line every 250 ms and records every main-thread task over 50 ms
// (Long Tasks API). Prints: wall time to the result, how many distinct
// progress lines were shown and the longest gap between two updates, the
// longest main-thread task, and the wasm heap of the workers after the run
// (wasm memory never shrinks, so this is the largest it grew to; the sum over
// the pool's workers, from the status line's data-wasm-heap-bytes).
import fs from 'node:fs';
import path from 'node:path';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { launchChromium } from '../tests/e2e/harness.mjs';
import { serveStatic } from '../tests/e2e/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const trace = path.resolve(option('--trace', '/tmp/mooncake-x100.jsonl'));
const dist = path.resolve(root, option('--dist', 'web/dist'));
const query = option('--query', '?v=1&cluster.replicas=8&cluster.cache_tokens=1000000&policies=affinity_balanced');
const workers = option('--workers', '');
if (!fs.existsSync(trace)) {
  console.error(`page_long_trace: ${trace} not found; make it with node bench/repeat_trace.mjs TRACE 100 ${trace}`);
  process.exit(2);
}

const server = await serveStatic(dist, '/');
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  page.on('crash', () => console.error('page_long_trace: the page crashed (renderer process gone)'));
  page.on('console', (m) => {
    if (m.type() === 'error') console.error(`page console: ${m.text()}`);
  });
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.addInitScript((n) => {
    window.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
    if (n) Object.defineProperty(navigator, 'hardwareConcurrency', { get: () => Number(n) });
  }, workers);
  await page.goto(`${server.url}${query}`);
  await page.waitForFunction(() => Number(document.querySelector('#status')?.dataset.runs ?? '0') >= 1, null, { timeout: 120_000 });
  const runsBefore = await page.evaluate(() => Number(document.querySelector('#status').dataset.runs));
  const t0 = await page.evaluate(() => performance.now());
  const started = Date.now();
  await page.setInputFiles('#trace-file', trace);
  // Samples the progress line until the replay's result is shown.
  const samples = await page.evaluate(async (before) => {
    const out = [];
    const status = document.querySelector('#status');
    for (;;) {
      const bar = document.querySelector('#progress');
      out.push({ t: performance.now(), text: bar && !bar.hidden ? document.querySelector('#progress-text')?.textContent ?? '' : '' });
      if (Number(status.dataset.runs ?? '0') > before) break;
      if (/^(Error|Cancelled)/.test(status.textContent ?? '')) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return out;
  }, runsBefore);
  const wall = (Date.now() - started) / 1000;
  const outcome = await page.evaluate(() => {
    const status = document.querySelector('#status');
    return {
      status: status.textContent,
      heapBytes: Number(status.dataset.wasmHeapBytes),
      rows: document.querySelectorAll('#results-table tbody tr').length,
    };
  });
  const longTasks = await page.evaluate((from) => window.__longtasks.filter((t) => t.start >= from).map((t) => t.duration), t0);
  const shown = samples.filter((s) => s.text);
  const distinct = new Set(shown.map((s) => s.text)).size;
  let gap = 0;
  for (let i = 1; i < shown.length; i++) if (shown[i].text !== shown[i - 1].text) gap = Math.max(gap, shown[i].t - shown[i - 1].t);
  const mb = (b) => `${(b / 1048576).toFixed(1)} MiB`;
  console.log(`\n### The page replays ${path.basename(trace)} (${mb(fs.statSync(trace).size)})\n`);
  console.log('| Measure | Figure | Target |');
  console.log('|---|---|---|');
  console.log(`| Status after the run | ${outcome.status.replace(/\|/g, '/')} | a result |`);
  console.log(`| Wall time from picking the file to the result | ${wall.toFixed(1)} s | |`);
  console.log(`| Progress: distinct lines shown (sampled every 250 ms) / longest wait for a new one | ${distinct} / ${(gap / 1000).toFixed(1)} s | a progress bar that moves |`);
  console.log(`| Main-thread tasks over 50 ms / longest | ${longTasks.length} / ${Math.max(0, ...longTasks).toFixed(0)} ms | a responsive page |`);
  console.log(`| wasm heap after the run (every worker's, summed) | ${mb(outcome.heapBytes)} | under 512 MB |`);
  console.log(`\nFirst and last progress lines: "${shown[0]?.text ?? ''}" ... "${shown.at(-1)?.text ?? ''}"`);
  console.log(`- Page: ${query}${workers ? ` with hardwareConcurrency ${workers}` : ''}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores; Chromium ${browser.version()}`);
} finally {
  await browser.close();
  await server.close();
}
