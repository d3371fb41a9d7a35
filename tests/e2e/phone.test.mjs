// The page on a phone (390 x 844), in Debian's Chromium: every visible
// pointer target is at least 24 x 24 CSS px or, smaller, has the spacing WCAG
// 2.2 (2.5.8) accepts instead (a 24 px circle on its centre touches no other
// target nor another small target's circle; links inside a sentence are
// exempt); the main controls are at least 44 px tall; and a reader editing a
// field far down the form sees the run it started (a bar at the bottom of the
// screen with the new lowest p99, the table's figure) and gets back to the
// results in one tap; the Embed box open keeps the page on the screen's
// width, its snippet wrapping in its own box and copied whole. One page for
// the file. Run by scripts/test-e2e.sh.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SHOTS, openIn, startSession } from './harness.mjs';

const WIDTH = 390;
const HEIGHT = 844;
/** The main controls: share, export, preset, the runs of the sweep and the capacity search, the trace preset, the jumps. */
const MAIN = ['#copy-link', '#export-json', '#export-csv', '#preset', '#sweep-run', '#capacity-run', '#trace-excerpt', '#results .jump-controls', '#theme-toggle', '#controls-details > summary'];

let session;
let page;
let problems;

/** Every visible pointer target's box, with what it is, from the page (every details panel open, so the whole form counts). */
function targets() {
  const selector = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [role="button"], [tabindex]:not([tabindex="-1"])';
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.trim().split(/\s+/).join('.')}` : ''} "${(e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 30)}"`;
  // A link inside a sentence: its paragraph holds more text than the link (WCAG's inline exception).
  const inline = (e) => e.tagName === 'A' && getComputedStyle(e).display === 'inline' && (e.parentElement?.textContent ?? '').trim().length > (e.textContent ?? '').trim().length;
  const visible = (e, r) => {
    const style = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.opacity !== '0' && !e.closest('[hidden]') && !e.closest('.visually-hidden');
  };
  return [...document.querySelectorAll(selector)].flatMap((e) => {
    const r = e.getBoundingClientRect();
    if (!visible(e, r) || inline(e)) return [];
    return [{ name: name(e), x: r.left + window.scrollX, y: r.top + window.scrollY, w: r.width, h: r.height }];
  });
}

/** The targets under 24 x 24 that fail WCAG 2.5.8's spacing exception. */
function undersized(all) {
  const small = all.filter((t) => t.w < 24 || t.h < 24);
  const centre = (t) => [t.x + t.w / 2, t.y + t.h / 2];
  const circleHitsBox = ([cx, cy], t) => {
    const dx = Math.max(t.x - cx, 0, cx - (t.x + t.w));
    const dy = Math.max(t.y - cy, 0, cy - (t.y + t.h));
    return dx * dx + dy * dy < 12 * 12;
  };
  return small.filter((t) => {
    const c = centre(t);
    return all.some((u) => {
      if (u === t) return false;
      // A target inside another (a checkbox in its label) is the same target for a finger.
      if (u.x <= t.x && u.y <= t.y && u.x + u.w >= t.x + t.w && u.y + u.h >= t.y + t.h) return false;
      if (t.x <= u.x && t.y <= u.y && t.x + t.w >= u.x + u.w && t.y + t.h >= u.y + u.h) return false;
      if (circleHitsBox(c, u)) return true;
      if (!small.includes(u)) return false;
      const [ux, uy] = centre(u);
      return (ux - c[0]) ** 2 + (uy - c[1]) ** 2 < 24 * 24;
    });
  });
}

