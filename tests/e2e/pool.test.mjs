// The page's pools of workers (web/src/worker/worker-pool.ts) in Debian's Chromium:
// the same page opened as on a 1-core and on a 4-core machine
// (navigator.hardwareConcurrency, set before the page's scripts run) starts
// one and four workers, and exports the same bytes: the results JSON of a
// scenario run and of a replayed trace (the shipped excerpt, read once), and
// the sweep JSON. The single worker's bytes are the command line's (the other
// end-to-end tests), so the pool's are too. Run by scripts/test-e2e.sh.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { commitAndWaitScript, openIn, startSession } from './harness.mjs';

let session;

before(async () => {
  session = await startSession({ acceptDownloads: true });
});

after(async () => {
  await session?.close();
});

// Big enough to be sharded (web/src/worker/shard-count.ts, MIN_SHARDED_WORK): 2,000 requests x 2 seeds x 10 policies.
const TEN = 'round_robin,least_loaded,affinity,affinity_balanced,expected_ttft,dynamo_kv,llmd_epp,chwbl,sglang_cache_aware,preble_e2';
const QUERY = `?v=1&workload.requests=2000&replicates=2&policies=${TEN}&sweep.param=workload.arrival_rate_per_s&sweep.from=50&sweep.to=150&sweep.steps=3`;

async function exported(page, button) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
  return readFileSync(await download.path(), 'utf8');
}

/** The page on a machine of `cores` logical cores: its exports and how many workers it started. */
async function exportsWith(cores) {
  const { page, problems } = await openIn(session.context, 'about:blank');
  await page.addInitScript(commitAndWaitScript);
  await page.addInitScript((n) => Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => n }), cores);
  // Every fetch of the excerpt, to show it is read once however many workers replay it.
  const excerptFetches = [];
  page.on('request', (r) => {
    if (r.url().includes('mooncake-conversation-first-1000')) excerptFetches.push(r.url());
  });
  await page.goto(`${session.server.url}${QUERY}`);
  await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
  await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length > 0);
  const run = await exported(page, '#export-json');
  const sweep = await exported(page, '#sweep-export');
  const workers = page.workers().length;

  await page.click('#trace-excerpt');
  await page.waitForFunction(() => document.querySelector('#status')?.textContent?.startsWith('Replayed mooncake-conversation-first-1000.jsonl'));
  const trace = await exported(page, '#export-json');
  // A changed value replays the trace each worker holds: no second read.
  await page.evaluate(() => window.__commitAndWait('#field-seed', 43));
  assert.match(await page.textContent('#status'), /^Replayed mooncake-conversation-first-1000\.jsonl/);
  assert.deepEqual(problems, []);
  await page.close();
  return { run, sweep, trace, workers, excerptFetches: excerptFetches.length };
}

test('one worker and four export the same results, sweep and replay bytes', async () => {
  const one = await exportsWith(1);
  const four = await exportsWith(4);
  assert.equal(one.workers, 2, 'one worker for runs, one for sweeps');
  assert.equal(four.workers, 8, 'four workers for runs, four for sweeps');
  assert.equal(JSON.parse(four.run).scenario.replicates, 2);
  assert.equal(four.run, one.run, 'the results JSON differs');
  assert.equal(four.sweep, one.sweep, 'the sweep JSON differs');
  assert.equal(JSON.parse(four.trace).scenario.trace.name, 'mooncake-conversation-first-1000.jsonl');
  assert.equal(four.trace, one.trace, 'the replay\'s results JSON differs');
  assert.equal(four.excerptFetches, 1, 'the pool read the excerpt more than once');
});
