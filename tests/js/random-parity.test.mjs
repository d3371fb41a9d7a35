// Native == wasm on random scenarios: 20 random valid scenarios (the property
// tests' generator, printed by build/native/tests/prefixroute-random-scenarios)
// plus the reference scenario, each run by the native benchmark, by the module
// in Node and by the module in a Chromium Web Worker under the page's CSP. The
// three results JSON texts must be equal byte for byte.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ROOT, launchChromium, loadModule, runNative, runNativeBench, serveWithModule } from './helpers.mjs';

const GENERATOR = path.join(ROOT, 'build/native/tests/prefixroute-random-scenarios');
const kCount = 20;
const kSeed = 20261129;

const scenarios = [
  { name: 'reference', json: fs.readFileSync(path.join(ROOT, 'scenarios/reference.json'), 'utf8') },
  ...runNative(GENERATOR, [String(kCount), String(kSeed)])
    .trim()
    .split('\n')
    .map((json, i) => ({ name: `random ${i + 1} of ${kCount} (seed ${kSeed})`, json })),
];

// Native results, computed once for the Node and the browser comparisons.
const native = new Map();
const nativeResults = (s) => {
  if (!native.has(s.name)) {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR || '/tmp'), 'prefixroute-rand-'));
    try {
      const file = path.join(dir, 'scenario.json');
      fs.writeFileSync(file, s.json);
      native.set(s.name, runNativeBench(['--scenario', file]).json);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return native.get(s.name);
};

test(`the generator prints ${kCount} distinct valid scenarios`, () => {
  assert.equal(scenarios.length, kCount + 1);
  assert.equal(new Set(scenarios.map((s) => s.json)).size, kCount + 1);
});

describe('Node: runScenario equals prefixroute --scenario byte for byte', () => {
  let pr;
  before(async () => {
    pr = await loadModule();
  });
  for (const s of scenarios) {
    test(s.name, () => {
      const wasm = pr.runScenario(s.json, '', null);
      assert.equal(wasm.ok, true, JSON.stringify(wasm.errors));
      assert.equal(wasm.resultsJson, nativeResults(s), `scenario: ${s.json}`);
    });
  }
});

const PAGES = {
  '/index.html': ['text/html', '<!doctype html><meta charset="utf-8"><title>t</title><script type="module" src="./main.mjs"></script>'],
  '/main.mjs': ['text/javascript', `
    const worker = new Worker('./worker.mjs', { type: 'module' });
    worker.onmessage = (e) => { window.__done = e.data; };
    worker.onerror = (e) => { window.__done = { error: 'worker error: ' + e.message }; };
    window.__run = (docs) => worker.postMessage(docs);
  `],
  '/worker.mjs': ['text/javascript', `
    self.onmessage = async (e) => {
      try {
        const { default: createPrefixroute } = await import('./prefixroute.mjs');
        const pr = await createPrefixroute();
        const results = e.data.map((doc) => {
          const run = pr.runScenario(doc, '', null);
          return run.ok ? run.resultsJson : 'refused: ' + JSON.stringify(run.errors);
        });
        self.postMessage({ results });
      } catch (err) {
        self.postMessage({ error: String(err && err.stack || err) });
      }
    };
  `],
};

describe('Chromium: the module in a Web Worker equals the native benchmark byte for byte', () => {
  let browser;
  let server;
  let skip = '';
  let results;
  before(async () => {
    ({ browser, skip = '' } = await launchChromium());
    if (skip) return;
    server = await serveWithModule(PAGES);
    const page = await browser.newPage();
    const log = [];
    page.on('console', (m) => log.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => log.push(`pageerror: ${e.message}`));
    await page.goto(`${server.base}/index.html`);
    await page.waitForFunction(() => typeof window.__run === 'function');
    await page.evaluate((docs) => window.__run(docs), scenarios.map((s) => s.json));
    await page.waitForFunction(() => window.__done !== undefined, null, { timeout: 180000 });
    const done = await page.evaluate(() => window.__done);
    await page.close();
    assert.equal(done.error, undefined, `${done.error}\n${log.join('\n')}`);
    results = done.results;
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });
  scenarios.forEach((s, i) => {
    test(s.name, (t) => {
      if (skip) {
        t.skip(skip);
        return;
      }
      assert.equal(results[i], nativeResults(s), `scenario: ${s.json}`);
    });
  });
});
