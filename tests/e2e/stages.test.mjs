// The benchmark client and its load ladder on the page, in Debian's Chromium:
// the "Load ladder" preset fills the Benchmark client group (its stages as
// text, the link keeps them), runs, and the Load stages section shows, per
// policy and stage, the command line's figures for the same scenario (the
// page's link run through `prefixroute --set ... --json`): the table cell for
// cell, the TTFT chart's points for the statistic picked (p90 by default,
// then p99) and the throughput chart's for the measure picked, against the
// concurrency. The table scrolls inside its box on a phone; a bad ladder
// gets the core's message beside the field; results without stages have no
// section, and the client fields a client kind does not read are greyed out
// with the reason. The published experiments are a group of the preset
// picker, one per claim; a picked one keeps its name after its run even when
// another preset names the same scenario. Run by scripts/test-e2e.sh.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, SHOTS, benchOutput, openIn, startSession } from './harness.mjs';

let session;

before(async () => {
  session = await startSession();
});

after(async () => {
  await session?.close();
});

const runs = (page) => page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));
/** Waits for the run after `count` runs to be shown. */
const nextRun = (page, count) => page.waitForFunction((n) => Number(document.querySelector('#status').dataset.runs ?? '0') > n, count);

/** The page's link as --set pairs (its keys are the command line's). */
function linkSets(url) {
  return [...new URL(url).searchParams].filter(([k]) => k !== 'v');
}

/** A figure as the stage table shows it (web/src/results/stage-table.ts), recomputed from the JSON. */
function shown(col, v) {
  if (v === null) return '—';
  const grouped = (x) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }).format(Math.round(x));
  if (['requests', 'failed', 'input_tokens_per_s', 'output_tokens_per_s'].includes(col)) return grouped(v);
  if (col === 'completed_per_s') return v.toFixed(1);
  if (['mean_kv_use', 'p90_kv_use', 'hit_rate'].includes(col)) return `${(v * 100).toFixed(1)}%`;
  return Math.abs(v) >= 100 ? grouped(v) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** Every chart point as [policy, load, figure] for this stage key, from the command line's JSON. */
function expectedSeries(doc, key) {
  return doc.results.map((r) => ({ policy: r.policy, points: r.stages.map((s) => [s.load, s[key]]) }));
}

const series = (page, id) => page.$eval(`#${id} canvas`, (c) => ({ stat: c.dataset.stat, series: JSON.parse(c.dataset.series ?? '[]'), label: c.getAttribute('aria-label') }));

