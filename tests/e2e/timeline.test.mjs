// End-to-end test of the timeline view in Debian's Chromium (playwright-core):
// after a run the view shows every policy's timeline from the worker's
// result, its routing strip names the groups the native `--timeline`
// document ranks, and switching the policy redraws. Takes the screenshot
// docs/screenshots/timeline.png (harness.mjs docScreenshot says where). Run by
// scripts/test-e2e.sh.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { docScreenshot, openIn, startSession } from './harness.mjs';

let session;
before(async () => {
  session = await startSession();
});
after(async () => {
  await session?.close();
});

function nativeTimeline(sets) {
  const dir = mkdtempSync(join(tmpdir(), 'prefixroute-tl-'));
  try {
    const out = join(dir, 'timeline.json');
    execFileSync(session.bench, [...sets.flatMap(([k, v]) => ['--set', `${k}=${v}`]), '--json', '', '--timeline', out], { stdio: 'ignore' });
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the timeline shows each policy\'s run from the core', async () => {
  const sets = [['workload.requests', '3000']];
  const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=3000`);
  await page.waitForFunction(() => {
    const root = document.querySelector('#timeline');
    return root && !root.hidden && document.querySelector('#timeline .timeline-strip')?.getAttribute('aria-label');
  });
  const native = nativeTimeline(sets);
  const options = await page.$$eval('#timeline select option', (o) => o.map((x) => x.value));
  assert.deepEqual(options, native.policies.map((p) => p.policy));
  for (const [i, policy] of native.policies.entries()) {
    if (i > 0) await page.selectOption('#timeline select', policy.policy);
    const label = await page.getAttribute('#timeline .timeline-strip', 'aria-label');
    assert.match(label, new RegExp(`${policy.group_keys.length} groups lead some window`), label);
    assert.match(label, new RegExp(`group ${policy.group_keys[0]} dominates most`), label);
  }
  // The fifo engine: queue wait and hit rate drawn, batch and KV hidden.
  const shown = await page.$$eval('#timeline figure[data-metric]', (f) => f.filter((x) => !x.hidden).map((x) => x.dataset.metric));
  assert.deepEqual(shown, ['wait', 'hits']);
  // The screenshot shows affinity: one tenant per replica, the hot replica's queue.
  await page.selectOption('#timeline select', options.includes('affinity') ? 'affinity' : options[0]);
  await (await page.$('#timeline')).screenshot({ path: docScreenshot('timeline.png') });
  assert.deepEqual(problems, []);
  await page.close();
});