describe('on a phone', () => {
  before(async () => {
    session = await startSession();
    ({ page, problems } = await openIn(session.context, `${session.server.url}?v=1&workload.requests=600`, { width: WIDTH, height: HEIGHT }));
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0);
    // The sections that load after the first results (the Sweep and Capacity panels, the timeline).
    await page.waitForSelector('#capacity-slo-ttft_ms');
    await page.waitForSelector('#sweep-param option', { state: 'attached' });
  });
  after(async () => {
    await page?.close();
    await session?.close();
  });

  test('every target is at least 24 x 24 px (or spaced as WCAG 2.5.8 allows); the main controls are 44 px tall', async () => {
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');
    const closed = await page.$$eval('details', (ds) => ds.filter((d) => !d.open).map((d) => {
      d.open = true;
      return d.id || d.className;
    }));
    const all = await page.evaluate(targets);
    assert.ok(all.length > 100, `${all.length} targets`);
    const failing = await page.evaluate(undersized, all);
    assert.deepEqual(failing.map((t) => `${t.name} ${Math.round(t.w)}x${Math.round(t.h)}`), []);
    for (const selector of MAIN) {
      const box = await page.$eval(selector, (e) => e.getBoundingClientRect().toJSON());
      assert.ok(box.height >= 44 && box.width >= 44, `${selector}: ${Math.round(box.width)} x ${Math.round(box.height)}`);
    }
    await page.$$eval('details', (ds, ids) => ds.forEach((d) => {
      if (ids.includes(d.id || d.className)) d.open = false;
    }), closed);
  });

  test('editing a field far down the form: the new run is in sight, and the results one tap away', async () => {
    await page.evaluate(() => window.scrollTo(0, 0));
    assert.ok(await page.isHidden('#run-summary'), 'no bar while the results are on screen');
    // "Edit the scenario" lands on the form, open.
    await page.click('#results .jump-controls');
    assert.equal(await page.$eval('#controls-details', (d) => d.open), true);
    const field = '#field-cluster-replicas';
    await page.$eval(field, (e) => e.scrollIntoView({ block: 'center' }));
    const fieldY = await page.evaluate(() => window.scrollY);
    const tableY = await page.$eval('#results-table', (t) => t.getBoundingClientRect().top + window.scrollY);
    assert.ok(fieldY - tableY > 2 * HEIGHT, `the field is ${Math.round(fieldY - tableY)} px below the table`);
    const count = await page.$eval('#status', (s) => Number(s.dataset.runs ?? '0'));
    await page.fill(field, '6');
    await page.press(field, 'Enter');
    await page.waitForFunction((n) => Number(document.querySelector('#status').dataset.runs ?? '0') > n, count);
    // The bar is on screen, at the bottom, with the run's lowest p99 as the table has it.
    await page.waitForSelector('#run-summary', { state: 'visible' });
    const bar = await page.$eval('#run-summary', (e) => e.getBoundingClientRect().toJSON());
    assert.ok(bar.top >= 0 && bar.bottom <= HEIGHT + 1 && bar.bottom >= HEIGHT - 1, JSON.stringify(bar));
    const best = await page.$$eval('#results-table tbody tr[data-policy]', (trs) => trs
      .map((tr) => [tr.dataset.policy, Number(tr.querySelector('td[data-col="p99_ttft_ms"]').dataset.value)])
      .reduce((a, b) => (b[1] < a[1] ? b : a)));
    assert.deepEqual(await page.$eval('#run-summary-figure', (e) => [e.dataset.policy, Number(e.dataset.value)]), best);
    assert.match(await page.textContent('#run-summary-figure'), /^Lowest p99 TTFT: .+, [\d,.]+ ms \(was [\d,.]+ ms\)\.$/);
    assert.equal(await page.inputValue(field), '6');
    const jump = await page.$eval('#run-summary .run-summary-jump', (e) => e.getBoundingClientRect().toJSON());
    assert.ok(jump.height >= 44, `Results link ${jump.height} px tall`);
    await page.screenshot({ path: join(SHOTS, 'phone-editing.png') });
    // One tap back: the table is on screen, the bar goes.
    await page.click('#run-summary .run-summary-jump');
    await page.waitForFunction(() => {
      const r = document.querySelector('#results-table').getBoundingClientRect();
      return r.top < window.innerHeight && r.bottom > 0;
    });
    await page.waitForSelector('#run-summary', { state: 'hidden' });
    assert.deepEqual(problems, []);
  });

  test('the Embed box open keeps the page 390 px wide; its snippet wraps inside its own box and is copied whole', async () => {
    await page.evaluate(() => {
      document.querySelector('#embed-details').open = true;
    });
    await page.waitForFunction(() => document.querySelector('#embed-snippet').value.includes('<iframe'));
    // Layout settles in the next frame.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(width <= WIDTH, `the page is ${width} px wide with the Embed box open`);
    const box = await page.$eval('#embed-details', (d) => [...d.querySelectorAll('*')]
      .filter((e) => e.getClientRects().length > 0)
      .map((e) => ({ name: `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}`, right: e.getBoundingClientRect().right }))
      .filter((e) => e.right > innerWidth + 0.5));
    assert.deepEqual(box, [], 'nothing in the Embed box reaches past the screen');
    const snippet = await page.$eval('#embed-snippet', (t) => ({ value: t.value, right: t.getBoundingClientRect().right, scrollWidth: t.scrollWidth, clientWidth: t.clientWidth }));
    assert.ok(snippet.right <= WIDTH, `the snippet box ends at ${snippet.right} px`);
    assert.ok(snippet.scrollWidth <= snippet.clientWidth, 'the snippet wraps inside its box');
    await page.screenshot({ path: join(SHOTS, 'phone-embed-box.png') });
    // Copied whole: the clipboard holds the snippet the box shows, every character of it.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
    await page.click('#copy-embed');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, snippet.value);
    assert.match(copied, /^<iframe [^>]*src="[^"]*embed=1"[^>]*><\/iframe>\n<script>[\s\S]*<\/script>\n?$/);
    await page.evaluate(() => {
      document.querySelector('#embed-details').open = false;
    });
    assert.deepEqual(problems, []);
  });
});
