// End-to-end tests of trace replay in the built playground (web/dist), in
// Debian's Chromium driven by playwright-core: the excerpt preset replays the
// shipped Mooncake excerpt with the same numbers as `prefixroute
// --trace`, a file picked or dropped in the Trace replay panel goes through
// the guided import (read, summarised, the cluster stated; nothing replays
// until the reader confirms), a file with a bad line shows the line-numbered
// message and the choice to skip, and a link for an uploaded file asks for
// the file.
// Run: bash scripts/test-e2e.sh (builds first).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, SHOTS, benchOutput, openIn, policyCatalogue, startSession } from './harness.mjs';
import { confirmImport, pickInPanel } from './trace-table.mjs';

const EXCERPT = join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');
/** The excerpt preset's cluster (web/src/trace/replay-cluster.ts, EXCERPT_PRESET). */
const EXCERPT_SETS = [['cluster.replicas', '8'], ['cluster.cache_tokens', '1000000']];

let session;

/** prefixroute's results JSON for a trace and --set pairs. */
const benchTrace = (file, sets = []) => JSON.parse(benchOutput(session.bench, ['--trace', file], sets));

// The table's rounding (web/src/ui/format.ts), restated as in playground.test.mjs.
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ms = (v) => (Math.abs(v) >= 100 ? grouped.format(Math.round(v)) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const DISPLAY = {
  mean_ttft_ms: ms,
  p99_ttft_ms: ms,
  hit_rate: (v) => `${(v * 100).toFixed(1)}%`,
  prefill_tokens: (v) => grouped.format(v),
};

function expectedTable(doc) {
  return Object.fromEntries(doc.results.map((r) => [r.policy, Object.fromEntries(Object.entries(DISPLAY).map(([k, f]) => [k, f(r[k])]))]));
}

function readTable(page) {
  return page.$$eval(
    '#results-table tbody tr',
    (rows, cols) =>
      Object.fromEntries(
        rows.map((tr) => [
          tr.dataset.policy,
          Object.fromEntries(cols.map((c) => [c, tr.querySelector(`td[data-col="${c}"] .value`)?.textContent ?? null])),
        ]),
      ),
    Object.keys(DISPLAY),
  );
}

const newPage = (query = '') => openIn(session.context, `${session.server.url}${query}`, { height: 1000 });

const runs = (page) => page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));

const statusStarts = (page, prefix) =>
  page.waitForFunction((p) => document.querySelector('#status')?.textContent?.startsWith(p), prefix, { timeout: 120_000 });

before(async () => {
  session = await startSession({ mount: '/sub/path/' });
});

after(async () => {
  await session?.close();
});