test('the load-ladder preset: client fields, the stage charts and table equal the command line’s stages', async () => {
  // A small scenario first (quick): an open-loop client without stages.
  const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=300`);
  await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
  // No stages: no section. The Benchmark client group greys out what a poisson client does not read, and says why.
  assert.equal(await page.isVisible('#stages'), false);
  assert.equal(await page.textContent('fieldset.group-client > legend'), 'Benchmark client');
  assert.equal(await page.inputValue('#field-client-kind'), 'poisson');
  assert.equal(await page.isDisabled('#field-client-concurrency'), true);
  assert.match(await page.textContent('#field-client-concurrency-unused'), /closed client/);
  assert.equal(await page.isDisabled('#field-client-stages'), false);
  assert.equal(await page.isDisabled('#field-client-stage_interval_s'), true);
  assert.match(await page.textContent('#field-client-stage_interval_s-unused'), /stages/);

  let count = await runs(page);
  await page.selectOption('#preset', 'load-ladder', { timeout: 10_000 });
  await nextRun(page, count);
  await page.waitForFunction(() => !document.querySelector('#stages').hidden && document.querySelectorAll('#stage-table tbody tr').length > 0);
  // The chart's points are drawn in the tasks after the table: wait for them too.
  await page.waitForFunction(() => document.querySelector('#chart-stage-throughput canvas')?.dataset.series);

  // The preset picker names the preset; the Benchmark client group shows its client; the link carries it.
  assert.equal(await page.inputValue('#preset'), 'load-ladder');
  assert.equal(await page.inputValue('#field-client-kind'), 'closed');
  assert.equal(await page.inputValue('#field-client-stages'), '1x10,2x10,4x10,8x10,16x10,32x10');
  assert.equal(await page.inputValue('#field-client-warmup'), '4x5');
  assert.equal(await page.isDisabled('#field-client-concurrency'), false, 'a closed client reads its concurrency');
  assert.equal(await page.isHidden('#field-client-concurrency-unused'), true);
  const url = page.url();
  assert.match(url, /[?&]client\.kind=closed(&|$)/);
  assert.match(url, /[?&]client\.stages=1x10,2x10,4x10,8x10,16x10,32x10(&|$)/);

  // The same scenario on the command line.
  const doc = JSON.parse(benchOutput(session.bench, [], linkSets(url)));
  assert.ok(doc.results.length >= 4, `${doc.results.length} policies`);
  for (const r of doc.results) assert.deepEqual(r.stages.map((s) => s.load), [1, 2, 4, 8, 16, 32], r.policy);

  // The table: a row per policy and stage, each cell the JSON's value (data-value) shown as the page formats it.
  const table = await page.$$eval('#stage-table tbody tr', (trs) => trs.map((tr) => ({
    policy: tr.dataset.policy,
    stage: Number(tr.dataset.stage),
    cells: [...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.dataset.value, td.textContent]),
  })));
  const expectedRows = doc.results.flatMap((r) => r.stages.map((s, i) => ({ policy: r.policy, stage: i + 1, s })));
  assert.deepEqual(table.map((r) => `${r.policy}:${r.stage}`), expectedRows.map((r) => `${r.policy}:${r.stage}`));
  table.forEach((row, i) => {
    const s = expectedRows[i].s;
    for (const [col, value, text] of row.cells) {
      const want = s[col];
      assert.ok(want !== undefined, `column ${col} is a stage figure of the JSON`);
      assert.equal(value, want === null ? 'null' : String(want), `${row.policy} stage ${row.stage} ${col}`);
      if (col !== 'load') assert.equal(text, shown(col, want), `${row.policy} stage ${row.stage} ${col} as shown`);
    }
  });
  assert.deepEqual(table[0].cells.map(([col]) => col).slice(0, 1), ['load']);
  assert.match(await page.textContent('#stage-table thead th[data-col="load"]'), /Concurrency/);

  // The charts: p90 TTFT and completed requests/s by default, against the concurrency, one line per policy.
  let ttft = await series(page, 'chart-stage-ttft');
  assert.equal(ttft.stat, 'p90');
  assert.deepEqual(ttft.series, expectedSeries(doc, 'p90_ttft_ms'));
  assert.match(ttft.label, /concurrency/);
  const throughput = await series(page, 'chart-stage-throughput');
  assert.equal(throughput.stat, 'requests');
  assert.deepEqual(throughput.series, expectedSeries(doc, 'completed_per_s'));
  await page.selectOption('#stage-ttft-stat', 'p99');
  ttft = await series(page, 'chart-stage-ttft');
  assert.equal(ttft.stat, 'p99');
  assert.deepEqual(ttft.series, expectedSeries(doc, 'p99_ttft_ms'));
  await page.selectOption('#stage-throughput-stat', 'output');
  assert.deepEqual((await series(page, 'chart-stage-throughput')).series, expectedSeries(doc, 'output_tokens_per_s'));
  await page.locator('#stages').screenshot({ path: join(SHOTS, 'stages-1280.png') });

  // On a phone the table scrolls inside its box; the page does not scroll sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  const wrap = await page.$eval('#stages .table-wrap', (w) => ({ scroll: w.scrollWidth, client: w.clientWidth, role: w.getAttribute('role'), tab: w.tabIndex }));
  assert.ok(wrap.scroll > wrap.client, `the stage table is wider than its box on a phone (${wrap.scroll} vs ${wrap.client})`);
  assert.equal(wrap.role, 'region');
  assert.equal(wrap.tab, 0);
  // The charts take the new width on their resize observer's next frame (the
  // page is 873 px wide for that moment after a jump from 1280 px): wait for
  // the layout to settle, and fail if it never fits.
  await page
    .waitForFunction(() => document.documentElement.scrollWidth <= window.innerWidth, null, { timeout: 10_000 })
    .catch(() => assert.fail('the page scrolls sideways'));
  await page.locator('#stages').screenshot({ path: join(SHOTS, 'stages-390.png') });
  await page.setViewportSize({ width: 1280, height: 900 });

  // A bad ladder: the core's message beside the field, naming what it expects; the typed text stays to be fixed.
  count = await runs(page);
  await page.fill('#field-client-stages', '4x');
  await page.locator('#field-client-stages').press('Enter');
  await nextRun(page, count);
  await page.waitForFunction(() => !document.querySelector('#field-client-stages-error').hidden);
  assert.equal(await page.inputValue('#field-client-stages'), '4x');
  const error = await page.textContent('#field-client-stages-error');
  assert.match(error, /4x/);
  assert.match(error, /CONCURRENCYxSECONDS/);
  assert.equal(await page.getAttribute('#field-client-stages', 'aria-invalid'), 'true');

  assert.deepEqual(problems, []);
  await page.close();
});

test('the published experiments: a group of the preset picker, one per claim; a picked one runs and keeps its name', async () => {
  const claims = JSON.parse(readFileSync(join(ROOT, 'scenarios/published/claims.json'), 'utf8')).claims;
  const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=300`);
  await page.waitForFunction(() => Number(document.querySelector('#status').dataset.runs ?? '0') > 0);
  const group = await page.$eval('#preset optgroup', (g) => ({ label: g.label, options: [...g.querySelectorAll('option')].map((o) => [o.value, o.textContent]) }));
  assert.equal(group.label, 'Published experiments');
  assert.deepEqual(group.options, claims.map((c) => [`published-${c.id}`, `${c.id}: ${c.title}`]));
  // C7-b2b-saas reruns C5's setting for another claim (a few seconds): picked, it keeps its own name after the run.
  const count = await runs(page);
  await page.selectOption('#preset', 'published-C7-b2b-saas');
  await nextRun(page, count);
  assert.equal(await page.inputValue('#preset'), 'published-C7-b2b-saas');
  assert.match(await page.textContent('#preset-help'), /^C7/);
  await page.waitForSelector('#stages', { state: 'visible' });
  assert.deepEqual(problems, []);
  await page.close();
});
