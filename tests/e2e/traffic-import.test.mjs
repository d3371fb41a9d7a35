// End-to-end tests of the guided import of one's own traffic in the built
// playground (web/dist), in Debian's Chromium: a file picked from the
// control at the top of the page (visible without scrolling at 1280 px and
// on a phone) or dropped anywhere on the page is read first, and the dialog
// states what was read (checked figure by figure against `prefixroute
// --trace FILE --trace-summary --json`), how an openai log's keys were
// mapped (a choice there is a trace.*_field scenario field: in the link, in
// the "Same as" command, with the command line's numbers), and the cluster
// it will run on (the core's derived cache), unchanged unless the reader
// changes it there; Replay gives the command line's table. A full-page link
// to an https copy of the trace with its SHA-256 replays it on opening; a
// changed copy is refused with a banner.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, benchOutput, openIn, startSession } from './harness.mjs';
import { benchTable, createdLog, linkSets, readTable } from './trace-table.mjs';

const EXCERPT = join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');

let session;
let dir;

before(async () => {
  session = await startSession({ mount: '/import/' });
  dir = mkdtempSync(join(tmpdir(), 'prefixroute-import-'));
});

after(async () => {
  await session?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `text` written to a file of the test's directory; its path. */
function fileOf(name, text) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The command line's trace summary of `file` with these --set pairs. */
function cliSummary(file, sets = []) {
  return JSON.parse(benchOutput(session.bench, ['--trace', file, '--trace-summary'], sets));
}

const runs = (page) => page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));
const nextRun = (page, before) => page.waitForFunction((n) => Number(document.querySelector('#status').dataset.runs ?? '0') > n, before, { timeout: 120_000 });

async function opened(url, size) {
  const { page, problems } = await openIn(session.context, `${session.server.url}${url}`, size);
  await page.waitForSelector('#status[data-runs]', { state: 'attached' });
  return { page, problems };
}

/** Waits until the dialog states what was read (or a problem). */
async function readDone(page) {
  await page.waitForFunction(() => !document.querySelector('#import-cluster').hidden || !document.querySelector('#import-problem').hidden);
  assert.equal(await page.isVisible('#import-problem'), false, await page.textContent('#import-problem'));
}

/** Picks a file with the control at the top of the page. */
async function pick(page, name, text) {
  await page.setInputFiles('#import-file', { name, mimeType: 'application/jsonl', buffer: Buffer.from(text) });
  await readDone(page);
}

/** Drops a file on the page's results (not on any drop zone). */
async function drop(page, name, text) {
  const transfer = await page.evaluateHandle(([content, fileName]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], fileName, { type: 'application/jsonl' }));
    return dt;
  }, [text, name]);
  await page.dispatchEvent('#results-table', 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent('#results-table', 'drop', { dataTransfer: transfer });
  await readDone(page);
}

/** The figures the dialog states: { key: the core's number } and the texts. */
const dialogFigures = (page) => page.$$eval('#import-figures dd', (dds) => Object.fromEntries(dds.map((dd) => [dd.dataset.key, { value: Number(dd.dataset.value), text: dd.textContent }])));

/** The dialog's figures equal the command line's summary, and its texts show them. */
async function assertFigures(page, cli) {
  const shown = await dialogFigures(page);
  assert.equal(shown.requests.value, cli.requests);
  assert.equal(shown.duration_s.value, cli.duration_s);
  assert.equal(shown.request_rate_per_s.value, cli.request_rate_per_s);
  assert.equal(shown.prompt_tokens.value, cli.prompt_tokens.mean);
  assert.equal(shown.output_tokens.value, cli.output_tokens.mean);
  assert.equal(shown.sessions.value, cli.sessions?.count ?? 0);
  assert.equal(shown.shared_prefix_share.value, cli.shared_prefix_share);
  assert.equal(shown.ideal_hit_rate.value, cli.ideal_hit_rate);
  const count = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
  assert.match(shown.prompt_tokens.text, new RegExp(`p50 ${count(cli.prompt_tokens.p50)} · p99 ${count(cli.prompt_tokens.p99)}`));
  assert.match(shown.output_tokens.text, new RegExp(`p50 ${count(cli.output_tokens.p50)} · p99 ${count(cli.output_tokens.p99)}`));
  assert.match(shown.ideal_hit_rate.text, new RegExp(`^${(cli.ideal_hit_rate * 100).toFixed(1)}%`));
  assert.match(shown.shared_prefix_share.text, new RegExp(`^${(cli.shared_prefix_share * 100).toFixed(1)}%`));
  assert.equal(await page.getAttribute('#import-format', 'data-value'), cli.format);
}

