// End-to-end tests of the embed in Debian's Chromium: the author chooses in
// the Embed box, the snippet goes into a blog page served from another
// origin, and at 320, 390, 700 and 1200 px the frame shows the chosen view
// with no clipped column, no inner scrollbar and its height equal to its
// content; the options the box wrote are the ones the frame applies; an
// uploaded file's embed is refused with its message; the capacity view
// searches at its link's SLO and shows the command line's GPUs per policy.
// Also takes the screenshots docs/guide/embedding.md shows (embed-390.png,
// embed-700.png, embed-capacity-390.png; harness.mjs docScreenshot says where).
// One browser, one blog page reused across widths.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, benchOutput, docScreenshot, openIn, startSession } from './harness.mjs';
import { serveStatic } from './server.mjs';
import { pickInPanel } from './trace-table.mjs';

const WIDTHS = [320, 390, 700, 1200];
const EXCERPT = join(ROOT, 'scenarios/traces/mooncake-conversation-first-1000.jsonl');

let session;
let blogServer;
let blogDir;
let full;

/**
 * A blog post with the snippet between two paragraphs: the column is the
 * viewport (no margins), or at most `column` px wide and centred; `colours`
 * are its background and text.
 */
function blogPage(snippet, { column = 0, background = '#fff', color = '#222' } = {}) {
  const width = column ? `max-width:${column}px;margin:0 auto;padding:0 20px;` : 'margin:0;';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>A blog post</title><link rel="icon" href="data:,"><style>body{${width}font:17px/1.6 Georgia,serif;background:${background};color:${color}}h1,p{margin:16px 0;padding:0 0}</style></head>
<body><h1>Routing with prefix caches</h1><p>Here is the comparison, live:</p>
${snippet}
<p id="after">The text after the embed.</p></body></html>`;
}

/** Writes the blog page and opens (or reloads) it in `page` at `width`. */
async function showBlog(page, snippet, width, name = 'post.html', look = {}) {
  writeFileSync(join(blogDir, name), blogPage(snippet, look));
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${blogServer.url}${name}`);
  return page.frameLocator('iframe');
}

/** Waits until the frame's element box height equals its document's height (the host script applied it) and returns both. */
async function settledHeights(page) {
  const frame = page.frames().find((f) => f !== page.mainFrame());
  let last = null;
  for (let i = 0; i < 100; i++) {
    const outer = await page.$eval('iframe', (f) => f.getBoundingClientRect().height);
    const inner = await frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));
    if (last && last.outer === outer && last.inner === inner && Math.abs(outer - inner) < 1) return { outer, inner, frame };
    last = { outer, inner };
    await page.waitForTimeout(100);
  }
  return { ...last, frame };
}

/** What the frame shows at its width: scrollbars, clipped columns, visible parts. */
function frameLayout(frame) {
  return frame.evaluate(() => {
    const visible = (sel) => {
      const el = document.querySelector(sel);
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    };
    const wrap = document.querySelector('.table-wrap');
    const table = document.querySelector('#results-table');
    const wrapBox = wrap.getBoundingClientRect();
    const clipped = [...table.querySelectorAll('th, td')]
      .filter((c) => c.getBoundingClientRect().width > 0)
      .filter((c) => c.getBoundingClientRect().right > wrapBox.right + 1 || c.getBoundingClientRect().left < wrapBox.left - 1)
      .map((c) => c.dataset.col ?? c.textContent);
    const root = document.documentElement;
    return {
      verticalScroll: root.scrollHeight > window.innerHeight + 1,
      horizontalScroll: root.scrollWidth > window.innerWidth + 1,
      tableScrolls: visible('#results-table') && table.scrollWidth > wrap.clientWidth + 1,
      clipped,
      shownColumns: [...table.querySelectorAll('thead th[data-col]')].filter((c) => c.getBoundingClientRect().width > 0).map((c) => c.dataset.col),
      table: visible('#results-table'),
      charts: ['ttft', 'hits', 'cdf', 'load', 'sweep'].filter((id) => visible(`#chart-${id} canvas`)),
      capacity: visible('#capacity-gpus'),
      picker: visible('#embed-metric'),
      controls: [...document.querySelectorAll('.embed-reader-control')].filter((el) => el.getBoundingClientRect().height > 0).map((el) => el.dataset.key),
      theme: document.documentElement.dataset.theme ?? 'auto',
      linkMessages: visible('#link-messages') ? document.querySelector('#link-messages ul').textContent : '',
      rows: document.querySelectorAll('#results-table tbody tr').length,
      problems: visible('#problems') ? document.querySelector('#problems').textContent : '',
    };
  });
}

