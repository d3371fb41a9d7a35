// End-to-end test of the guide site (docs/guide built by VitePress into
// web/dist/guide, scripts/build-guide.sh), served with the playground under a
// sub-path, in Debian's Chromium: the embedding and routers pages carry the
// Embed box's own <iframe> (the box's snippet for the same link, its address
// made relative to the guide), and each frame runs live there, its table one
// row per policy with the numbers `prefixroute` gives for the link's scenario.
// The guide links to the playground, and the playground to the guide.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT, SHOTS, benchOutput, openIn, startSession } from './harness.mjs';

let session;

before(async () => {
  session = await startSession({ mount: '/pages/prefixroute/' });
});

after(async () => {
  await session?.close();
});

/** The live embeds of a guide page's Markdown: each `html prefixroute-embed` block's <iframe> line. */
function markdownEmbeds(page) {
  const text = readFileSync(join(ROOT, 'docs/guide', page), 'utf8');
  return [...text.matchAll(/^```html prefixroute-embed\n(<iframe [^\n]*<\/iframe>)\n```$/gm)].map((m) => m[1]);
}

/** The scenario pairs of an embed link (not its embed options): what the frame runs, for the command line. */
const scenarioSets = (src) => [...new URL(src, 'http://x/').searchParams].filter(([k]) => k !== 'v' && k !== 'embed' && !k.startsWith('embed.'));

/**
 * Checks every live embed of a guide page: its <iframe> is the one the
 * playground's Embed box writes for its link (address made relative), and
 * on the built page the frame's table is the command line's for that link,
 * one row per policy.
 */
async function checkEmbeds(name, heading) {
  const iframes = markdownEmbeds(name);
  assert.ok(iframes.length > 0, `docs/guide/${name} carries a live embed`);
  for (const iframe of iframes) {
    const src = /src="([^"]+)"/.exec(iframe)[1].replace(/&amp;/g, '&');
    assert.match(src, /^\.\.\/embed\.html\?/, 'relative to the guide, so it works under any sub-path');
    // The same <iframe> the playground's Embed box writes for that link, its address made relative.
    const query = src.slice(src.indexOf('?')).replace(/&embed=1(&|$)/, '$1');
    const full = await openIn(session.context, `${session.server.url}${query}`);
    await full.page.waitForSelector('#results-table tbody tr');
    await full.page.evaluate(() => {
      document.querySelector('#embed-details').open = true;
    });
    const snippet = await full.page.inputValue('#embed-snippet');
    assert.equal(iframe, snippet.split('\n')[0].replace(session.server.url, '../embed.html'),
      `docs/guide/${name}: the frame is no longer what the Embed box writes for ${query}: paste the box's <iframe> line`);
    assert.deepEqual(full.problems, []);
    await full.page.close();
  }

  // The built guide page, served beside the playground.
  const { page, problems } = await openIn(session.context, `${session.server.url}guide/${name.replace(/\.md$/, '.html')}`);
  assert.match(await page.textContent('h1'), heading);
  const frames = page.locator('.prefixroute-embed iframe');
  assert.equal(await frames.count(), iframes.length);
  const columns = ['mean_ttft_ms', 'p99_ttft_ms', 'hit_rate', 'prefill_tokens'];
  for (let i = 0; i < iframes.length; i++) {
    const element = frames.nth(i);
    const src = await element.getAttribute('src');
    assert.equal(new URL(await element.evaluate((f) => f.src)).pathname, '/pages/prefixroute/embed.html');
    await element.scrollIntoViewIfNeeded();
    await page.frameLocator('.prefixroute-embed iframe').nth(i).locator('#results-table tbody tr').first().waitFor({ timeout: 120_000 });
    const inFrame = await (await element.elementHandle()).contentFrame();
    const shown = await inFrame.$$eval('#results-table tbody tr', (rows, cols) => rows.map((tr) => [
      tr.dataset.policy,
      Object.fromEntries(cols.map((c) => [c, Number(tr.querySelector(`td[data-col="${c}"]`).dataset.value)])),
    ]), columns);
    const cli = JSON.parse(benchOutput(session.bench, [], scenarioSets(src)));
    const expected = cli.results.map((r) => [r.policy, Object.fromEntries(columns.map((c) => [c, r[c]]))]);
    assert.ok(expected.length >= 2, `${expected.length} policies`);
    assert.deepEqual(shown, expected);
  }
  await page.screenshot({ path: join(SHOTS, `guide-${name.replace(/\.md$/, '')}.png`), fullPage: true });
  // The guide's way back to the playground.
  const back = new URL(await page.getAttribute('a.VPNavBarMenuLink[href$="index.html"]', 'href'), page.url());
  assert.equal(back.pathname, '/pages/prefixroute/index.html');
  assert.deepEqual(problems, []);
  await page.close();
}

describe('the guide', () => {
  test('the embedding page runs the Embed box’s own frame live: one row per policy, the command line’s numbers', async () => {
    await checkEmbeds('embedding.md', /^Embedding the playground in a page\b/);
  });

  test('the routers page runs its reference-scenario frame live, with the command line’s numbers', async () => {
    await checkEmbeds('routers.md', /^Production routers side by side\b/);
  });

  test('the playground links to the guide, and the guide’s index lists its pages', async () => {
    const { page, problems } = await openIn(session.context, session.server.url);
    const href = await page.getAttribute('a#guide-link', 'href');
    await page.goto(new URL(href, page.url()).href);
    assert.equal(new URL(page.url()).pathname, '/pages/prefixroute/guide/');
    assert.match(await page.textContent('h1'), /^Guide\b/);
    const pages = await page.$$eval('.vp-doc a[href$=".html"]', (as) => as.map((a) => a.getAttribute('href')));
    assert.ok(pages.includes('./embedding.html'), pages.join(' '));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
