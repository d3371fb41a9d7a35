// No view answers for another workload: for each view of the page (the
// results table, the timeline, the sweep, the capacity search), with a trace
// replayed and without, the view's "Same as" command, run by the command
// line here (the trace's name replaced by the file's path), gives exactly the
// numbers the view shows. One page for the whole file, small scenarios: the
// tests run in order, loading and leaving the trace between them.
// Run by scripts/test-e2e.sh (after the builds).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, openIn, startSession } from './harness.mjs';
import { pickInPanel } from './trace-table.mjs';

const TRACE_NAME = 'same-as.jsonl';
/** A small scenario, two policies: every view's runs stay short. */
const QUERY = '?v=1&workload.requests=400&policies=round_robin,affinity_balanced';

let session;
let page;
let problems;
let dir;
let tracePath;
let traceText;

const runs = () => page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));
const nextRun = (count) => page.waitForFunction((n) => Number(document.querySelector('#status').dataset.runs ?? '0') > n, count);

/**
 * Runs a "Same as: prefixroute ..." line with the command line: the trace's
 * name becomes the file's path, an output file named in the line (--json,
 * --timeline) goes to a scratch file, and `--json FILE` is added when the line
 * names none. Returns the parsed document of `want` ('json' or 'timeline').
 */
function runSameAs(line, want = 'json') {
  assert.match(line, /^Same as: prefixroute /);
  const words = line.replace(/^Same as: prefixroute /, '').split(' ');
  const out = { json: join(dir, 'out.json'), timeline: join(dir, 'timeline.json') };
  const args = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '--trace') args.push(w, words[++i] === TRACE_NAME ? tracePath : words[i]);
    else if (w === '--json' || w === '--timeline') {
      args.push(w, out[w.slice(2)]);
      i++;
    } else args.push(w);
  }
  if (!args.includes('--json')) args.push('--json', out.json);
  rmSync(out[want], { force: true });
  execFileSync(session.bench, args, { stdio: 'ignore' });
  return JSON.parse(readFileSync(out[want], 'utf8'));
}

async function loadTrace() {
  await pickInPanel(page, { name: TRACE_NAME, mimeType: 'application/jsonl', buffer: Buffer.from(traceText) });
  await page.waitForFunction((name) => document.querySelector('#status').textContent.startsWith(`Replayed ${name}`), TRACE_NAME);
}

async function leaveTrace() {
  const count = await runs();
  await page.click('#trace-clear');
  await nextRun(count);
  assert.doesNotMatch(await page.textContent('#status'), /^Replayed/);
}

/** Whether the page replays the trace now. */
const replaying = async () => /^Replayed /.test(await page.textContent('#status'));

async function checkTable() {
  const line = await page.textContent('#table-command');
  assert.equal(line.includes(` --trace ${TRACE_NAME} `), await replaying(), line);
  const native = runSameAs(line);
  const shown = await page.$$eval('#results-table tbody tr[data-policy]', (trs) =>
    trs.map((tr) => ({ policy: tr.dataset.policy, cells: [...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.dataset.value]) })));
  assert.deepEqual(shown.map((r) => r.policy), native.results.map((r) => r.policy));
  let compared = 0;
  for (const [i, row] of shown.entries()) {
    for (const [col, value] of row.cells) {
      if (!(col in native.results[i])) continue;
      assert.equal(Number(value), native.results[i][col], `${row.policy} ${col}`);
      compared++;
    }
  }
  assert.ok(compared >= shown.length * 5, `only ${compared} cells compared`);
}

async function checkTimeline() {
  await page.waitForFunction(() => !document.querySelector('#timeline').hidden && document.querySelector('#timeline').dataset.policy);
  const line = await page.textContent('#timeline-command');
  assert.equal(line.includes(` --trace ${TRACE_NAME} `), await replaying(), line);
  const native = runSameAs(line, 'timeline');
  const options = await page.$$eval('#timeline select option', (o) => o.map((x) => x.value));
  assert.deepEqual(options, native.policies.map((p) => p.policy));
  const scales = { wait: ['mean_wait_ms', 1], batch: ['mean_batch', 1], kv: ['kv_use', 100], hits: ['hit_rate', 100] };
  for (const p of native.policies) {
    await page.selectOption('#timeline select', p.policy);
    const root = await page.$eval('#timeline', (t) => ({ ...t.dataset }));
    assert.deepEqual([root.policy, Number(root.windows), Number(root.windowMs)], [p.policy, native.windows, native.window_ms]);
    assert.equal(await page.getAttribute('#timeline .timeline-strip', 'data-group-keys'), p.group_keys.join(' '));
    const figures = await page.$$eval('#timeline figure[data-metric]', (fs) => fs.filter((f) => !f.hidden).map((f) => ({ ...f.dataset })));
    assert.ok(figures.length >= 2);
    for (const f of figures) {
      // The highest point drawn, in the page's order (replica by replica, window by window).
      const [key, scale] = scales[f.metric];
      const cells = p[key];
      let peak = { v: -1, row: 0, w: 0 };
      for (let r = 0; r < cells[0].length; r++) {
        for (let w = 0; w < cells.length; w++) {
          const empty = (f.metric === 'wait' || f.metric === 'hits') && p.requests[w][r] === 0;
          const v = cells[w][r] * scale;
          if (!empty && v > peak.v) peak = { v, row: r, w };
        }
      }
      assert.deepEqual([Number(f.peak), Number(f.peakRow), Number(f.peakWindow)], [peak.v, peak.row, peak.w], `${p.policy} ${f.metric}`);
    }
  }
}