/** Sets the Embed box's choices on the full page and returns the snippet. */
async function chooseSnippet(page, { view = 'table-chart', chart = 'ttft', theme = 'host', controls = [] } = {}) {
  await page.evaluate(() => {
    document.querySelector('#embed-details').open = true;
  });
  await page.selectOption('#embed-view', view);
  if (view === 'chart' || view === 'table-chart') await page.selectOption('#embed-chart', chart);
  await page.selectOption('#embed-theme', theme);
  for (let i = 0; i < 3; i++) await page.selectOption(`#embed-control-${i + 1}`, controls[i] ?? '');
  return page.inputValue('#embed-snippet');
}

/** A local port nothing listens on (it was free a moment ago). */
function closedPort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const waitRows = (frameLocator) => frameLocator.locator('#results-table tbody tr').first().waitFor();

/**
 * Types a p99 TTFT bound into the full page's Capacity section, as an author
 * would ('0': none), and waits until the page has re-run with it (the link,
 * and so the snippet, carries it).
 */
async function setSlo(page, ms) {
  await page.waitForSelector('#capacity-slo-ttft_ms');
  await page.fill('#capacity-slo-ttft_ms', ms);
  await page.dispatchEvent('#capacity-slo-ttft_ms', 'change');
  await page.waitForFunction((want) => (new URLSearchParams(window.location.search).get('slo.ttft_ms') ?? '0') === want, ms);
}

/** Waits for the capacity search in a frame (or page) to end; returns its state. */
async function capacityDone(frame) {
  await frame.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('#capacity')?.dataset.state ?? ''), null, { timeout: 120_000 });
  return frame.evaluate(() => document.querySelector('#capacity').dataset.state);
}

/** The capacity bars' figures: policy -> value (null where the SLO was not met), for one metric. */
function capacityBars(frame, metric) {
  return frame.$$eval(`#capacity [data-metric="${metric}"]`, (rows) => rows.map((r) => [r.dataset.policy, r.dataset.value === '' ? null : Number(r.dataset.value)]));
}

before(async () => {
  session = await startSession({ mount: '/site/' });
  blogDir = mkdtempSync(join(tmpdir(), 'prefixroute-blog-'));
  blogServer = await serveStatic(blogDir, '/blog/');
  full = await openIn(session.context, `${session.server.url}?v=1&seed=7`);
  await full.page.waitForSelector('#results-table tbody tr');
});

after(async () => {
  await full?.page.close();
  await blogServer?.close();
  await session?.close();
  if (blogDir) rmSync(blogDir, { recursive: true, force: true });
});