describe('trace replay', () => {
  test('the excerpt preset replays the shipped excerpt: one row per policy, equal to prefixroute --trace', async () => {
    const { page, problems } = await newPage();
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    await page.click('#trace-excerpt');
    await statusStarts(page, 'Replayed mooncake-conversation-first-1000.jsonl: 1,000 requests');
    // The page's policies (the bare page's scenario, web/src/state/page-scenario.ts), as its link names them.
    const policies = new URL(page.url()).searchParams.get('policies');
    const native = benchTrace(EXCERPT, [...EXCERPT_SETS, ...(policies ? [['policies', policies]] : [])]);
    assert.deepEqual(await readTable(page), expectedTable(native));
    // Once the run is over, nothing says it is still replaying.
    assert.match(await page.textContent('#trace-status'), /^Replayed mooncake-conversation-first-1000\.jsonl \(mooncake format\): 1,000 requests from 1,000 lines/);
    assert.doesNotMatch(`${await page.textContent('#status')} ${await page.textContent('#trace-status')}`, /Replaying/);
    assert.match(await page.textContent('#table-notes'), /Hit-rate bounds no routing can beat/);
    const search = new URL(page.url()).search;
    assert.match(search, /trace=mooncake-excerpt/);
    assert.match(search, /cluster\.replicas=8/);
    assert.equal(await page.$eval('fieldset.group-workload', (f) => f.disabled), true, 'the synthetic workload fields do not apply');
    await page.screenshot({ path: join(SHOTS, 'trace-excerpt.png'), fullPage: true });

    // The link alone replays it again.
    const again = await newPage(search);
    await statusStarts(again.page, 'Replayed mooncake-conversation-first-1000.jsonl');
    assert.deepEqual(await readTable(again.page), expectedTable(native));
    assert.deepEqual([...problems, ...again.problems], []);
    await again.page.close();
    await page.close();
  });

  test('the excerpt’s TTFT chart draws every policy’s bar above zero height: log axis by default, cut and marked bars on a linear one', async () => {
    // Every policy: naive affinity's TTFT is some 500 times the others' on this trace.
    const all = (await policyCatalogue()).map((p) => p.name).join(',');
    const { page, problems } = await newPage(`?v=1&trace=mooncake-excerpt&cluster.replicas=8&cluster.cache_tokens=1000000&policies=${all}`);
    await statusStarts(page, 'Replayed mooncake-conversation-first-1000.jsonl');
    const bars = async () => {
      await page.waitForFunction(() => document.querySelector('#chart-ttft canvas')?.dataset.barPx);
      return JSON.parse(await page.getAttribute('#chart-ttft canvas', 'data-bar-px'));
    };
    const count = all.split(',').length;
    const logBars = await bars();
    assert.equal(await page.textContent('#chart-ttft select.axis-mode option[value="auto"]'), 'Auto (log)');
    assert.deepEqual(logBars.map((d) => d.length), [count, count]);
    assert.ok(logBars.flat().every((h) => h >= 3), `every bar at least 3 px high on the log axis: ${JSON.stringify(logBars)}`);
    // A linear axis cuts the outliers at its top (marked, with their values) instead of flattening the rest.
    await page.evaluate(() => document.querySelector('#chart-ttft canvas').removeAttribute('data-bar-px'));
    await page.selectOption('#chart-ttft select.axis-mode', 'linear');
    const linearBars = await bars();
    assert.ok(linearBars.flat().every((h) => h > 0), `every bar above zero height on the linear axis: ${JSON.stringify(linearBars)}`);
    assert.match(await page.getAttribute('#chart-ttft canvas', 'aria-label'), /Bars above [\d,]+ ms are cut at the top of the axis and marked with their values/);
    // A trace has one replicate: no policy is marked best, and the page says so.
    assert.match(await page.textContent('#table-notes'), /A trace has one replicate/);
    assert.match(await page.textContent('#verdict'), /One replay of the trace \(a trace has one replicate\)/);
    assert.equal((await page.$$('#results-table .best-tag')).length, 0);
    await page.screenshot({ path: join(SHOTS, 'trace-excerpt-all-policies.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an uploaded file with a bad line shows its line number and field; skip replays the rest', async () => {
    const lines = readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 40);
    lines[2] = lines[2].replace(/"input_length": \d+/, '"input_length": -5');
    const text = `${lines.join('\n')}\n`;
    const { page, problems } = await newPage();
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    await page.setInputFiles('#trace-file', { name: 'bad.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(text) });
    await page.waitForSelector('#import-problem:not([hidden])');
    const message = await page.textContent('#import-problem');
    assert.match(message, /bad\.jsonl has a bad line/);
    assert.match(message, /line 3, input_length: must be an integer in \[1, 10000000\]; got -5/);
    await page.screenshot({ path: join(SHOTS, 'trace-bad-line.png'), fullPage: true });

    await page.click('#import-skip');
    await confirmImport(page);
    await statusStarts(page, 'Replayed bad.jsonl: 39 requests');
    assert.match(await page.textContent('#trace-status'), /Skipped 1 bad line; first: line 3, input_length/);
    assert.equal(await page.isHidden('#trace-problem'), true);

    // The numbers are the command line's for the same file and settings.
    const dir = mkdtempSync(join(tmpdir(), 'prefixroute-trace-'));
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, text);
    // An uploaded file runs on the cluster on screen (the reference one here).
    const native = benchTrace(file, [['trace.on_error', 'skip'], ['policies', new URL(page.url()).searchParams.get('policies')]]);
    rmSync(dir, { recursive: true });
    assert.deepEqual(await readTable(page), expectedTable(native));

    // Its link names the file and its hash, and says the file must be loaded again.
    const search = new URL(page.url()).search;
    assert.match(search, /trace\.name=bad\.jsonl/);
    assert.match(search, new RegExp(`trace\\.content_hash=${native.scenario.trace.content_hash}`));
    assert.match(search, /trace\.on_error=skip/);
    const linked = await newPage(search);
    await linked.page.waitForSelector('#trace-link-note:not([hidden])');
    assert.match(await linked.page.textContent('#trace-link-note'), /“bad\.jsonl”, which a link cannot carry: load the file again/);
    assert.match(await linked.page.textContent('#status'), /Waiting for the trace file/);
    // Loading it again replays the link's scenario.
    await pickInPanel(linked.page, { name: 'bad.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(text) });
    await statusStarts(linked.page, 'Replayed bad.jsonl: 39 requests');
    assert.deepEqual(await readTable(linked.page), expectedTable(native));
    assert.deepEqual([...problems, ...linked.problems], []);
    await linked.page.close();
    await page.close();
  });

  test('an uploaded openai-format chat log replays: the status names the format, the table adds the per-session columns', async () => {
    const chat = (t, messages, session) => JSON.stringify({ timestamp: t, messages, output_tokens: 20, session_id: session });
    const system = { role: 'system', content: 'You are a careful assistant who answers in two sentences.' };
    const lines = [];
    for (let s = 0; s < 6; s++) {
      const history = [system];
      for (let turn = 0; turn < 4; turn++) {
        history.push({ role: 'user', content: `Question ${turn} of chat ${s}: how does a prefix cache help a router?` });
        lines.push(chat(new Date(Date.UTC(2026, 2, 1, 12, 0, s + turn * 10)).toISOString(), [...history], `chat-${s}`));
        history.push({ role: 'assistant', content: `It keeps the history of chat ${s} warm, turn ${turn}.` });
      }
    }
    lines.sort((a, b) => (JSON.parse(a).timestamp < JSON.parse(b).timestamp ? -1 : 1));
    const text = `${lines.join('\n')}\n`;
    const { page, problems } = await newPage();
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    await pickInPanel(page, { name: 'chat.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(text) });
    await statusStarts(page, 'Replayed chat.jsonl: 24 requests');
    assert.match(await page.textContent('#trace-status'), /^Replayed chat\.jsonl \(openai format\): 24 requests from 24 lines \(\d[\d.]* K?B\)\.$/);
    const dir = mkdtempSync(join(tmpdir(), 'prefixroute-trace-'));
    const file = join(dir, 'chat.jsonl');
    writeFileSync(file, text);
    const native = benchTrace(file, [['policies', new URL(page.url()).searchParams.get('policies')]]);
    rmSync(dir, { recursive: true });
    assert.deepEqual(await readTable(page), expectedTable(native));
    const shown = await page.$$eval('#results-table tbody tr', (rows) =>
      rows.map((tr) => tr.querySelector('td[data-col="later_call_hit_rate"] .value')?.textContent));
    assert.deepEqual(shown, native.results.map((r) => `${(r.later_call_hit_rate * 100).toFixed(1)}%`));
    assert.match(await page.textContent('#table-notes'), /of the 6 sessions of more than one call/);
    await page.screenshot({ path: join(SHOTS, 'trace-openai.png'), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a bad first line: "reading stopped after 1 line", in the singular', async () => {
    const lines = readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 5);
    lines[0] = lines[0].replace(/"input_length": \d+/, '"input_length": -5');
    const { page, problems } = await newPage();
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    await page.setInputFiles('#trace-file', { name: 'first.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(`${lines.join('\n')}\n`) });
    await page.waitForSelector('#import-problem:not([hidden])');
    assert.equal(await page.textContent('#import-problem-text'), 'first.jsonl has a bad line, so reading stopped after 1 line:');
    await page.click('#import-skip');
    await confirmImport(page);
    await statusStarts(page, 'Replayed first.jsonl: 4 requests');
    assert.match(await page.textContent('#trace-status'), /^Replayed first\.jsonl \(mooncake format\): 4 requests from 5 lines \(\d+ B\)\. Skipped 1 bad line; first: line 1,/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('back to the synthetic workload puts back the cluster settings the replay changed, and says so', async () => {
    const { page, problems } = await newPage('?v=1&cluster.replicas=6');
    await statusStarts(page, '4,000 requests');
    await page.click('#trace-excerpt');
    await statusStarts(page, 'Replayed mooncake-conversation-first-1000.jsonl');
    assert.equal(await page.inputValue('#field-cluster-replicas'), '8');
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '1000000');
    await page.click('#trace-clear');
    await statusStarts(page, '4,000 requests');
    assert.equal(await page.inputValue('#field-cluster-replicas'), '6');
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '4000');
    assert.equal(new URL(page.url()).search, '?v=1&cluster.replicas=6');
    assert.equal(await page.textContent('#trace-status'),
      'Back to the synthetic workload; the cluster settings the replay had changed are restored to their values before it: ' +
      'Replicas 8 → 6, Cache per replica 1,000,000 → 4,000.');
    assert.equal(await page.isHidden('#trace-clear'), true);

    // Opened on a replay link, there was no scenario before it: back to the defaults.
    const linked = await newPage('?v=1&trace=mooncake-excerpt&cluster.replicas=8&cluster.cache_tokens=1000000');
    await statusStarts(linked.page, 'Replayed mooncake-conversation-first-1000.jsonl');
    await linked.page.click('#trace-clear');
    await statusStarts(linked.page, '4,000 requests');
    assert.equal(await linked.page.inputValue('#field-cluster-replicas'), '4');
    assert.match(await linked.page.textContent('#trace-status'), /restored to their defaults: Replicas 8 → 4, Cache per replica 1,000,000 → 4,000\.$/);
    assert.deepEqual([...problems, ...linked.problems], []);
    await linked.page.close();
    await page.close();
  });

  test('a big file is read in chunks with progress (bytes, requests) and can be cancelled', async () => {
    // 80 copies of the excerpt, timestamps shifted so they never decrease: about 20 MB.
    const lines = readFileSync(EXCERPT, 'utf8').trimEnd().split('\n').map((l) => /^(.*"timestamp": )(\d+)(.*)$/.exec(l));
    const parts = [];
    for (let copy = 0; copy < 80; copy++) for (const [, head, t, tail] of lines) parts.push(`${head}${Number(t) + copy * 4_000_000}${tail}`);
    // Given as a path, the browser opens the file itself, as a picked file:
    // as a buffer, playwright would send its 20 MB over the DevTools protocol (12 s).
    const dir = mkdtempSync(join(tmpdir(), 'prefixroute-trace-'));
    const big = join(dir, 'big.jsonl');
    writeFileSync(big, `${parts.join('\n')}\n`);
    const { page, problems } = await newPage();
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    const before = await page.textContent('#results-table tbody');
    const runsBefore = await runs(page);
    await page.setInputFiles('#trace-file', big);
    await page.waitForFunction(
      () => /^Reading big\.jsonl: [\d.]+ MB of 2\d\.\d MB, [\d,]+ requests…$/.test(document.querySelector('#import-status')?.textContent ?? ''),
      null,
      { timeout: 60_000, polling: 20 },
    );
    await page.click('#import-cancel');
    assert.ok(await page.isHidden('#import-dialog'));
    assert.equal(await page.textContent('#results-table tbody'), before);
    assert.equal(await runs(page), runsBefore, 'nothing ran');
    assert.equal(new URL(page.url()).search.includes('trace'), false, 'the link still describes what is shown');
    assert.deepEqual(problems, []);
    await page.close();
    rmSync(dir, { recursive: true });
  });

  test('a file picked or dropped in the Trace replay panel is read and summarised first: nothing replays until the reader confirms', async () => {
    const text = `${readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 25).join('\n')}\n`;
    const { page, problems } = await newPage('?v=1&cluster.replicas=3&policies=round_robin,affinity');
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    const before = await page.textContent('#results-table tbody');
    const runsBefore = await runs(page);
    /** Waits until the dialog states what was read and the cluster, and checks nothing replayed meanwhile. */
    const summarised = async (name) => {
      await page.waitForFunction(() => !document.querySelector('#import-cluster').hidden, null, { timeout: 60_000 });
      assert.equal(await page.textContent('#import-title'), `Your traffic: ${name}`);
      assert.equal(await page.getAttribute('#import-figures dd[data-key="requests"]', 'data-value'), '25');
      assert.equal(await page.getAttribute('#import-cluster-text', 'data-replicas'), '3', 'the cluster on screen is the one stated');
      assert.match(await page.textContent('#import-status'), /nothing has run yet/);
      assert.equal(await runs(page), runsBefore, 'nothing ran before the reader confirmed');
      assert.equal(await page.textContent('#results-table tbody'), before);
      assert.equal(new URL(page.url()).searchParams.has('trace'), false);
    };

    // The panel's file picker.
    await page.setInputFiles('#trace-file', { name: 'picked.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(text) });
    await summarised('picked.jsonl');
    await page.click('#import-cancel');
    assert.ok(await page.isHidden('#import-dialog'));
    assert.equal(await runs(page), runsBefore, 'a cancelled import runs nothing');

    // The panel's drop zone.
    const transfer = await page.evaluateHandle((content) => {
      const dt = new DataTransfer();
      dt.items.add(new File([content], 'dropped.jsonl', { type: 'application/jsonl' }));
      return dt;
    }, text);
    await page.dispatchEvent('#trace-drop', 'dragover', { dataTransfer: transfer });
    await page.dispatchEvent('#trace-drop', 'drop', { dataTransfer: transfer });
    await summarised('dropped.jsonl');
    await page.click('#import-replay');
    await statusStarts(page, 'Replayed dropped.jsonl: 25 requests');
    assert.equal(await page.inputValue('#field-cluster-replicas'), '3', 'the cluster is the one the dialog stated');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
