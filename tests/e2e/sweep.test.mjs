// End-to-end test of the Sweep panel in Debian's Chromium (playwright-core):
// a small sweep from a link runs in its worker, draws the chart and the
// table with the native command line's numbers, exports the very bytes of
// `prefixroute --sweep ... --json`; bad inputs are named and refused;
// a sweep can be cancelled; after a trace is loaded the sweep replays it, as
// `prefixroute --trace FILE --sweep ...` does. Run by scripts/test-e2e.sh (after the builds).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, SHOTS, benchOutput, openIn, startSession } from './harness.mjs';
import { pickInPanel } from './trace-table.mjs';

let session;

/**
 * The sweep table's rows as the page shows them: per policy, equal outcomes
 * at consecutive values merged into one row (web/src/sweep/sweep-view.ts), in
 * order of first value, then policy.
 */
function shownRows(doc) {
  const open = new Map();
  const rows = [];
  for (const p of doc.points) {
    for (const r of p.results) {
      const last = open.get(r.policy);
      if (last && JSON.stringify(last.r) === JSON.stringify(r)) {
        last.values.push(p.value);
        continue;
      }
      const row = { values: [p.value], r };
      open.set(r.policy, row);
      rows.push(row);
    }
  }
  return rows;
}

/** `prefixroute --sweep SPEC --set ... --json FILE`: the file's bytes. */
const benchSweep = (spec, sets) => benchOutput(session.bench, ['--sweep', spec], sets);

async function openPage(query) {
  const opened = await openIn(session.context, `${session.server.url}${query}`);
  await opened.page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
  return opened;
}

before(async () => {
  session = await startSession({ acceptDownloads: true });
});

after(async () => {
  await session?.close();
});