describe('embed', () => {
  test('table and a chart at 320-1200 px: fits its content, no scrollbar, no clipped column; options round-trip', async (t) => {
    const options = { view: 'table-chart', chart: 'cdf', theme: 'dark', controls: ['cluster.replicas', 'workload.requests'] };
    const snippet = await chooseSnippet(full.page, options);
    assert.match(snippet, /embed\.view|embed\.chart=cdf/);
    assert.match(snippet, /embed\.chart=cdf&amp;embed\.theme=dark&amp;embed\.controls=cluster\.replicas,workload\.requests/);
    assert.match(snippet, /<script>[\s\S]*prefixroute:height[\s\S]*<\/script>$/);
    const { page, problems } = await openIn(session.context, 'about:blank');
    let frame = await showBlog(page, snippet, WIDTHS[0]);
    await waitRows(frame);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const { outer, inner, frame: f } = await settledHeights(page);
      const layout = await frameLayout(f);
      assert.ok(Math.abs(outer - inner) < 1, `${width}px: frame ${outer} px high, its content ${inner} px`);
      t.diagnostic(`${width} px column: frame ${outer} px high`);
      assert.equal(layout.verticalScroll, false, `${width}px: no vertical scrollbar in the frame`);
      assert.equal(layout.horizontalScroll, false, `${width}px: no horizontal scrollbar in the frame`);
      assert.equal(layout.tableScrolls, false, `${width}px: the table does not scroll sideways`);
      assert.deepEqual(layout.clipped, [], `${width}px: no clipped column`);
      assert.equal(layout.table, true);
      assert.deepEqual(layout.charts, ['cdf'], `${width}px: the chosen chart only`);
      assert.deepEqual(layout.controls.sort(), [...options.controls].sort(), `${width}px: the reader controls`);
      assert.equal(layout.theme, 'dark');
      assert.equal(layout.linkMessages, '');
      assert.equal(layout.problems, '', `${width}px: no problem shown`);
      // Narrow frames show one metric column and the picker; wide ones every main column.
      if (layout.picker) assert.equal(layout.shownColumns.length, 1, `${width}px: ${layout.shownColumns}`);
      else assert.ok(layout.shownColumns.length >= 5, `${width}px: ${layout.shownColumns}`);
      if (width === 320 || width === 390) assert.equal(layout.picker, true, `${width}px: the metric picker`);
      if (width === 390 || width === 700) {
        await page.screenshot({ path: docScreenshot(`embed-${width}.png`), fullPage: true });
      }
    }
    // The reader changes a control in place: the frame re-runs and still fits.
    frame = page.frameLocator('iframe');
    await page.setViewportSize({ width: 390, height: 900 });
    const runs = await frame.locator('#status').getAttribute('data-runs');
    await frame.locator('[data-key="cluster.replicas"] input').fill('2');
    await frame.locator('[data-key="cluster.replicas"] input').dispatchEvent('change');
    const inFrame = page.frames().find((f) => f !== page.mainFrame());
    await inFrame.waitForFunction((before) => Number(document.querySelector('#status').dataset.runs) > Number(before), runs, { timeout: 30_000 });
    const after = await settledHeights(page);
    assert.ok(Math.abs(after.outer - after.inner) < 1);
    // The narrow table's metric picker changes the one column shown.
    await frame.locator('#embed-metric').selectOption('hit_rate');
    assert.deepEqual((await frameLayout(after.frame)).shownColumns, ['hit_rate']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('each view, chart and theme the box offers is what the frame shows (700 px)', async (t) => {
    const { page, problems } = await openIn(session.context, 'about:blank');
    const cases = [
      { options: { view: 'table', theme: 'light' }, table: true, charts: [], theme: 'light' },
      { options: { view: 'chart', chart: 'load', theme: 'host' }, table: false, charts: ['load'], theme: 'light' /* the blog is white */ },
      { options: { view: 'chart', chart: 'hits', theme: 'dark' }, table: false, charts: ['hits'], theme: 'dark' },
      { options: { view: 'sweep' }, table: false, charts: ['sweep'], theme: 'light' },
    ];
    for (const c of cases) {
      const snippet = await chooseSnippet(full.page, c.options);
      const frame = await showBlog(page, snippet, 700);
      await frame.locator('#status[data-runs]').waitFor({ state: 'attached' });
      if (c.options.view === 'sweep') await frame.locator('#chart-sweep canvas').waitFor({ state: 'visible' });
      const { outer, inner, frame: f } = await settledHeights(page);
      const layout = await frameLayout(f);
      const what = JSON.stringify(c.options);
      assert.ok(Math.abs(outer - inner) < 1, `${what}: frame ${outer}, content ${inner}`);
      t.diagnostic(`${what}: frame ${outer} px high`);
      assert.equal(layout.verticalScroll, false, what);
      assert.equal(layout.table, c.table, what);
      assert.deepEqual(layout.charts, c.charts, what);
      assert.equal(layout.theme, c.theme, what);
      assert.deepEqual(layout.controls, [], what);
      assert.equal(layout.problems, '', what);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('"follow the host page" colours (the default): a dark blog gets the dark colours, a light one the light', async () => {
    const snippet = await chooseSnippet(full.page, { view: 'chart', chart: 'ttft' });
    assert.match(snippet, /\[\\d\.\]\+/, 'the host script reads the digits of the background colour');
    const { page, problems } = await openIn(session.context, 'about:blank');
    for (const [look, want] of [[{ background: 'rgb(22, 24, 29)', color: '#ddd' }, 'dark'], [{ background: '#fdfdf8' }, 'light']]) {
      await showBlog(page, snippet, 700, 'post.html', look);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      await frame.waitForFunction((theme) => document.documentElement.dataset.theme === theme, want, { timeout: 30_000 });
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('without the host script (stripped by the blog), the frame holds all its content at 390, 700 and 1200 px: chart, table, sweep, capacity', async (t) => {
    const { page, problems } = await openIn(session.context, 'about:blank');
    const cases = [{ view: 'chart', chart: 'ttft', controls: ['cluster.replicas'] }, { view: 'table' }, { view: 'sweep' }, { view: 'capacity' }];
    for (const c of cases) {
      // The capacity view searches at the scenario's SLO: the author sets one first.
      if (c.view === 'capacity') await setSlo(full.page, '2000');
      const snippet = (await chooseSnippet(full.page, c)).replace(/<script>[\s\S]*<\/script>/, '');
      assert.doesNotMatch(snippet, /<script/);
      // Loaded once, then the reader's screen resized: the CSS height follows the width, the content reflows.
      await showBlog(page, snippet, 390, 'no-script.html', { column: 700 });
      const frame = page.frames().find((f) => f !== page.mainFrame());
      await frame.waitForSelector('#status[data-runs]', { state: 'attached' });
      if (c.view === 'sweep') await frame.waitForSelector('#chart-sweep canvas', { state: 'visible' });
      if (c.view === 'capacity') assert.equal(await capacityDone(frame), 'done');
      for (const width of [390, 700, 1200]) {
        await page.setViewportSize({ width, height: 900 });
        // The content's height once it stops changing (the charts drawn).
        let last = -1;
        let size;
        for (let i = 0; i < 50; i++) {
          size = await frame.evaluate(() => ({ content: document.documentElement.scrollHeight, frame: document.documentElement.clientHeight, used: Math.ceil(document.body.getBoundingClientRect().bottom) }));
          if (size.content === last) break;
          last = size.content;
          await page.waitForTimeout(150);
        }
        t.diagnostic(`${c.view} at ${width} px: frame ${size.frame} px, content ${size.used} px`);
        assert.ok(size.content <= size.frame + 1, `${c.view} at ${width} px: ${size.content - size.frame} px of content cut off`);
      }
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('the capacity view: refused without an SLO; with one, the frame searches at its link’s SLO, shows the command line’s GPUs per policy and fits at 320-1200 px', async (t) => {
    await setSlo(full.page, '0');
    assert.equal(await chooseSnippet(full.page, { view: 'capacity' }), '');
    assert.ok(await full.page.isVisible('#embed-view-note'));
    assert.match(await full.page.textContent('#embed-view-note'), /searches at the SLO its link carries, and this scenario has none/);
    assert.ok(await full.page.isDisabled('#copy-embed'));

    await setSlo(full.page, '2000');
    const snippet = await chooseSnippet(full.page, { view: 'capacity' });
    assert.ok(await full.page.isHidden('#embed-view-note'));
    assert.match(snippet, /[?&;]slo\.ttft_ms=2000&amp;/);
    assert.match(snippet, /embed\.view=capacity/);
    const native = JSON.parse(benchOutput(session.bench, ['--capacity'], [['seed', '7'], ['slo.ttft_ms', '2000']]));

    const { page, problems } = await openIn(session.context, 'about:blank');
    await showBlog(page, snippet, WIDTHS[0]);
    let frame = page.frames().find((f) => f !== page.mainFrame());
    assert.equal(await capacityDone(frame), 'done', await frame.textContent('#capacity-status'));
    assert.deepEqual(await capacityBars(frame, 'gpus'), native.results.map((r) => [r.policy, r.gpus]));
    assert.deepEqual(await capacityBars(frame, 'max_load'), native.results.map((r) => [r.policy, r.max_load]));
    assert.match(await frame.textContent('#capacity-sentence'), /^At p99 TTFT ≤ 2,000 ms and 100 requests\/s: /);
    assert.equal(await frame.inputValue('#capacity-slo-ttft_ms'), '2000');
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const { outer, inner, frame: f } = await settledHeights(page);
      frame = f;
      const layout = await frameLayout(frame);
      t.diagnostic(`capacity at ${width} px: frame ${outer} px high`);
      assert.ok(Math.abs(outer - inner) < 1, `${width}px: frame ${outer} px high, its content ${inner} px`);
      assert.equal(layout.verticalScroll, false, `${width}px: no vertical scrollbar`);
      assert.equal(layout.horizontalScroll, false, `${width}px: no horizontal scrollbar`);
      assert.equal(layout.capacity, true, `${width}px: the capacity bars`);
      assert.equal(layout.table, false, `${width}px: no results table`);
      assert.deepEqual(layout.charts, [], `${width}px: no results chart`);
      assert.equal(layout.problems, '', `${width}px: no problem shown`);
      if (width === 390) {
        await page.screenshot({ path: docScreenshot('embed-capacity-390.png'), fullPage: true });
      }
    }
    // The reader types another bound in the frame and searches again: the command line's answer for it.
    await frame.fill('#capacity-slo-ttft_ms', '500');
    await frame.dispatchEvent('#capacity-slo-ttft_ms', 'change');
    await frame.click('#capacity-run');
    await frame.waitForFunction(() => /≤ 500 ms/.test(document.querySelector('#capacity-sentence')?.textContent ?? ''), null, { timeout: 120_000 });
    const tighter = JSON.parse(benchOutput(session.bench, ['--capacity'], [['seed', '7'], ['slo.ttft_ms', '500']]));
    assert.equal(await capacityDone(frame), 'done');
    assert.deepEqual(await capacityBars(frame, 'gpus'), tighter.results.map((r) => [r.policy, r.gpus]));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('a hand-written embed link: unknown keys and bad values are named, quietly; the timeline view shows the timeline', async () => {
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1&embed=1&chart=cdf&embed.view=timeline&embed.theme=purple&embed.size=2`, { width: 390, height: 900 });
    await page.waitForSelector('#results-table tbody tr', { state: 'attached' });
    await page.waitForSelector('#timeline', { state: 'visible' });
    const notes = await page.$$eval('#link-messages li', (li) => li.map((x) => x.textContent));
    assert.ok(notes.some((n) => /"chart".*embed\.chart/.test(n)), JSON.stringify(notes));
    assert.ok(notes.some((n) => /embed\.theme: "purple" is not allowed; use host, light or dark/.test(n)), JSON.stringify(notes));
    assert.ok(notes.some((n) => /"embed\.size": not an embed option/.test(n)), JSON.stringify(notes));
    // A link (made by hand) that replays an uploaded file: the reader is told why nothing shows, not asked for the file.
    await page.goto(`${session.server.url}?v=1&embed=1&trace.name=mine.jsonl&trace.content_hash=0123456789abcdef`);
    await page.waitForFunction(() => !document.querySelector('#embed-note').hidden);
    assert.match(await page.textContent('#embed-note'), /replays “mine\.jsonl”, a file on its author’s computer, which a link cannot carry/);
    assert.doesNotMatch(await page.textContent('#status'), /Waiting/);
    // A hosted trace that cannot be reached (embed.html allows the https fetch; nothing listens on the port): a clear message.
    const sha = 'ab'.repeat(32);
    const port = await closedPort();
    await page.goto(`${session.server.url}embed.html?v=1&embed=1&embed.trace_url=${encodeURIComponent(`https://127.0.0.1:${port}/t.jsonl`)}&embed.trace_sha256=${sha}`);
    await page.waitForFunction(() => !document.querySelector('#embed-note').hidden);
    assert.match(await page.textContent('#embed-note'), new RegExp(`The trace at https://127\\.0\\.0\\.1:${port}/t\\.jsonl could not be fetched`));
    assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED/.test(p)), []);
    await page.close();
  });

  test('an uploaded file is not offered as an embed: the box says why and offers the excerpt or a hosted URL', async () => {
    const { page, problems } = await openIn(session.context, `${session.server.url}?v=1`);
    await page.waitForSelector('#results-table tbody tr');
    const bytes = readFileSync(EXCERPT);
    await pickInPanel(page, { name: 'mine.jsonl', mimeType: 'application/jsonl', buffer: bytes });
    await page.waitForFunction(() => /^Replayed mine\.jsonl/.test(document.querySelector('#status').textContent), null, { timeout: 120_000 });
    await page.evaluate(() => {
      document.querySelector('#embed-details').open = true;
    });
    assert.ok(await page.isVisible('#embed-trace'));
    assert.match(await page.textContent('#embed-trace-text'), /your file “mine\.jsonl”\. An embed cannot carry a file/);
    assert.ok(await page.isHidden('#embed-snippet'));
    assert.ok(await page.isDisabled('#copy-embed'));
    // Not https: refused with its reason.
    await page.fill('#embed-trace-url', 'http://example.org/mine.jsonl');
    await page.click('#embed-use-url');
    assert.match(await page.textContent('#embed-trace-error'), /not an https URL/);
    // Hosted: the link carries the URL and the file's SHA-256, and uses the embed document.
    await page.fill('#embed-trace-url', 'https://example.org/traces/mine.jsonl');
    await page.click('#embed-use-url');
    await page.waitForFunction(() => document.querySelector('#embed-snippet').value.includes('trace_sha256'));
    const hosted = await page.inputValue('#embed-snippet');
    const sha = createHash('sha256').update(bytes).digest('hex');
    assert.match(hosted, new RegExp(`/embed\\.html\\?v=1&amp;.*embed\\.trace_url=https%3A%2F%2Fexample\\.org%2Ftraces%2Fmine\\.jsonl&amp;embed\\.trace_sha256=${sha}"`));
    assert.doesNotMatch(hosted, /trace\.name=/);
    // The shipped excerpt instead.
    await page.click('#embed-use-excerpt');
    const excerpt = await page.inputValue('#embed-snippet');
    assert.match(excerpt, /trace=mooncake-excerpt/);
    assert.doesNotMatch(excerpt, /embed\.html|trace\.name=/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
