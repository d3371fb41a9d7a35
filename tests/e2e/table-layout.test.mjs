// End-to-end tests of the results table's fit in Debian's Chromium: at
// 1280 px a replayed chat log with sessions on the batched engine (the most
// columns a run has: decode and per-session figures) fits its box, with no
// sideways scroll; on a 390 px phone the table scrolls sideways and a cue
// above it names the columns out of view, and which way they are.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openIn, startSession } from './harness.mjs';
import { pickInPanel } from './trace-table.mjs';

let session;

/** A chat log of 8 users, 5 turns each, every turn re-sending the history (openai format). */
function chatLog() {
  const system = { role: 'system', content: 'You are a careful assistant who answers about routing. '.repeat(20) };
  const lines = [];
  for (let s = 0; s < 8; s++) {
    const history = [system];
    for (let t = 0; t < 5; t++) {
      history.push({ role: 'user', content: `Question ${t} of chat ${s}: how does a prefix cache help a router?` });
      lines.push({ timestamp: s + t * 20, messages: [...history], output_tokens: 40, user: `u${s}` });
      history.push({ role: 'assistant', content: `Answer ${t} of chat ${s}.` });
    }
  }
  return `${lines.sort((a, b) => a.timestamp - b.timestamp).map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** The table's fit: its width against its box's, the columns shown, the cue's text when shown. */
const fit = (page) => page.evaluate(() => {
  const wrap = document.querySelector('.table-wrap');
  const table = document.querySelector('#results-table');
  const box = wrap.getBoundingClientRect();
  const heads = [...table.querySelectorAll('thead th[data-col]')].filter((th) => th.getBoundingClientRect().width > 0);
  const cue = document.querySelector('#table-cue');
  return {
    table: table.scrollWidth,
    box: wrap.clientWidth,
    columns: heads.map((th) => th.dataset.col),
    right: heads.filter((th) => th.getBoundingClientRect().right > box.right + 1).map((th) => th.firstChild.textContent.trim()),
    left: heads.filter((th) => th.getBoundingClientRect().left < box.left - 1).map((th) => th.firstChild.textContent.trim()),
    cue: !cue || cue.hidden || cue.getBoundingClientRect().height === 0 ? null : cue.textContent,
    cueTop: cue ? cue.getBoundingClientRect().top : NaN,
  };
});

before(async () => {
  session = await startSession({ mount: '/layout/' });
});

after(async () => {
  await session?.close();
});

describe('the results table', () => {
  test('at 1280 px, a replayed chat log on the batched engine (decode and session columns) fits its box', async () => {
    const policies = 'round_robin,least_loaded,affinity,affinity_balanced,expected_ttft,sglang_cache_aware,dynamo_kv,llmd_epp';
    const { page, problems } = await openIn(session.context,
      `${session.server.url}?v=1&hardware.model=llama-3.1-70b&hardware.tp=4&cluster.engine=batched&cluster.replicas=8&policies=${policies}`, { width: 1280, height: 900 });
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    await pickInPanel(page, { name: 'chat.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(chatLog()) });
    await page.waitForFunction(() => /^Replayed chat\.jsonl/.test(document.querySelector('#status').textContent), null, { timeout: 120_000 });
    const shown = await fit(page);
    for (const col of ['mean_tpot_ms', 'output_tokens_per_s', 'later_call_hit_rate', 'one_replica_session_share']) assert.ok(shown.columns.includes(col), `${col} shown: ${shown.columns}`);
    assert.ok(shown.table <= shown.box + 1, `the table (${shown.table} px) fits its box (${shown.box} px)`);
    assert.deepEqual(shown.right, []);
    assert.equal(shown.cue, null, 'no cue when nothing is cut off');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('on a 390 px phone the table scrolls sideways, and a cue on the first screen names the columns out of view', async () => {
    const { page, problems } = await openIn(session.context, session.server.url, { width: 390, height: 844 });
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    await page.waitForFunction(() => document.querySelector('#results-table tbody tr') && !document.querySelector('#table-cue')?.hidden, null, { timeout: 60_000 }).catch(() => {});
    const start = await fit(page);
    assert.ok(start.table > start.box, 'the table is wider than the phone');
    assert.ok(start.right.length > 0);
    assert.ok(start.right.includes('Prefill tokens') && start.right.includes('Imbalance'), start.right.join(', '));
    assert.equal(start.cue, `Scroll the table sideways for ${start.right.length} more column${start.right.length === 1 ? '' : 's'}: → ${start.right.join(', ')}.`);
    assert.ok(start.cueTop > 0 && start.cueTop < 844, `the cue is on the first screen (${start.cueTop} px)`);
    // Scrolled to the end, the cue names the columns now out of view on the left.
    await page.$eval('.table-wrap', (w) => { w.scrollLeft = w.scrollWidth; });
    await page.waitForFunction(() => /←/.test(document.querySelector('#table-cue').textContent));
    const end = await fit(page);
    assert.deepEqual(end.right, []);
    assert.ok(end.left.length > 0);
    assert.equal(end.cue, `Scroll the table sideways for ${end.left.length} more column${end.left.length === 1 ? '' : 's'}: ← ${end.left.join(', ')}.`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
