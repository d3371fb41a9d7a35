// The page in Chromium: how long the default scenario takes to re-run, and
// how long the main thread is ever blocked meanwhile (docs/performance.md:
// the default scenario re-runs in under 100 ms and the main thread is never
// blocked over 50 ms).
//
//   node bench/page_perf.mjs [--runs N] [--dist DIR] [--query '?v=1&replicates=1'] [--each]
//                                (after `npm run build`; --query opens the page with that link
//                                 instead of the default page; --each also prints every re-run on stderr)
//
// Serves the built page (web/dist), opens it in Debian's Chromium, waits for
// the first result, then re-runs the default scenario N times by committing
// the seed field (42 -> 43 -> 42 ...: same size of work each time). For each
// re-run: the time from the run's start mark to its result mark (the worker's
// simulation plus messaging), the worker's own simulation time ("simulated in
// X ms" in the status), the time to draw the table (show-results measure),
// and the longest main-thread task (Long Tasks API, wall clock) until the
// charts are drawn. Prints medians and worst cases as a markdown table, and
// the long tasks of the page load itself (first run and first charts
// included), which happen before any re-run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadavg, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';

import { commitAndWaitScript, launchChromium } from '../tests/e2e/harness.mjs';
import { serveStatic } from '../tests/e2e/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const runs = Number(option('--runs', '20'));
const dist = path.resolve(root, option('--dist', 'web/dist'));
const query = option('--query', '');

/** The renderer main thread's tasks over 50 ms in a Chromium trace: wall, thread CPU, top events. */
function mainThreadLongTasks(trace) {
  const events = trace.traceEvents ?? trace;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return [];
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  return onMain.filter((e) => e.name === 'RunTask' && e.dur > 50_000).map((task) => {
    const parts = new Map();
    for (const e of onMain) {
      if (e === task || e.ts < task.ts || e.ts + e.dur > task.ts + task.dur) continue;
      if (['Layout', 'UpdateLayoutTree', 'v8.evaluateModule', 'EvaluateScript', 'FunctionCall', 'TimerFire',
        'HandlePostMessage', 'Paint', 'ParseHTML', 'MinorGC', 'MajorGC'].includes(e.name))
        parts.set(e.name, (parts.get(e.name) ?? 0) + e.dur / 1000);
    }
    const top = [...parts].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([n, d]) => `${n} ${d.toFixed(0)} ms`).join(', ');
    // The page runs module scripts only (its CSP allows no inline script): a
    // script evaluated on its main thread is Playwright's, e.g. waitForFunction.
    const injected = parts.has('EvaluateScript');
    return { wall: task.dur / 1000, cpu: (task.tdur ?? 0) / 1000, parts: top + (injected ? " (Playwright's script, not the page's)" : ''), injected };
  });
}

const server = await serveStatic(dist, '/');
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  // A timeline trace of the page load: each long main-thread task's wall time
  // against the main thread's own CPU time in it (on 2 cores the worker's
  // wasm compilation and first run compete with the page for the CPUs).
  const tracePath = path.join(os.tmpdir(), `prefixroute-page-load-${process.pid}.json`);
  await browser.startTracing(page, { path: tracePath, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute'] });
  await page.addInitScript(commitAndWaitScript);
  await page.addInitScript(() => {
    window.__longtasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longtasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}${query}`);
  await page.waitForFunction(() => Number(document.querySelector('#status')?.dataset.runs ?? '0') >= 1, null, { timeout: 120_000 });
  // Let the first run's charts draw before re-running, and keep the page
  // load's long tasks apart from the re-runs'.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const loadTasks = await page.evaluate(() => window.__longtasks.map((t) => t.duration));
  await browser.stopTracing();
  const loadProfile = mainThreadLongTasks(JSON.parse(fs.readFileSync(tracePath, 'utf8')));
  fs.rmSync(tracePath, { force: true });
  const samples = await page.evaluate(async (n) => {
    const status = document.querySelector('#status');
    const last = (name) => performance.getEntriesByName(name).at(-1);
    const out = [];
    for (let i = 0; i < n; i++) {
      await window.__commitAndWait('#field-seed', i % 2 === 0 ? 43 : 42);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the charts draw in later tasks
      const start = last('prefixroute:run-start').startTime;
      const result = last('prefixroute:result').startTime;
      const simulated = Number(/simulated in ([\d,]+) ms/.exec(status.textContent)?.[1].replace(/,/g, '') ?? NaN);
      const longest = Math.max(0, ...window.__longtasks.filter((t) => t.start >= start).map((t) => t.duration));
      out.push({ rerun: result - start, simulated, show: last('prefixroute:show-results').duration, longest });
    }
    return out;
  }, runs);
  if (args.includes('--each')) for (const [i, s] of samples.entries()) console.error(i + 1, JSON.stringify(s));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const worst = (xs) => Math.max(...xs);
  const col = (k) => samples.map((s) => s[k]);
  const ms = (v) => `${v.toFixed(1)} ms`;
  console.log(`\n### The page in Chromium: ${query ? `the page at ${query}` : 'default scenario'} re-runs (${runs} re-runs)\n`);
  console.log('| Measure | Median | Worst | Target |');
  console.log('|---|---|---|---|');
  console.log(`| Re-run: run start to result on the main thread | ${ms(median(col('rerun')))} | ${ms(worst(col('rerun')))} | under 100 ms |`);
  console.log(`| of which the worker's simulation (status line) | ${ms(median(col('simulated')))} | ${ms(worst(col('simulated')))} | |`);
  console.log(`| Drawing the table (show-results) | ${ms(median(col('show')))} | ${ms(worst(col('show')))} | |`);
  console.log(`| Longest main-thread task per re-run (wall clock; 0 = none over 50 ms) | ${ms(median(col('longest')))} | ${ms(worst(col('longest')))} | never over 50 ms |`);
  console.log(`| Page load to first charts: longest main-thread task (${loadTasks.length} over 50 ms: ` +
    `${loadTasks.map((d) => d.toFixed(0)).join(', ') || 'none'} ms) | | ${ms(Math.max(0, ...loadTasks))} | (see docs/performance.md) |`);
  console.log('\nPage load, main-thread tasks over 50 ms (timeline trace): wall time, the main thread\'s CPU time in it, and what ran:\n');
  console.log('| Wall | Main-thread CPU | Largest parts (wall) |');
  console.log('|---|---|---|');
  for (const t of loadProfile) console.log(`| ${ms(t.wall)} | ${ms(t.cpu)} | ${t.parts} |`);
  const pageCpu = loadProfile.filter((t) => !t.injected).map((t) => t.cpu);
  console.log(`\nOf these, Playwright's scripts left out: the most main-thread CPU in one task ${ms(Math.max(0, ...pageCpu))}; ` +
    `${pageCpu.filter((c) => c > 50).length} over 50 ms of CPU`);
  console.log(`\n- Load: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores; Chromium ${browser.version()}`);
} finally {
  await browser.close();
  await server.close();
}
