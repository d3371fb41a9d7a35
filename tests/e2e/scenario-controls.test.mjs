// End-to-end tests of the Scenario panel's deployment and workload pickers,
// the trace slicing fields and the layout, in Debian's Chromium: the results
// table's top is on the first screen of a 390 px phone and a 1280 px desktop
// (and stays there while a control far down the form is edited); picking a
// model shows the core's "what this means" line and, with the batched engine
// it brings, the TPOT columns; a model brings the core's smallest TP that
// holds it (prefixroute --smallest-tp), each choice with its reason, and a
// value the reader or the link set stays or changes only with a note beside
// it; the workload kind shows only its fields; a replay sliced
// to its first requests gives prefixroute's numbers for the same
// slice (a window of its clock, a request limit, a time scale), and the
// drop zone names the format the core read.
// Run: bash scripts/test-e2e.sh (builds first).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, SHOTS, benchOutput, openIn, startSession } from './harness.mjs';

const EXCERPT = join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');
/** The excerpt preset's cluster (web/src/trace/replay-cluster.ts, EXCERPT_PRESET). */
const EXCERPT_SETS = [['cluster.replicas', '8'], ['cluster.cache_tokens', '1000000']];

let session;

const rows = (page) => page.$$eval('#results-table tbody tr', (trs) => trs.length);
const tableTop = (page) => page.$eval('#results-table', (t) => t.getBoundingClientRect().top);
const runs = (page) => page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));
/** Waits for the run after `count` runs to be shown. */
const nextRun = (page, count) => page.waitForFunction((n) => Number(document.querySelector('#status').dataset.runs ?? '0') > n, count);

