// The page's pool of workers in Chromium: how long a re-run takes with one
// simulation worker and with N (web/src/worker/worker-pool.ts), side by side, for
// the default scenario, for the ten original policies, and for those on five
// times the default requests (docs/performance.md, "The page: every core").
//
//   node bench/page_pool.mjs [--runs R] [--workers 1,2] [--dist DIR]     (after `npm run build`)
//
// Opens one page per (worker count, scenario), each told it runs on a
// machine of that many logical cores (navigator.hardwareConcurrency, which
// sizes the pool), waits for its first result, then re-runs every page R
// times, interleaved round by round (page 1, page 2, ..., then again), so
// the machine's load falls on every configuration alike. A re-run is the
// time from the run's start mark to its result mark (the pool's plan, its
// shards and their merge, or the single worker's run, plus messaging),
// committing the seed field (42 -> 43 -> 42 ...: the same work each time).
// Prints medians and the speed-up as a markdown table, with the load.
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { commitAndWaitScript, launchChromium } from '../tests/e2e/harness.mjs';
import { serveStatic } from '../tests/e2e/server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const runs = Number(option('--runs', '11'));
const workerCounts = option('--workers', `1,${cpus().length}`).split(',').map(Number);
const dist = path.resolve(root, option('--dist', 'web/dist'));

const TEN = 'round_robin,least_loaded,affinity,affinity_balanced,expected_ttft,dynamo_kv,llmd_epp,chwbl,sglang_cache_aware,preble_e2';
const SCENARIOS = [
  { name: 'default scenario', query: '?v=1' },
  { name: 'ten policies', query: `?v=1&policies=${TEN}` },
  { name: 'ten policies, 20,000 requests', query: `?v=1&policies=${TEN}&workload.requests=20000` },
];

const loadBefore = loadavg();
const server = await serveStatic(dist, '/');
const browser = await launchChromium();
try {
  const pages = [];
  for (const scenario of SCENARIOS) {
    for (const workers of workerCounts) {
      const page = await browser.newPage();
      await page.addInitScript(commitAndWaitScript);
      await page.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), workers);
      await page.goto(`${server.url}${scenario.query}`);
      await page.waitForFunction(() => Number(document.querySelector('#status')?.dataset.runs ?? '0') >= 1, null, { timeout: 120_000 });
      const rows = await page.$$eval('#results-table tbody tr', (trs) => trs.length);
      pages.push({ page, scenario, workers, rows, samples: [] });
    }
  }
  // Let the first runs' charts draw and the Sweep panel load before timing.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  for (let round = 0; round < runs; round++) {
    for (const p of pages) {
      p.samples.push(await p.page.evaluate(async (seed) => {
        await window.__commitAndWait('#field-seed', seed);
        const last = (name) => performance.getEntriesByName(name).at(-1).startTime;
        return last('prefixroute:result') - last('prefixroute:run-start');
      }, round % 2 === 0 ? 43 : 42));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`\n### The page in Chromium: re-runs with 1 and N workers (${runs} re-runs each, interleaved)\n`);
  console.log('| Scenario | Workers | Policies | Median re-run | Fastest | Speed-up against 1 worker |');
  console.log('|---|---|---|---|---|---|');
  for (const scenario of SCENARIOS) {
    const mine = pages.filter((p) => p.scenario === scenario);
    const one = median(mine.find((p) => p.workers === 1)?.samples ?? [NaN]);
    for (const p of mine) {
      const m = median(p.samples);
      console.log(`| ${scenario.name} | ${p.workers} | ${p.rows} | ${m.toFixed(1)} ms | ${Math.min(...p.samples).toFixed(1)} ms | ${(one / m).toFixed(2)}x |`);
    }
  }
  const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
  console.log(`\n- Load: ${load(loadBefore)} before, ${load(loadavg())} after, on ${cpus().length} cores; Chromium ${browser.version()}`);
} finally {
  await browser.close();
  await server.close();
}
