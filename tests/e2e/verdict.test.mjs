// End-to-end tests of the verdict line and the recommended badge in Debian's
// Chromium (playwright-core). Each case opens a page, runs the same scenario
// with `prefixroute --json`, and recomputes from the command line's rows,
// with the rules restated here (web/src/results/baseline-gain.ts, piling.ts,
// recommendation.ts): the winner on p99 TTFT and its gain over round robin in
// words, the warning for a winner that piles onto few replicas, and whether
// the badge stands (with the grid's worst-case regret beside it) or is
// withheld with the better policy named. Run by scripts/test-e2e.sh (after the
// builds), or alone: node --test tests/e2e/verdict.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, SHOTS, benchOutput, openIn, startSession } from './harness.mjs';
import { recommendation } from '../../scripts/grid_regret.mjs';

const GRID = recommendation(JSON.parse(readFileSync(join(ROOT, 'docs/grid.json'), 'utf8')));

// The table's rounding (web/src/ui/format.ts), restated as in playground.test.mjs.
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ms = (v) => (Math.abs(v) >= 100 ? grouped.format(Math.round(v)) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const pct = (share) => {
  const p = Math.round(share * 100);
  return p < 1 ? (share > 0 ? '<1%' : '0%') : `${p}%`;
};

let session;

/** The verdict's parts as the page shows them: kind (class) and text. */
function verdictParts(page) {
  return page.$$eval('#verdict > span', (spans) => spans.map((s) => ({ kind: s.className, text: s.textContent.trim() })).filter((p) => p.text !== ''));
}

/** The page's rows in order (policy ids), once the table is drawn. */
function tablePolicies(page) {
  return page.$$eval('#results-table tbody tr', (rows) => rows.map((r) => r.dataset.policy));
}

/** The lowest p99 row of the command line's results (the first of equals, as the page's bestIndex). */
function p99Winner(doc) {
  return doc.results.reduce((a, b) => (b.p99_ttft_ms < a.p99_ttft_ms ? b : a));
}

/** The gain sentence the page must show for these command-line results (one seed: no intervals). */
function expectedGain(doc) {
  const w = p99Winner(doc);
  const rr = doc.results.find((r) => r.policy === 'round_robin');
  const ratio = rr.p99_ttft_ms / w.p99_ttft_ms;
  const words = ratio >= 2 ? `${ratio.toFixed(1)}x lower` : `${pct((rr.p99_ttft_ms - w.p99_ttft_ms) / rr.p99_ttft_ms)} lower`;
  return `${w.label} has ${words} p99 TTFT than ${rr.label} (${ms(w.p99_ttft_ms)} ms vs ${ms(rr.p99_ttft_ms)} ms).`;
}

/** One seed: the policy clearly better than the recommended one (p99 at least 10 % lower, the lowest such), or null. */
function clearlyBetter(doc) {
  const rec = doc.results.find((r) => r.policy === doc.recommended);
  const better = doc.results.filter((r) => r !== rec && (rec.p99_ttft_ms - r.p99_ttft_ms) / rec.p99_ttft_ms >= 0.1);
  return better.length ? better.reduce((a, b) => (b.p99_ttft_ms < a.p99_ttft_ms ? b : a)) : null;
}

/** Checks the page's verdict and badge against the command line's results `doc` (one seed). */
async function assertVerdict(page, doc) {
  const parts = await verdictParts(page);
  const gain = parts.find((p) => p.kind === 'verdict-gain');
  assert.equal(gain?.text, expectedGain(doc), JSON.stringify(parts));
  const w = p99Winner(doc);
  const p99Part = parts.find((p) => p.kind === 'verdict-part');
  assert.ok(p99Part.text.startsWith(`Lowest p99 TTFT: ${w.label} (${ms(w.p99_ttft_ms)} ms)`), p99Part.text);

  // A winner piling onto few replicas is called out with its imbalance, of at most the replica count.
  const piling = parts.find((p) => p.kind === 'verdict-piling');
  if (w.imbalance > 2) {
    assert.ok(piling, `the winner's imbalance is ${w.imbalance}: ${JSON.stringify(parts)}`);
    assert.ok(piling.text.includes(w.label), piling.text);
    assert.match(piling.text, new RegExp(`imbalance (.* and )?${w.imbalance.toFixed(2).replace('.', '\\.')}`));
    assert.match(piling.text, new RegExp(`of at most ${w.replicas.length} `));
  }
  // Every policy the warning names piles (imbalance above 2) in the command line's rows.
  if (piling) {
    for (const r of doc.results) {
      if (piling.text.includes(`${r.label} `) || piling.text.includes(`${r.label},`)) assert.ok(r.imbalance > 2, `${r.label} named with imbalance ${r.imbalance}`);
    }
  }

  // The badge: kept with the grid's worst-case regret beside it, or withheld with the better policy named.
  const better = clearlyBetter(doc);
  const tags = await page.$$eval('#results-table .recommended-tag', (t) => t.map((x) => [x.closest('tr').dataset.policy, x.closest('th').querySelector('.recommended-regret')?.textContent ?? '']));
  const withheld = parts.find((p) => p.kind === 'verdict-recommendation');
  if (better) {
    assert.deepEqual(tags, [], 'no badge where another policy is clearly better');
    const rec = doc.results.find((r) => r.policy === doc.recommended);
    assert.equal(withheld?.text.trim(), `No badge: ${better.label} beats the recommended ${rec.label} here.`);
    // The figures and the rule, below the table.
    const notes = await page.textContent('#table-notes');
    assert.ok(notes.includes(`On this scenario ${better.label} is clearly better than the recommended ${rec.label}: p99 TTFT ${ms(better.p99_ttft_ms)} ms vs ${ms(rec.p99_ttft_ms)} ms`), notes);
  } else {
    assert.equal(withheld, undefined);
    assert.equal(tags.length, 1);
    assert.equal(tags[0][0], doc.recommended);
    assert.equal(tags[0][0], GRID.policy);
    assert.equal(tags[0][1], `worst case +${(GRID.p99_ttft_ms.worst * 100).toFixed(1)}% p99 over the grid`);
  }
  return { better, piling };
}

/** A policies list with the grid's recommended policy added when absent. */
const withRecommended = (list) => (list.split(',').includes(GRID.policy) ? list : `${list},${GRID.policy}`);

before(async () => {
  session = await startSession({ mount: '/v/' });
});

after(async () => {
  await session?.close();
});

describe('verdict', () => {
  test('the reference scenario as the page opens: the winner and its gain over round robin equal the command line’s', async () => {
    const { page, problems } = await openIn(session.context, session.server.url);
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    const policies = await tablePolicies(page);
    assert.ok(policies.includes('round_robin'), policies.join(','));
    const doc = JSON.parse(benchOutput(session.bench, [], [['policies', policies.join(',')], ['replicates', '1']]));
    await assertVerdict(page, doc);
    await page.locator('#results .panel').first().screenshot({ path: join(SHOTS, 'verdict-reference.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('where another policy is clearly better than the recommended one, the badge is withheld and that policy named', async () => {
    // The recommended policy (the grid's) is among them, so the badge has a row to sit on or to leave.
    const sets = [['workload.arrival_rate_per_s', '315.228'], ['policies', withRecommended('round_robin,least_loaded,affinity,affinity_balanced,expected_ttft,dynamo_kv')]];
    const doc = JSON.parse(benchOutput(session.bench, [], sets));
    assert.ok(clearlyBetter(doc), 'the command line shows a policy clearly better than the recommended one here');
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&${sets.map(([k, v]) => `${k}=${v}`).join('&')}`);
    await page.waitForFunction((n) => document.querySelectorAll('#results-table tbody tr').length === n, doc.results.length);
    const { better } = await assertVerdict(page, doc);
    assert.ok(better);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('where no policy is clearly better than the recommended one (the grid’s 10 % load cell), the badge stands with its worst-case regret', async () => {
    const sets = [['workload.arrival_rate_per_s', '42.030'], ['policies', withRecommended('round_robin,least_loaded,affinity,affinity_balanced,expected_ttft')]];
    const doc = JSON.parse(benchOutput(session.bench, [], sets));
    assert.equal(clearlyBetter(doc), null, 'the command line shows no policy clearly better than the recommended one here');
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&${sets.map(([k, v]) => `${k}=${v}`).join('&')}`);
    await page.waitForFunction((n) => document.querySelectorAll('#results-table tbody tr').length === n, doc.results.length);
    const { better } = await assertVerdict(page, doc);
    assert.equal(better, null);
    await page.locator('#results .panel').first().screenshot({ path: join(SHOTS, 'verdict-badge.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a winner that piles onto few replicas (the grid’s 8-replica cell): the verdict says so, with its imbalance', async () => {
    const sets = [['cluster.replicas', '8'], ['workload.tenants', '24'], ['workload.arrival_rate_per_s', '200'], ['workload.requests', '4000'],
      ['policies', withRecommended('round_robin,least_loaded,affinity,affinity_balanced,expected_ttft')]];
    const doc = JSON.parse(benchOutput(session.bench, [], sets));
    assert.ok(p99Winner(doc).imbalance > 2, `the winner piles: imbalance ${p99Winner(doc).imbalance}`);
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&${sets.map(([k, v]) => `${k}=${v}`).join('&')}`);
    await page.waitForFunction((n) => document.querySelectorAll('#results-table tbody tr').length === n, doc.results.length);
    const { piling } = await assertVerdict(page, doc);
    assert.ok(piling);
    await page.locator('#results .panel').first().screenshot({ path: join(SHOTS, 'verdict-piling.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });
});