describe('scenario controls and layout', () => {
  before(async () => {
    session = await startSession();
  });
  after(async () => {
    await session?.close();
  });

  test('the results table starts on the first screen of a phone (390 px), after a one-line intro', async () => {
    const { page, problems } = await openIn(session.context, session.server.url, { width: 390, height: 844 });
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    const top = await tableTop(page);
    assert.ok(top > 0 && top < 844 * 0.6, `table top at ${top} px`);
    const introLines = await page.$eval('.intro p', (p) => Math.round(p.getBoundingClientRect().height / parseFloat(getComputedStyle(p).lineHeight)));
    assert.equal(introLines, 1);
    // The controls follow the results, one tap away.
    assert.ok(await page.$eval('.controls-panel', (a) => a.getBoundingClientRect().top) > top);
    assert.ok(await page.isVisible('.jump-controls'));
    await page.screenshot({ path: join(SHOTS, 'layout-390.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('on a desktop (1280 px) the table stays on screen while a control far down the form is edited', async () => {
    const { page, problems } = await openIn(session.context, session.server.url, { width: 1280, height: 900 });
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    assert.ok((await tableTop(page)) < 900 / 2);
    const before = await runs(page);
    await page.fill('#field-seed', '7'); // the last field of the form
    await nextRun(page, before);
    const top = await tableTop(page);
    assert.ok(top > 0 && top < 900 - 100, `table top at ${top} px while editing the seed`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an edit runs once: the Enter that commits a value already run (its typing was) runs nothing more', async () => {
    const { page, problems } = await openIn(session.context, session.server.url, { width: 1280, height: 900 });
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    const before = await runs(page);
    await page.fill('#field-seed', '9');
    await nextRun(page, before); // the typing's own run (debounced), shown
    await page.press('#field-seed', 'Enter');
    // Longer than the typing's debounce (350 ms): a second run would have started by now.
    await page.waitForTimeout(1000);
    assert.equal(await runs(page), before + 1, 'the Enter re-ran the scenario already on screen');
    assert.equal(await page.$eval('#status', (s) => s.textContent.startsWith('Running')), false);
    // A new value still runs on Enter.
    await page.fill('#field-seed', '10');
    await page.press('#field-seed', 'Enter');
    await nextRun(page, before + 1);
    assert.equal(await page.inputValue('#field-seed'), '10');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('model, GPU and the batched engine: the “what this means” line, derived fields and TPOT columns', async () => {
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=300&workload.output_tokens_max=40`);
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    assert.match(await page.textContent('#deployment-line'), /^No model chosen/);
    let count = await runs(page);
    await page.selectOption('#field-hardware-model', 'llama-3.1-8b');
    await nextRun(page, count);
    const line = await page.textContent('#deployment-line');
    assert.match(line, /^Llama-3\.1-8B on 1 × H100.*: [\d,]+ cache tokens per replica \(derived\), prefill [\d,]+ tokens\/s \(derived\), 128 KiB of KV per token\.$/);
    assert.match(await page.getAttribute('#field-cluster-cache_tokens', 'placeholder'), /\(derived\)$/);
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '');
    assert.ok(page.url().includes('hardware.model=llama-3.1-8b') && !page.url().includes('cache_tokens'), page.url());
    // The model brought the batched engine (it decodes): the TPOT columns.
    assert.equal(await page.inputValue('#field-cluster-engine'), 'batched');
    const headers = await page.$$eval('#results-table thead th', (ths) => ths.map((th) => th.dataset.col ?? ''));
    assert.ok(headers.includes('mean_tpot_ms') && headers.includes('output_tokens_per_s'), headers.join(' '));
    // A raw value typed beside the model is the one in force.
    count = await runs(page);
    await page.fill('#field-cluster-cache_tokens', '50000');
    await page.press('#field-cluster-cache_tokens', 'Enter');
    await nextRun(page, count);
    assert.match(await page.textContent('#deployment-line'), /50,000 cache tokens per replica \(given; derived would be [\d,]+\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('picking a model picks the core’s smallest TP and the batched engine, each with its reason; the reader’s values are never overwritten silently', async () => {
    // The core's choice, asked of the command line (the scenario's own TP 1 is the refused one).
    const choice = (sets) => JSON.parse(execFileSync(session.bench, ['--smallest-tp', ...sets.flatMap((s) => ['--set', s])], { encoding: 'utf8' }));
    const seventy = choice(['hardware.model=llama-3.1-70b']);
    assert.equal(seventy.tp, 4);
    assert.match(seventy.reason, /^TP 4: the smallest that holds Llama-3\.1-70B's 141\.11 GB of weights with room for KV on H100-SXM 80GB/);
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=300&workload.output_tokens_max=40&policies=round_robin,affinity_balanced`);
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    let count = await runs(page);
    await page.selectOption('#field-hardware-model', 'llama-3.1-70b');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-hardware-model'), 'llama-3.1-70b', 'the model stays');
    assert.ok(await page.isHidden('#field-hardware-model-error'), 'no refusal beside the model');
    assert.equal(await page.inputValue('#field-hardware-tp'), String(seventy.tp));
    assert.equal(await page.inputValue('#field-cluster-engine'), 'batched');
    assert.equal(await page.textContent('#field-hardware-tp-reason'), seventy.reason);
    assert.equal(await page.textContent('#field-cluster-engine-reason'), 'Engine: batched, so TPOT and throughput are modelled (a model decodes; fifo ends each request at its first token).');
    const headers = await page.$$eval('#results-table thead th', (ths) => ths.map((th) => th.dataset.col ?? ''));
    assert.ok(headers.includes('mean_tpot_ms') && headers.includes('output_tokens_per_s'), headers.join(' '));
    // The numbers are the command line's for the scenario the link names.
    const sets = [...new URL(page.url()).searchParams].filter(([k]) => k !== 'v');
    const native = JSON.parse(benchOutput(session.bench, [], sets));
    const tpot = await page.$$eval('#results-table tbody td[data-col="mean_tpot_ms"]', (tds) => tds.map((td) => Number(td.dataset.value)));
    assert.deepEqual(tpot, native.results.map((r) => r.mean_tpot_ms));
    // Another GPU: the page asks the core again for the TP it set (H200: 2).
    count = await runs(page);
    await page.selectOption('#field-hardware-gpu', 'h200');
    await nextRun(page, count);
    const onH200 = choice(['hardware.model=llama-3.1-70b', 'hardware.gpu=h200']);
    assert.equal(await page.inputValue('#field-hardware-tp'), String(onH200.tp));
    assert.equal(await page.textContent('#field-hardware-tp-reason'), onH200.reason);
    // The reader sets TP 8 and fifo: theirs, the page's reasons go.
    count = await runs(page);
    await page.fill('#field-hardware-tp', '8');
    await page.press('#field-hardware-tp', 'Enter');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-hardware-tp'), '8');
    assert.ok(await page.isHidden('#field-hardware-tp-reason'));
    count = await runs(page);
    await page.selectOption('#field-cluster-engine', 'fifo');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-cluster-engine'), 'fifo');
    assert.ok(await page.isHidden('#field-cluster-engine-reason'));
    // Back on H100, and another model: the reader's TP 8 and fifo stay, each with a note.
    count = await runs(page);
    await page.selectOption('#field-hardware-gpu', 'h100');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-hardware-tp'), '8');
    count = await runs(page);
    await page.selectOption('#field-hardware-model', 'llama-3.1-8b');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-hardware-tp'), '8');
    assert.equal(await page.inputValue('#field-cluster-engine'), 'fifo');
    assert.match(await page.textContent('#field-hardware-tp-reason'), /^Kept at 8, as set\. The page would choose TP 1: the smallest that holds Llama-3\.1-8B's/);
    assert.match(await page.textContent('#field-cluster-engine-reason'), /^Kept at fifo, as set: TPOT and throughput are not modelled/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a TP the link sets is the link’s: a model picked that cannot use it changes it, saying so', async () => {
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=300&hardware.gpu=a100-40gb&hardware.tp=2&policies=round_robin`);
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    let count = await runs(page);
    await page.selectOption('#field-hardware-model', 'qwen2.5-7b');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-hardware-tp'), '2', 'the link’s TP 2 holds a 7B model: kept');
    assert.match(await page.textContent('#field-hardware-tp-reason'), /^Kept at 2, as set\. The page would choose TP 1: /);
    count = await runs(page);
    await page.selectOption('#field-hardware-model', 'llama-3.1-70b');
    await nextRun(page, count);
    // Llama-3.1-70B's 141 GB need 8 A100s of 40 GB.
    assert.equal(await page.inputValue('#field-hardware-tp'), '8');
    assert.match(await page.textContent('#field-hardware-tp-reason'), /^Changed from 2, which was set: the weights do not fit at TP 2\. TP 8: /);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the workload kind shows its own fields; the gsp preset runs the gsp kind', async () => {
    const { page, problems } = await openIn(session.context, session.server.url);
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    assert.ok(await page.isVisible('[data-key="workload.tenants"]'));
    assert.ok(await page.isHidden('[data-key="workload.gsp_num_groups"]'));
    const count = await runs(page);
    await page.selectOption('#preset', 'gsp');
    await nextRun(page, count);
    assert.equal(await page.inputValue('#field-workload-kind'), 'gsp');
    assert.ok(await page.isHidden('[data-key="workload.tenants"]'));
    assert.ok(await page.isVisible('[data-key="workload.gsp_num_groups"]'));
    assert.match(await page.textContent('#status'), /^1,024 requests/); // 64 groups x 16 prompts
    assert.equal(await page.inputValue('#preset'), 'gsp');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a replay sliced to a window, its first 200 requests, at half the rate matches prefixroute on the same slice', async () => {
    const { page, problems } = await openIn(session.context, session.server.url);
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    let count = await runs(page);
    await page.click('#trace-excerpt');
    await nextRun(page, count);
    assert.match(await page.textContent('#trace-format'), /read as mooncake format\.$/);
    await page.click('#trace-slice summary');
    count = await runs(page);
    await page.fill('#field-trace-start_s', '60');
    await page.fill('#field-trace-end_s', '240');
    await page.fill('#field-trace-limit', '200');
    await page.fill('#field-trace-time_scale', '2');
    await page.press('#field-trace-time_scale', 'Enter');
    // The address holds the scenario on screen: both fields applied.
    await page.waitForFunction(() => ['trace.start_s=60', 'trace.end_s=240', 'trace.limit=200', 'trace.time_scale=2'].every((k) => location.search.includes(k)));
    await page.waitForFunction(() => !document.querySelector('#results-table').classList.contains('stale'));
    assert.match(await page.textContent('#trace-status'), /^Replayed .* \(mooncake format\): 200 requests/);
    const doc = JSON.parse(benchOutput(session.bench, ['--trace', EXCERPT], [...EXCERPT_SETS, ['trace.start_s', '60'], ['trace.end_s', '240'], ['trace.limit', '200'], ['trace.time_scale', '2']]));
    const cells = (col) => page.$$eval('#results-table tbody tr', (trs, c) => trs.map((tr) => [tr.dataset.policy, tr.querySelector(`[data-col="${c}"]`).dataset.value]), col);
    for (const col of ['mean_ttft_ms', 'hit_rate']) assert.deepEqual(await cells(col), doc.results.map((r) => [r.policy, String(r[col])]), col);
    // Back to the synthetic workload: the slice goes with the trace.
    count = await runs(page);
    await page.click('#trace-clear');
    await nextRun(page, count);
    assert.ok(!page.url().includes('trace.limit'), page.url());
    assert.deepEqual(problems, []);
    await page.close();
  });
});
