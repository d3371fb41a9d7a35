// Screenshots of the default page for the README: docs/screenshots/desktop.png
// (1280 px wide) and docs/screenshots/phone.png (390 px), each the first
// screen as a visitor sees it once the first results are in. Drives Debian's
// Chromium with playwright-core (toolchain notes) on the built page.
//
//   bash scripts/build-web.sh && node scripts/screenshots.mjs
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS } from '../tests/e2e/harness.mjs';
import { serveStatic } from '../tests/e2e/server.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'docs/screenshots');

/** The views, as a person opens the page: a desktop window and a phone. */
const VIEWS = [
  { file: 'desktop.png', width: 1280, height: 900, scale: 1, mobile: false },
  { file: 'phone.png', width: 390, height: 844, scale: 2, mobile: true },
];

mkdirSync(OUT, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), 'prefixroute-shots-'));
const server = await serveStatic(join(ROOT, 'web/dist'), '/');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
try {
  for (const view of VIEWS) {
    const context = await browser.newContext({
      viewport: { width: view.width, height: view.height },
      deviceScaleFactor: view.scale,
      isMobile: view.mobile,
      hasTouch: view.mobile,
      colorScheme: 'light',
      reducedMotion: 'reduce',
    });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.waitForFunction(() => document.querySelectorAll('#results-table tbody tr').length > 0, null, { timeout: 120_000 });
    // The charts draw after the table: wait until the TTFT chart has pixels.
    await page.waitForFunction(() => {
      const canvas = document.querySelector('#chart-ttft canvas');
      return canvas instanceof HTMLCanvasElement && canvas.width > 0;
    });
    await page.waitForTimeout(300);
    const path = join(OUT, view.file);
    await page.screenshot({ path });
    console.log(`wrote ${path} (${view.width} x ${view.height} CSS px)`);
    await context.close();
  }
} finally {
  await browser.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
