// The module in a real browser, the way the playground uses it: served with
// the page's Content-Security-Policy (no eval: the glue is built with
// DYNAMIC_EXECUTION=0), loaded by URL (no wasmBinary) in a module Web Worker
// and on the main thread. Results (and the timelines) must be the bytes Node computes.
// Skipped when Chromium or playwright-core is not installed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { ROOT, launchChromium, loadModule, serveWithModule } from './helpers.mjs';

const OVERRIDES = JSON.stringify([['workload.requests', '6000'], ['policies', 'round_robin,affinity_balanced']]);

// Every policy's timeline (runScenario's series[i].timeline, typed arrays)
// as one text: what the page's timeline view draws, compared across engines.
function timelineText(series) {
  return JSON.stringify(series.map((x) => [x.policy, Object.entries(x.timeline).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v])]));
}

const PAGES = {
  '/index.html': ['text/html', '<!doctype html><meta charset="utf-8"><title>t</title><script type="module" src="./main.mjs"></script>'],
  '/main.mjs': ['text/javascript', `
    const violations = [];
    document.addEventListener('securitypolicyviolation', (e) => violations.push(e.violatedDirective + ' ' + e.blockedURI));
    const worker = new Worker('./worker.mjs', { type: 'module' });
    const progress = [];
    worker.onmessage = async (e) => {
      if (e.data.progress) { progress.push(e.data.progress); return; }
      if (e.data.error) { window.__done = { worker: e.data, progress, violations }; return; }
      const timer = setTimeout(() => { window.__done = { error: 'main thread: module did not load', violations }; }, 20000);
      const { default: createPrefixroute } = await import('./prefixroute.mjs');
      const pr = await createPrefixroute();
      const mainThread = pr.runScenario('', ${JSON.stringify(OVERRIDES)}, null);
      clearTimeout(timer);
      window.__done = { worker: e.data, progress, mainThread: mainThread.resultsJson, violations };
    };
    worker.onerror = (e) => { window.__done = { error: 'worker error: ' + e.message, violations }; };
    worker.postMessage(${JSON.stringify(OVERRIDES)});
  `],
  '/worker.mjs': ['text/javascript', `
    ${timelineText.toString()}
    // Registered synchronously; the module is awaited inside the handler.
    let modulePromise = null;
    self.onmessage = async (e) => {
      try {
        modulePromise ??= import('./prefixroute.mjs').then((m) => m.default());
        const pr = await modulePromise;
        const run = pr.runScenario('', e.data, (p, done, total) => { self.postMessage({ progress: [p, done, total] }); });
        const cache = new pr.RadixCache(100);
        cache.insert([1, 2, 3]);
        const matched = cache.match(new Uint32Array([1, 2, 9]));
        let misuse = '';
        try { cache.match('nope'); } catch (err) { misuse = err.constructor.name; }
        cache.delete();
        self.postMessage({ ok: run.ok, resultsJson: run.resultsJson, ttft0: run.series[0].ttftMs[0],
                           length: run.series[0].ttftMs.length, matched, misuse, version: pr.version(),
                           timeline: timelineText(run.series) });
      } catch (err) {
        self.postMessage({ error: String(err && err.stack || err) });
      }
    };
  `],
};

let server;
let base;
let browser;
let skip = '';

before(async () => {
  ({ browser, skip = '' } = await launchChromium());
  if (skip) return;
  server = await serveWithModule(PAGES);
  base = server.base;
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('runs under the page CSP in a module worker and on the main thread, same bytes as Node', async (t) => {
  if (skip) {
    t.skip(skip);
    return;
  }
  const page = await browser.newPage();
  const console = [];
  page.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));
  await page.goto(`${base}/index.html`);
  await page.waitForFunction(() => window.__done !== undefined, null, { timeout: 90000 });
  const done = await page.evaluate(() => window.__done);
  await page.close();

  assert.equal(done.error, undefined, `${done.error}\n${console.join('\n')}`);
  assert.deepEqual(done.violations, [], 'CSP violations');
  assert.equal(done.worker.error, undefined, `${done.worker.error}\n${console.join('\n')}`);
  assert.equal(done.worker.ok, true);
  const nodeRun = (await loadModule()).runScenario('', OVERRIDES, null);
  const node = nodeRun.resultsJson;
  assert.equal(done.worker.resultsJson, node, 'worker results differ from Node');
  // The timeline view's series: the same numbers in Chromium's worker as in Node.
  assert.ok(nodeRun.series.every((x) => x.timeline && x.timeline.windows === 64));
  assert.equal(done.worker.timeline, timelineText(nodeRun.series), 'worker timeline differs from Node');
  assert.equal(done.mainThread, node, 'main-thread results differ from Node');
  assert.equal(done.worker.length, 6000);
  assert.equal(done.worker.matched, 2);
  assert.equal(done.worker.misuse, 'TypeError');
  assert.equal(done.worker.version, JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version);
  assert.deepEqual(done.progress.slice(0, 3), [[0, 0, 6000], [0, 4096, 6000], [1, 0, 6000]]);
  assert.ok(!console.some((l) => /Content Security Policy|EvalError|unsafe-eval/i.test(l)), console.join('\n'));
});