/** Presses Replay and waits for the run. */
async function replay(page) {
  const before = await runs(page);
  await page.click('#import-replay');
  await nextRun(page, before);
  assert.ok(await page.isHidden('#import-dialog'));
  await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('Replayed'));
}

/** A Bailian trace: 3 chats of 3 turns, each turn re-sending the chat's blocks, 16-token blocks. */
function bailianTrace() {
  const lines = [];
  let id = 0;
  const roots = [];
  for (let turn = 1; turn <= 3; turn++) {
    for (let chat = 0; chat < 3; chat++) {
      const blocks = [];
      for (let t = 0; t < turn; t++) blocks.push(100 * chat + t, 100 * chat + 50 + t);
      const chatId = id++;
      if (turn === 1) roots[chat] = chatId;
      lines.push(JSON.stringify({
        chat_id: chatId,
        parent_chat_id: turn === 1 ? -1 : chatId - 3,
        timestamp: (turn - 1) * 20 + chat * 1.5,
        input_length: blocks.length * 16 - 5,
        output_length: 40 + chat,
        type: 'text',
        turn,
        hash_ids: blocks,
      }));
    }
  }
  return `${lines.join('\n')}\n`;
}

describe('the guided import', () => {
  test('the control sits at the top of the page, visible without scrolling at 1280 px and on a phone', async () => {
    for (const size of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      const { page, problems } = await opened('?v=1&policies=round_robin', size);
      const box = await page.locator('#import-open').boundingBox();
      assert.ok(box && box.y >= 0 && box.y + box.height <= size.height, `the control is on the first screen at ${size.width} px: ${JSON.stringify(box)}`);
      assert.ok(box.height >= 44, 'a 44 px target');
      assert.ok(await page.isVisible('#import-open'));
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test('an OpenAI log with `created`, dropped anywhere: the command line’s figures, created as the time, the derived cluster kept', async () => {
    const text = createdLog();
    const file = fileOf('created.jsonl', text);
    const { page, problems } = await opened('?v=1&hardware.model=llama-3.1-70b&hardware.tp=4&cluster.replicas=3&policies=round_robin,affinity_balanced');
    const line = await page.textContent('#deployment-line');
    const derived = /([\d,]+) cache tokens per replica \(derived\)/.exec(line);
    assert.ok(derived, line);
    await drop(page, 'created.jsonl', text);
    const cli = cliSummary(file, linkSets(page));
    assert.equal(cli.format, 'openai');
    assert.equal(cli.fields.time.read.created, 24);
    await assertFigures(page, cli);
    assert.match(await page.textContent('.import-map-text[data-part="time"]'), /from created for 24 requests/);
    // Only created is in the log: no choice of time to offer.
    assert.equal(await page.$('#import-map-time'), null);
    const cluster = await page.textContent('#import-cluster-text');
    assert.match(cluster, new RegExp(`^Will model Llama-3\\.1-70B on 3 × \\(4 × [^,]+, TP 4\\), cache ${derived[1]} tokens per replica \\(derived from the model and GPU\\)\\.$`));
    assert.equal(await page.inputValue('#import-replicas'), '3');
    assert.equal(await page.inputValue('#import-cache'), '');
    await replay(page);
    // The cluster is what the reader had: 3 replicas, the cache left to the hardware.
    assert.equal(await page.inputValue('#field-cluster-replicas'), '3');
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '');
    const search = new URL(page.url()).searchParams;
    assert.equal(search.get('cluster.replicas'), '3');
    assert.equal(search.get('cluster.cache_tokens'), null);
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, linkSets(page)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a Mooncake slice picked at the top; the cluster changes only when the reader changes it in the dialog', async () => {
    const text = `${readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 150).join('\n')}\n`;
    const file = fileOf('slice.jsonl', text);
    const { page, problems } = await opened('?v=1&cluster.cache_tokens=200000&policies=round_robin,least_loaded,affinity');
    await pick(page, 'slice.jsonl', text);
    const cli = cliSummary(file, linkSets(page));
    assert.equal(cli.format, 'mooncake');
    assert.equal(cli.sessions, null);
    await assertFigures(page, cli);
    assert.ok(await page.isHidden('#import-mapping'), 'a Mooncake trace has fixed keys: nothing to map');
    assert.match(await page.textContent('#import-cluster-text'), /^Will model 4 replicas \(the raw cost settings, no model\), cache 200,000 tokens per replica \(given\)\.$/);
    // The reader asks for 6 replicas in the dialog: the statement follows, and the replay uses it.
    await page.fill('#import-replicas', '6');
    await page.dispatchEvent('#import-replicas', 'change');
    await page.waitForFunction(() => document.querySelector('#import-cluster-text').dataset.replicas === '6');
    await replay(page);
    assert.equal(await page.inputValue('#field-cluster-replicas'), '6');
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '200000');
    assert.equal(new URL(page.url()).searchParams.get('cluster.replicas'), '6');
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, linkSets(page)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a Bailian trace: its sessions and figures are the command line’s, the cluster unchanged', async () => {
    const text = bailianTrace();
    const file = fileOf('bailian.jsonl', text);
    const { page, problems } = await opened('?v=1&cluster.replicas=2&cluster.cache_tokens=50000&policies=round_robin,affinity');
    await pick(page, 'bailian.jsonl', text);
    const cli = cliSummary(file, linkSets(page));
    assert.equal(cli.format, 'bailian');
    assert.deepEqual(cli.sessions, { count: 3, multi_request: 3 });
    await assertFigures(page, cli);
    assert.match((await dialogFigures(page)).sessions.text, /^3 \(3 of more than one request\)/);
    assert.match(await page.textContent('#import-cluster-text'), /^Will model 2 replicas .*cache 50,000 tokens per replica \(given\)\.$/);
    await replay(page);
    assert.equal(await page.inputValue('#field-cluster-replicas'), '2');
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '50000');
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, linkSets(page)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a mapping choice (sessions from user) is in the link and the "Same as" command, with the command line’s numbers', async () => {
    // session_id differs on every request, user groups them in pairs: the choice changes the sessions.
    const system = { role: 'system', content: 'A long shared system prompt about prefix caches and routers, '.repeat(4) };
    const lines = [];
    for (let i = 0; i < 16; i++) {
      lines.push(JSON.stringify({
        timestamp: i * 2,
        session_id: `s${i}`,
        user: `u${Math.floor(i / 2)}`,
        messages: [system, { role: 'user', content: `Turn ${i}` }],
        output_tokens: 20,
      }));
    }
    const text = `${lines.join('\n')}\n`;
    const file = fileOf('two-keys.jsonl', text);
    const { page, problems } = await opened('?v=1&cluster.cache_tokens=100000&policies=round_robin,affinity');
    await pick(page, 'two-keys.jsonl', text);
    await assertFigures(page, cliSummary(file, linkSets(page)));
    assert.equal((await dialogFigures(page)).sessions.value, 16);
    assert.equal(await page.inputValue('#import-map-session'), 'auto');
    await page.selectOption('#import-map-session', 'user');
    await page.waitForFunction(() => document.querySelector('#import-figures dd[data-key="sessions"]')?.dataset.value === '8');
    await assertFigures(page, cliSummary(file, [...linkSets(page), ['trace.session_field', 'user']]));
    assert.match(await page.textContent('.import-map-text[data-part="session"]'), /from user for 16 requests/);
    await replay(page);
    const search = new URL(page.url()).searchParams;
    assert.equal(search.get('trace.session_field'), 'user');
    const command = await page.textContent('#trace-command');
    assert.match(command, /^Same as: prefixroute --trace two-keys\.jsonl .*--set trace\.session_field=user/);
    // The command's pairs give the table on screen.
    const sets = [...command.matchAll(/--set ([^=\s]+)=(\S+)/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, sets));
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, linkSets(page)));
    // Sessions from user group the pairs (8 sessions of 2 calls); from session_id every request is its own.
    const withUser = JSON.parse(benchOutput(session.bench, ['--trace', file], sets));
    const withoutChoice = JSON.parse(benchOutput(session.bench, ['--trace', file], sets.filter(([k]) => k !== 'trace.session_field')));
    assert.equal(withUser.scenario.trace.session_field, 'user');
    assert.equal(withUser.results[0].multi_call_sessions, 8);
    assert.equal(withoutChoice.results[0].multi_call_sessions, undefined);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('Cancel runs nothing and leaves the page as it was', async () => {
    const { page, problems } = await opened('?v=1&policies=round_robin');
    const before = await runs(page);
    const url = page.url();
    await pick(page, 'created.jsonl', createdLog());
    await page.click('#import-cancel');
    assert.ok(await page.isHidden('#import-dialog'));
    assert.equal(await runs(page), before);
    assert.equal(page.url(), url);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('a full-page link to a hosted copy of the trace', () => {
  const URL_OF = 'https://traces.example.org/shared/chat.jsonl';

  async function serveHosted(page, text) {
    await page.route(URL_OF, (route) => route.fulfill({ status: 200, body: text, headers: { 'content-type': 'text/plain', 'access-control-allow-origin': '*' } }));
  }

  test('the share form makes it, and opening it fetches, checks and replays in one go', async () => {
    const text = createdLog();
    const file = fileOf('chat.jsonl', text);
    const sha = createHash('sha256').update(text).digest('hex');
    const { page, problems } = await opened('?v=1&policies=round_robin,affinity');
    await pick(page, 'chat.jsonl', text);
    await replay(page);
    await page.fill('#trace-host-url', URL_OF);
    await page.click('#trace-host-use');
    await page.waitForFunction(() => new URL(location.href).searchParams.has('trace.sha256'));
    const link = new URL(page.url());
    assert.equal(link.searchParams.get('trace.url'), URL_OF);
    assert.equal(link.searchParams.get('trace.sha256'), sha);
    assert.equal(link.searchParams.get('trace.name'), null);
    const table = await readTable(page);
    await page.close();

    const colleague = await openIn(session.context, 'about:blank');
    await serveHosted(colleague.page, text);
    await colleague.page.goto(link.href);
    await colleague.page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('Replayed chat.jsonl'));
    assert.deepEqual(await readTable(colleague.page), table);
    assert.deepEqual(await readTable(colleague.page), benchTable(session.bench, file, linkSets(colleague.page)));
    assert.equal(new URL(colleague.page.url()).searchParams.get('trace.url'), URL_OF, 'the link keeps the hosted copy');
    assert.deepEqual(problems, []);
    assert.deepEqual(colleague.problems.filter((p) => !p.includes('Failed to load resource')), []);
    await colleague.page.close();
  });

  test('a changed copy is refused with a banner, and nothing runs', async () => {
    const text = createdLog();
    const sha = createHash('sha256').update(text).digest('hex');
    const { page } = await openIn(session.context, 'about:blank');
    await serveHosted(page, `${text}{"created": 1767229999, "messages": [{"role": "user", "content": "x"}], "output_tokens": 1}\n`);
    await page.goto(`${session.server.url}?v=1&policies=round_robin&trace.url=${encodeURIComponent(URL_OF)}&trace.sha256=${sha}`);
    await page.waitForFunction(() => !document.querySelector('#problems').hidden);
    assert.match(await page.textContent('#problems'), /The trace at https:\/\/traces\.example\.org\/shared\/chat\.jsonl has changed since this link was made/);
    assert.match(await page.textContent('#status'), /could not be used: nothing was run/);
    assert.equal(await page.$$eval('#results-table tbody tr', (rows) => rows.length), 0);
    await page.close();
  });

  test('an unreachable copy gives a banner naming it', async () => {
    const { page } = await openIn(session.context, 'about:blank');
    await page.route(URL_OF, (route) => route.fulfill({ status: 404, body: 'gone', headers: { 'access-control-allow-origin': '*' } }));
    await page.goto(`${session.server.url}?v=1&policies=round_robin&trace.url=${encodeURIComponent(URL_OF)}&trace.sha256=${'0'.repeat(64)}`);
    await page.waitForFunction(() => !document.querySelector('#problems').hidden);
    assert.match(await page.textContent('#problems'), /could not be fetched: the server answered 404/);
    await page.close();
  });
});