async function checkSweep() {
  await page.$eval('#sweep', (s) => s.scrollIntoView());
  await page.selectOption('#sweep-param', 'cluster.replicas');
  await page.fill('#sweep-from', '2');
  await page.fill('#sweep-to', '3');
  await page.fill('#sweep-steps', '2');
  const before = await page.textContent('#sweep-status');
  await page.click('#sweep-run');
  await page.waitForFunction((b) => {
    const t = document.querySelector('#sweep-status').textContent;
    return t !== b && /^2 values of cluster\.replicas/.test(t);
  }, before);
  const line = await page.textContent('#sweep-command');
  assert.equal(line.includes(` --trace ${TRACE_NAME} `), await replaying(), line);
  const native = runSameAs(line);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sweep-export')]);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.deepEqual(exported, native);
  // The table shows the same points: every (value, policy) the command line ran.
  const shown = await page.$$eval('#sweep-table tbody tr', (trs) => trs.flatMap((tr) => tr.dataset.values.split(' ').map((v) => `${v} ${tr.dataset.policy}`)));
  assert.deepEqual(shown.sort(), native.points.flatMap((p) => p.results.map((r) => `${p.value} ${r.policy}`)).sort());
}

async function checkCapacity() {
  await page.fill('#capacity-slo-ttft_ms', '3000');
  await page.dispatchEvent('#capacity-slo-ttft_ms', 'change');
  const before = await page.getAttribute('#capacity', 'data-elapsed-ms');
  await page.click('#capacity-run');
  await page.waitForFunction((b) => {
    const c = document.querySelector('#capacity');
    return ['done', 'failed'].includes(c.dataset.state ?? '') && c.dataset.elapsedMs !== b;
  }, before);
  assert.equal(await page.getAttribute('#capacity', 'data-state'), 'done', await page.textContent('#capacity-status'));
  const line = await page.textContent('#capacity-command');
  assert.equal(line.includes(` --trace ${TRACE_NAME} `), await replaying(), line);
  const native = runSameAs(line);
  const bars = (metric) => page.$$eval(`#capacity [data-metric="${metric}"]`, (rows) =>
    rows.map((r) => [r.dataset.policy, r.dataset.value === '' ? null : Number(r.dataset.value)]));
  assert.deepEqual(await bars('gpus'), native.results.map((r) => [r.policy, r.gpus]));
  assert.deepEqual(await bars('max_load'), native.results.map((r) => [r.policy, r.max_load]));
}

describe('every view’s "Same as" command gives the view’s numbers, with a trace and without', () => {
  before(async () => {
    session = await startSession({ acceptDownloads: true });
    dir = mkdtempSync(join(tmpdir(), 'prefixroute-same-as-'));
    tracePath = join(dir, TRACE_NAME);
    traceText = `${readFileSync(join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl'), 'utf8').split('\n').slice(0, 120).join('\n')}\n`;
    writeFileSync(tracePath, traceText);
    ({ page, problems } = await openIn(session.context, `${session.server.url}${QUERY}`));
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
  });
  after(async () => {
    await page?.close();
    await session?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('table', async () => {
    await checkTable();
    await loadTrace();
    await checkTable();
  });

  test('timeline', async () => {
    await checkTimeline(); // the trace is still loaded
    await leaveTrace();
    await checkTimeline();
  });

  test('sweep', async () => {
    await checkSweep();
    await loadTrace();
    await checkSweep();
  });

  test('capacity', async () => {
    await checkCapacity(); // with the trace
    await leaveTrace();
    await checkCapacity();
    assert.deepEqual(problems, []);
  });
});
