// End-to-end tests of a trace hosted at an https address, over real https:
// a local server with a self-signed certificate made for the test (openssl),
// which Chromium trusts through its SPKI pin alone
// (--ignore-certificate-errors-spki-list; every other certificate is still
// checked). A full-page link (trace.url, trace.sha256) and an embed
// (embed.trace_url, embed.trace_sha256) fetch the copy, check its SHA-256
// and replay it with the command line's numbers; a changed copy is refused.
// The request-interception tests (traffic-import, embed) cover the messages;
// these cover the network path: TLS, CORS and the page's
// Content-Security-Policy.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, DIST, ROOT } from './harness.mjs';
import { serveStatic } from './server.mjs';
import { benchTable, createdLog, readTable } from './trace-table.mjs';

const EXCERPT = join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');

let dir;
let site;
let hosted;
let context;
let bench;
/** The bodies the https server answers, by path; the paths asked for. */
const bodies = new Map();
const asked = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prefixroute-https-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    asked.push(req.url);
    const body = bodies.get(req.url);
    // A host that lets other sites read the file, as the page asks of one.
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
    res.end(body ?? 'not found');
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  hosted = { origin: `https://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => { server.close(done); server.closeAllConnections(); }) };
  // The certificate's public key pinned: Chromium accepts this certificate and checks every other one.
  const spki = createHash('sha256').update(createPublicKey(readFileSync(cert)).export({ type: 'spki', format: 'der' })).digest('base64');
  context = await chromium.launchPersistentContext(join(dir, 'chromium'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [...CHROMIUM_FLAGS, `--ignore-certificate-errors-spki-list=${spki}`],
  });
  context.setDefaultTimeout(120_000);
  site = await serveStatic(DIST, '/hosted/');
  // A private copy of the command line, as the harness keeps (a rebuild during the run cannot pull it away).
  bench = join(dir, 'prefixroute');
  copyFileSync(join(ROOT, 'build/native/tools/prefixroute'), bench);
  chmodSync(bench, 0o755);
});

after(async () => {
  await context?.close();
  await site?.close();
  await hosted?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A new page collecting errors. */
async function open(url, size = { width: 1280, height: 900 }) {
  const page = await context.newPage();
  await page.setViewportSize(size);
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  await page.goto(url);
  return { page, problems };
}

/** `text` hosted at `path` and written to a file of the test's folder (for the command line); its URL, file and SHA-256. */
function host(path, text) {
  bodies.set(path, text);
  const file = join(dir, path.split('/').pop());
  writeFileSync(file, text);
  return { url: `${hosted.origin}${path}`, file, sha: createHash('sha256').update(text).digest('hex') };
}

describe('a hosted trace over real https', () => {
  test('a full-page link fetches the copy over TLS, checks its SHA-256 and replays it with the command line’s numbers', async () => {
    const { url, file, sha } = host('/shared/chat.jsonl', createdLog());
    const query = `?v=1&policies=round_robin,affinity&cluster.replicas=3&trace.url=${encodeURIComponent(url)}&trace.sha256=${sha}`;
    const { page, problems } = await open(`${site.url}${query}`);
    await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('Replayed chat.jsonl'));
    assert.ok(asked.includes('/shared/chat.jsonl'), 'the page asked the https server for the copy');
    assert.deepEqual(await readTable(page), benchTable(bench, file, [['policies', 'round_robin,affinity'], ['cluster.replicas', '3']]));
    assert.equal(new URL(page.url()).searchParams.get('trace.url'), url, 'the link keeps the hosted copy');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('an embed of a hosted trace (embed.html) replays it over https, one row per policy', async () => {
    const text = `${readFileSync(EXCERPT, 'utf8').split('\n').slice(0, 200).join('\n')}\n`;
    const { url, file, sha } = host('/traces/excerpt-200.jsonl', text);
    const sets = [['policies', 'round_robin,least_loaded,affinity_balanced'], ['cluster.replicas', '4'], ['cluster.cache_tokens', '200000']];
    const query = `?v=1&${sets.map(([k, v]) => `${k}=${v}`).join('&')}&embed=1&embed.view=table&embed.trace_url=${encodeURIComponent(url)}&embed.trace_sha256=${sha}`;
    const { page, problems } = await open(`${site.url}embed.html${query}`);
    await page.waitForSelector('#results-table tbody tr');
    assert.ok(asked.includes('/traces/excerpt-200.jsonl'));
    const table = await page.$$eval('#results-table tbody tr', (rows) => Object.fromEntries(rows.map((tr) => [
      tr.dataset.policy,
      Object.fromEntries(['mean_ttft_ms', 'p99_ttft_ms', 'hit_rate', 'prefill_tokens'].map((c) => [c, Number(tr.querySelector(`td[data-col="${c}"]`).dataset.value)])),
    ])));
    assert.deepEqual(table, benchTable(bench, file, sets));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a copy changed since the link was made is refused over https too, and nothing runs', async () => {
    const text = createdLog();
    const sha = createHash('sha256').update(text).digest('hex');
    const { url } = host('/shared/changed.jsonl', `${text}{"created": 1767229999, "messages": [{"role": "user", "content": "x"}], "output_tokens": 1}\n`);
    const { page } = await open(`${site.url}?v=1&policies=round_robin&trace.url=${encodeURIComponent(url)}&trace.sha256=${sha}`);
    await page.waitForFunction(() => !document.querySelector('#problems').hidden);
    assert.match(await page.textContent('#problems'), /has changed since this link was made/);
    assert.equal(await page.$$eval('#results-table tbody tr', (rows) => rows.length), 0);
    await page.close();
  });
});