describe('sweep panel', () => {
  test('a sweep from the link: chart, table and export equal the native command line', async () => {
    // The slack moves affinity balanced only: the other policies' unchanged
    // outcomes are one row (and one point) each, not one per value.
    const sets = [['workload.requests', '1500']];
    const query = '?v=1&workload.requests=1500&sweep.param=affinity_balanced.load_slack_s&sweep.from=0&sweep.to=0.2&sweep.steps=3';
    const { page, problems } = await openPage(query);
    const native = benchSweep('affinity_balanced.load_slack_s=0:0.2:3', sets);
    const doc = JSON.parse(native);
    const expected = shownRows(doc);
    assert.ok(expected.some((r) => r.values.length === 3), 'no policy kept its outcome over the sweep');
    await page.waitForFunction((n) => document.querySelectorAll('#sweep-table tbody tr').length === n, expected.length);

    // The chart is shown, drawn (a sized canvas, Chart.js attached) and described.
    assert.equal(await page.isVisible('#chart-sweep canvas'), true);
    const box = await page.$eval('#chart-sweep canvas', (c) => ({ w: c.width, h: c.height }));
    assert.ok(box.w > 100 && box.h > 100, JSON.stringify(box));
    const label = await page.getAttribute('#chart-sweep canvas', 'aria-label');
    assert.match(label, /^Hit rate against p99 time to first token, one series per policy, over 3 values of affinity_balanced\.load_slack_s\. Better is down and to the right\. On the Pareto front: /);
    assert.match(await page.textContent('#chart-sweep figcaption'), /Better: ↘ down and to the right/);
    // The front the page names is the core's: one entry per flagged row.
    const named = label.replace(/^.*On the Pareto front: /, '').replace(/\. The table below lists every point\.$/, '').split('; ');
    assert.equal(named.length, expected.filter((r) => r.r.pareto).length, label);

    // The table holds the native numbers, the Pareto rows tagged; an unchanged outcome names every value once.
    const shown = await page.$$eval('#sweep-table tbody tr', (trs) =>
      trs.map((tr) => ({ values: tr.dataset.values, policy: tr.dataset.policy, head: tr.querySelector('th').textContent, cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })));
    assert.deepEqual(shown.map((r) => [r.values, r.policy, r.cells[1], r.cells[6] === 'front']),
      expected.map((r) => [r.values.join(' '), r.r.policy, `${(r.r.hit_rate * 100).toFixed(1)}%`, r.r.pareto]));
    assert.ok(shown.some((r) => r.head === 'every value (0 – 0.2)'), JSON.stringify(shown.map((r) => r.head)));

    // The policy filter: a ticked box per policy, the chart's legend.
    const filter = await page.$$eval('#chart-sweep .sweep-filter input', (inputs) => inputs.map((i) => [i.dataset.policy, i.checked]));
    assert.deepEqual(filter, doc.points[0].results.map((r) => [r.policy, true]));
    await page.click('#chart-sweep .sweep-filter input[data-policy="round_robin"]');
    assert.equal(await page.isChecked('#chart-sweep .sweep-filter input[data-policy="round_robin"]'), false);

    // The link keeps the sweep; the export is the command line's file, byte for byte.
    assert.match(new URL(page.url()).search, /sweep\.param=affinity_balanced\.load_slack_s&sweep\.from=0&sweep\.to=0\.2&sweep\.steps=3$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sweep-export')]);
    assert.equal(download.suggestedFilename(), 'prefixroute-sweep-affinity_balanced.load_slack_s.json');
    assert.equal(readFileSync(await download.path(), 'utf8'), native);
    assert.match(await page.textContent('#sweep-command'), /prefixroute --sweep affinity_balanced\.load_slack_s=0:0\.2:3 --set workload\.requests=1500/);

    await page.$eval('#sweep', (el) => el.scrollIntoView());
    await (await page.$('#sweep')).screenshot({ path: join(SHOTS, 'screenshot-sweep.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('after a trace is loaded the sweep replays it: its export is prefixroute --trace FILE --sweep SPEC, byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prefixroute-sweep-trace-'));
    const file = join(dir, 'mine.jsonl');
    const text = `${readFileSync(join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl'), 'utf8').split('\n').slice(0, 200).join('\n')}\n`;
    writeFileSync(file, text);
    const { page, problems } = await openPage('?v=1&policies=round_robin,affinity_balanced&cluster.cache_tokens=100000');
    await pickInPanel(page, { name: 'mine.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(text) });
    await page.waitForFunction(() => /^Replayed mine\.jsonl/.test(document.querySelector('#status').textContent), null, { timeout: 120_000 });
    // The default sweep's arrival rate means nothing on a trace: the panel says it varies the replicas instead.
    await page.waitForFunction(() => document.querySelector('#sweep-param').value === 'cluster.replicas', null, { timeout: 20_000 });
    assert.match(await page.textContent('#sweep-messages'), /workload\.arrival_rate_per_s sets the synthetic workload, which the replayed trace replaces/);
    assert.equal(await page.$eval('#sweep-param option[value="workload.arrival_rate_per_s"]', (o) => o.disabled), true);
    await page.fill('#sweep-from', '1');
    await page.fill('#sweep-to', '4');
    await page.fill('#sweep-steps', '4');
    await page.click('#sweep-run');
    await page.waitForFunction(() => /^4 values of cluster\.replicas × 2 policies on mine\.jsonl/.test(document.querySelector('#sweep-status').textContent), null, { timeout: 120_000 });
    assert.match(await page.textContent('#sweep-command'), /^Same as: prefixroute --trace mine\.jsonl --sweep cluster\.replicas=1:4:4 /);
    // The same sweep on the command line, with the scenario the page's link names.
    const sets = [...new URL(page.url()).searchParams].filter(([k]) => k !== 'v' && !k.startsWith('trace') && !k.startsWith('sweep.'));
    const native = benchOutput(session.bench, ['--trace', file, '--sweep', 'cluster.replicas=1:4:4'], sets);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sweep-export')]);
    const exported = readFileSync(await download.path(), 'utf8');
    assert.equal(JSON.parse(exported).base_scenario.trace.name, 'mine.jsonl');
    assert.equal(exported, native);
    assert.deepEqual(problems, []);
    await page.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the default sweep runs from the button; bad inputs name the input and the range', async () => {
    const { page, problems } = await openPage('?v=1&workload.requests=1000');
    assert.equal(await page.inputValue('#sweep-param'), 'workload.arrival_rate_per_s');
    assert.equal(await page.inputValue('#sweep-steps'), '5');
    assert.equal(await page.isHidden('#chart-sweep'), true); // nothing runs until asked
    // The equivalent command line follows the scenario on screen.
    assert.equal(await page.textContent('#sweep-command'),
      'Same as: prefixroute --sweep workload.arrival_rate_per_s=50:150:5 --set workload.requests=1000');

    await page.fill('#sweep-steps', '1');
    assert.equal(await page.textContent('#sweep-steps-error'), 'Steps must be an integer in [2, 200].');
    assert.equal(await page.getAttribute('#sweep-steps', 'aria-invalid'), 'true');
    assert.equal(await page.isDisabled('#sweep-run'), true);
    await page.fill('#sweep-from', '-1');
    assert.match(await page.textContent('#sweep-from-error'), /^From must be a number in \[0\.001, [\d,.e+]+\] requests\/s \(workload\.arrival_rate_per_s\)\.$/);
    await page.fill('#sweep-from', '50');
    await page.fill('#sweep-steps', '5');
    assert.equal(await page.isHidden('#sweep-steps-error'), true);

    await page.click('#sweep-run');
    await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 20);
    assert.match(await page.textContent('#sweep-status'), /^5 values of workload\.arrival_rate_per_s × 4 policies, simulated in [\d,]+ ms; \d+ points? on the Pareto front\.$/);
    // The default sweep writes nothing into the link.
    assert.equal(new URL(page.url()).search, '?v=1&workload.requests=1000');

    // Choosing another parameter proposes a range inside its bounds, and the link follows.
    await page.selectOption('#sweep-param', 'cluster.replicas');
    assert.equal(await page.inputValue('#sweep-from'), '2');
    assert.equal(await page.inputValue('#sweep-to'), '6');
    assert.match(new URL(page.url()).search, /&sweep\.param=cluster\.replicas&sweep\.from=2&sweep\.to=6&sweep\.steps=5$/);

    // An integer field: five steps from 2 to 4 are the core's three values, as on the command line.
    await page.fill('#sweep-to', '4');
    assert.equal(await page.textContent('#sweep-command'),
      'Same as: prefixroute --sweep cluster.replicas=2:4:5 --set workload.requests=1000');
    const native = JSON.parse(benchSweep('cluster.replicas=2:4:5', [['workload.requests', '1000']]));
    assert.deepEqual(native.points.map((p) => p.value), ['2', '3', '4']);
    await page.click('#sweep-run');
    await page.waitForFunction(() => /^3 values of cluster\.replicas/.test(document.querySelector('#sweep-status').textContent));
    const values = await page.$$eval('#sweep-table tbody tr', (trs) => [...new Set(trs.flatMap((tr) => tr.dataset.values.split(' ')))]);
    assert.deepEqual(values, ['2', '3', '4']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('hostile sweep values in the link are reported, never run, never break the page', async () => {
    const query = '?v=1&sweep.param=__proto__&sweep.from=%3Cimg%20src%3Dx%3E&sweep.steps=99999&sweep.to=%E0%A4%A&sweep.evil=1';
    const { page, problems } = await openPage(query);
    await page.waitForFunction(() => !document.querySelector('#sweep-messages').hidden);
    const messages = await page.$$eval('#sweep-messages li', (li) => li.map((x) => x.textContent));
    assert.equal(messages.length, 5, messages.join('\n'));
    assert.equal(await page.$('#sweep img'), null);
    // Every bad key fell back to the default sweep's value: a valid sweep, ready to run.
    assert.equal(await page.inputValue('#sweep-param'), 'workload.arrival_rate_per_s');
    assert.equal(await page.isDisabled('#sweep-run'), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a running sweep shows progress and can be cancelled', async () => {
    const { page, problems } = await openPage('?v=1&sweep.param=workload.arrival_rate_per_s&sweep.from=50&sweep.to=150&sweep.steps=200');
    await page.waitForFunction(() => !document.querySelector('#sweep-progress').hidden);
    await page.waitForFunction(() => /^Point \d+ of 200/.test(document.querySelector('#sweep-progress-text').textContent));
    await page.click('#sweep-cancel');
    await page.waitForFunction(() => document.querySelector('#sweep-status').textContent === 'Sweep cancelled.');
    assert.equal(await page.isHidden('#sweep-progress'), true);
    // A new sweep runs in a fresh worker afterwards.
    await page.fill('#sweep-steps', '2');
    await page.click('#sweep-run');
    await page.waitForFunction(() => document.querySelectorAll('#sweep-table tbody tr').length === 8);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
