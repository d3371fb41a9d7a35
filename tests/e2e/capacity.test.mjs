// End-to-end test of the Capacity section in Debian's Chromium
// (playwright-core): a reader types p99 TTFT <= 2000 ms on the reference
// scenario and runs the search; the GPUs and the max load per policy the page
// shows equal those of `prefixroute --capacity --json` for the same
// scenario, the "Same as" command reproduces them, the SLO is in the link,
// and a search can be cancelled. Run by scripts/test-e2e.sh (after the builds).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SHOTS, benchOutput, openIn, startSession } from './harness.mjs';

let session;

/** The reference scenario's policies, named in the link so the page runs the reference scenario (not the bare page's). */
const POLICIES = 'round_robin,least_loaded,affinity,affinity_balanced';

async function openPage(query) {
  const opened = await openIn(session.context, `${session.server.url}${query}`);
  await opened.page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
  await opened.page.waitForSelector('#capacity-slo-ttft_ms');
  return opened;
}

/** The bars' figures: policy -> value (null where the SLO was not met), for one metric. */
function shownBars(page, metric) {
  return page.$$eval(`#capacity [data-metric="${metric}"]`, (rows) =>
    rows.map((r) => [r.dataset.policy, r.dataset.value === '' ? null : Number(r.dataset.value)]));
}

/** A "Same as" line's arguments after the program name. */
function commandArgs(text) {
  const words = text.replace(/^Same as: prefixroute /, '').split(' ');
  const args = [];
  const sets = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] === '--set') sets.push(words[++i].split(/=(.*)/s).slice(0, 2));
    else args.push(words[i]);
  }
  return { args, sets };
}

before(async () => {
  session = await startSession();
});

after(async () => {
  await session?.close();
});

describe('capacity section', () => {
  test('p99 TTFT <= 2 s typed on the page: GPUs and max load per policy equal the CLI --capacity', async () => {
    const { page, problems } = await openPage(`?v=1&policies=${POLICIES}`);
    await page.fill('#capacity-slo-ttft_percentile', '99');
    await page.fill('#capacity-slo-ttft_ms', '2000');
    await page.dispatchEvent('#capacity-slo-ttft_ms', 'change');
    await page.click('#capacity-run');
    await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('#capacity')?.dataset.state ?? ''));
    assert.equal(await page.getAttribute('#capacity', 'data-state'), 'done', await page.textContent('#capacity-status'));
    const elapsedMs = Number(await page.getAttribute('#capacity', 'data-elapsed-ms'));
    console.log(`capacity search in the browser (reference scenario, 4 policies): ${elapsedMs} ms`);

    const native = JSON.parse(benchOutput(session.bench, ['--capacity'], [['policies', POLICIES], ['slo.ttft_ms', '2000'], ['slo.ttft_percentile', '99']]));
    const gpus = native.results.map((r) => [r.policy, r.gpus]);
    const load = native.results.map((r) => [r.policy, r.max_load]);
    assert.ok(gpus.every(([, g]) => typeof g === 'number' && g > 0), JSON.stringify(gpus));
    assert.deepEqual(await shownBars(page, 'gpus'), gpus);
    assert.deepEqual(await shownBars(page, 'max_load'), load);

    // The sentence states each policy's GPUs, in words: policies with equal counts named together.
    const sentence = await page.textContent('#capacity-sentence');
    assert.match(sentence, /^At p99 TTFT ≤ 2,000 ms and 100 requests\/s: /);
    for (const clause of sentence.replace(/^[^:]*: /, '').replace(/\.$/, '').split('; ')) {
      const [, names, count] = clause.match(/^(.*) needs? (\d+) GPUs?$/) ?? [];
      assert.ok(names, clause);
      for (const name of names.split(/, | and /)) assert.equal(native.results.find((r) => r.label === name)?.gpus, Number(count), clause);
    }
    assert.equal(sentence.replace(/^[^:]*: /, '').split(/, | and |; /).length, native.results.length, sentence);

    // The command the page shows gives the same numbers.
    const command = await page.textContent('#capacity-command');
    assert.match(command, /^Same as: prefixroute --capacity /);
    assert.match(command, /--set slo\.ttft_ms=2000/);
    const { args, sets } = commandArgs(command);
    const again = JSON.parse(benchOutput(session.bench, args, sets));
    assert.deepEqual(again.results.map((r) => [r.policy, r.gpus]), gpus);

    // The SLO is a scenario field: the link carries it once the scenario has re-run with it.
    await page.waitForFunction(() => new URLSearchParams(window.location.search).get('slo.ttft_ms') === '2000');
    assert.equal(await page.inputValue('#controls [data-key="slo.ttft_ms"] input'), '2000');
    // The curve of the search's steps is drawn, with the SLO line.
    assert.equal(await page.isVisible('#capacity-curve-box'), true);
    assert.equal(await page.$$eval('#capacity-curve .capacity-slo-line', (l) => l.length), 1);
    assert.equal(await page.$$eval('#capacity-curve polyline', (l) => l.length), native.results.length);
    await page.locator('#capacity').screenshot({ path: join(SHOTS, 'capacity.png') });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('with replicates: means and 95 % intervals as the CLI gives them, whiskers on the bars', async () => {
    const sets = [['policies', 'round_robin,affinity'], ['replicates', '3'], ['workload.requests', '1500'], ['slo.ttft_ms', '2000']];
    const { page, problems } = await openPage(`?v=1&${sets.map(([k, v]) => `${k}=${v}`).join('&')}`);
    await page.click('#capacity-run');
    await page.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('#capacity')?.dataset.state ?? ''));
    const native = JSON.parse(benchOutput(session.bench, ['--capacity'], sets));
    assert.deepEqual(await shownBars(page, 'gpus'), native.results.map((r) => [r.policy, r.gpus]));
    assert.deepEqual(await shownBars(page, 'max_load'), native.results.map((r) => [r.policy, r.max_load]));
    // A whisker and a "±" wherever the core's interval has a width.
    const widths = native.results.flatMap((r) => [r.interval.gpus.half_width, r.interval.max_load.half_width]);
    assert.ok(widths.some((w) => w > 0), JSON.stringify(widths));
    assert.equal(await page.$$eval('#capacity .capacity-whisker', (l) => l.length), widths.filter((w) => w > 0).length);
    assert.equal(await page.$$eval('#capacity .capacity-value', (l) => l.filter((e) => e.textContent.includes('±')).length), widths.filter((w) => w > 0).length);
    assert.match(await page.textContent('#capacity-sentence'), /\(means over 3 seeds\)/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a link with the SLO fills the inputs; a search can be cancelled', async () => {
    const { page, problems } = await openPage(`?v=1&policies=round_robin,least_loaded&slo.ttft_ms=1500&workload.requests=20000`);
    assert.equal(await page.inputValue('#capacity-slo-ttft_ms'), '1500');
    await page.click('#capacity-run');
    await page.waitForSelector('#capacity-progress', { state: 'visible' });
    await page.click('#capacity-cancel');
    await page.waitForFunction(() => document.querySelector('#capacity')?.dataset.state === 'failed');
    assert.equal(await page.textContent('#capacity-status'), 'Capacity search cancelled.');
    assert.equal(await page.isVisible('#capacity-progress'), false);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
