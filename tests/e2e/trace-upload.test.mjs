// End-to-end tests of loading one's own trace file in the built playground
// (web/dist), in Debian's Chromium: the file runs on the cluster the reader
// set (replicas, the cache per replica, the capacity the chosen hardware
// derives), never changed behind their back, with the command line's numbers;
// a cache its prompts outgrow is said, and a larger one offered, applied
// only when taken; an OpenAI log that dates its requests with `created`
// (Unix seconds) instead of `timestamp` replays.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, openIn, startSession } from './harness.mjs';
import { benchTable, confirmImport, createdLog, linkSets, readTable } from './trace-table.mjs';

const EXCERPT = join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');

let session;
let dir;

const runs = (page) => page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));
const nextRun = (page, before) => page.waitForFunction((n) => Number(document.querySelector('#status').dataset.runs ?? '0') > n, before, { timeout: 120_000 });

async function upload(page, name, text) {
  const before = await runs(page);
  await page.setInputFiles('#trace-file', { name, mimeType: 'application/jsonl', buffer: Buffer.from(text) });
  await confirmImport(page);
  // Replayed, or refused with its bad line (then the test's next assertion says which).
  await page.waitForFunction((n) => document.querySelector('#status').textContent.startsWith(`Replayed ${n}`) ||
    !document.querySelector('#trace-problem').hidden, name, { timeout: 120_000 });
  const problem = await page.isVisible('#trace-problem') ? await page.textContent('#trace-problem') : '';
  assert.equal(problem, '', `${name} was replayed`);
  await nextRun(page, before);
}

before(async () => {
  session = await startSession({ mount: '/up/' });
  dir = mkdtempSync(join(tmpdir(), 'prefixroute-upload-'));
});

after(async () => {
  await session?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a trace file the reader loads', () => {
  test('runs on the cluster the reader set: replicas, and the cache the hardware derives, unchanged', async () => {
    const text = `${readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 120).join('\n')}\n`;
    const file = join(dir, 'mine.jsonl');
    writeFileSync(file, text);
    // Llama-3.1-70B on 4 x H100 per replica, 3 replicas: the hardware derives the cache per replica.
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&hardware.model=llama-3.1-70b&hardware.tp=4&cluster.replicas=3&policies=round_robin,affinity_balanced`);
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    const derived = /^Llama-3\.1-70B on 4 × [^:]+: ([\d,]+) cache tokens per replica \(derived\)/;
    const line = await page.textContent('#deployment-line');
    assert.match(line, derived);
    const capacity = derived.exec(line)[1];

    await upload(page, 'mine.jsonl', text);
    assert.equal(await page.inputValue('#field-cluster-replicas'), '3');
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '', 'the cache is still left to the hardware');
    assert.match(await page.textContent('#deployment-line'), new RegExp(`: ${capacity} cache tokens per replica \\(derived\\)`));
    const search = new URL(page.url()).searchParams;
    assert.equal(search.get('cluster.replicas'), '3');
    assert.equal(search.get('cluster.cache_tokens'), null);
    // The numbers are the command line's for the same file and scenario.
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, linkSets(page)));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('whose prompts outgrow the cache: the page says so and offers a larger cache, applied only when taken', async () => {
    const text = `${readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 60).join('\n')}\n`;
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&policies=round_robin,affinity`);
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    await upload(page, 'long-prompts.jsonl', text);
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '4000');
    assert.ok(await page.isVisible('#trace-cache-note'));
    assert.match(await page.textContent('#trace-cache-text'), /prompts average [\d,]+ tokens, more than a replica’s cache holds \(4,000 tokens\)/);
    const before = await runs(page);
    await page.click('#trace-cache-use');
    await nextRun(page, before);
    assert.equal(await page.inputValue('#field-cluster-cache_tokens'), '1000000');
    assert.equal(await page.inputValue('#field-cluster-replicas'), '4');
    assert.ok(await page.isHidden('#trace-cache-note'));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an OpenAI log dated by `created` (Unix seconds) replays, with the command line’s numbers', async () => {
    const text = createdLog();
    const file = join(dir, 'created.jsonl');
    writeFileSync(file, text);
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&policies=round_robin,least_loaded,affinity`);
    await page.waitForSelector('#status[data-runs]', { state: 'attached' });
    await upload(page, 'created.jsonl', text);
    assert.match(await page.textContent('#trace-status'), /^Replayed created\.jsonl \(openai format\): 24 requests from 24 lines/);
    assert.ok(await page.isHidden('#trace-problem'));
    assert.deepEqual(await readTable(page), benchTable(session.bench, file, linkSets(page)));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
