// What every end-to-end test file needs: the built page served under a
// sub-path, a private copy of the native benchmark (a rebuild during the run
// cannot pull it away), a persistent Debian Chromium context, pages that
// collect errors, and the benchmark run for reference numbers.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { serveStatic } from './server.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The built page; PREFIXROUTE_E2E_DIST names another build (a test run against an older build, to see it fail there). */
export const DIST = process.env.PREFIXROUTE_E2E_DIST || join(ROOT, 'web/dist');
/** Screenshots of the tests (not in git). */
export const SHOTS = join(ROOT, 'build/e2e');

/**
 * Where a test writes a screenshot the docs show (docs/screenshots/NAME): under
 * build/e2e on an ordinary run, so a test run leaves the working tree as it
 * found it; in docs/screenshots when PREFIXROUTE_DOC_SCREENSHOTS=1 asks for
 * the docs' copies to be refreshed (`PREFIXROUTE_DOC_SCREENSHOTS=1 npm run test:e2e`).
 */
export function docScreenshot(name) {
  const dir = process.env.PREFIXROUTE_DOC_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : SHOTS;
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
const BENCH_BUILT = join(ROOT, 'build/native/tools/prefixroute');
/** Chromium's flags for this machine kind (../shared/notes/toolchain.md): no sandbox as root, no network chatter. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts a session: { context, server, bench, close() }. `mount` is the
 * sub-path the page is served under (proves the build is relocatable).
 */
export async function startSession({ mount = '/deep/sub/path/', acceptDownloads = false } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'prefixroute-chromium-'));
  const bench = join(profile, 'prefixroute');
  copyFileSync(BENCH_BUILT, bench);
  chmodSync(bench, 0o755);
  const server = await serveStatic(DIST, mount);
  const context = await chromium.launchPersistentContext(join(profile, 'chromium'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_FLAGS,
    acceptDownloads,
  });
  // Generous waits: the machine may be shared with builds (runs are CPU-bound in the worker).
  context.setDefaultTimeout(120_000);
  const close = async () => {
    await context.close();
    await server.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, server, bench, close };
}

/** A new page at `url` that records page errors, console errors and dialogs (dismissed) in `problems`. */
export async function openIn(context, url, { width = 1280, height = 900 } = {}) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height });
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url);
  return { page, problems };
}

/**
 * Runs the benchmark copy with `args` plus `--json FILE` and `--set` for each
 * pair; returns the text it wrote to FILE.
 */
export function benchOutput(bench, args, sets = []) {
  const dir = mkdtempSync(join(tmpdir(), 'prefixroute-'));
  const out = join(dir, 'out.json');
  try {
    execFileSync(bench, [...args, ...sets.flatMap(([k, v]) => ['--set', `${k}=${v}`]), '--json', out], { stdio: 'ignore' });
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * An init script (page.addInitScript / context.addInitScript) that defines
 * `window.__commitAndWait(selector, value)`: sets the input's value, fires
 * 'change' (the page re-runs at once) and resolves when the status line
 * reports one more finished run, or rejects after 60 s. For the tests and
 * benchmarks that re-run the page in a loop inside page.evaluate.
 */
export function commitAndWaitScript() {
  window.__commitAndWait = (selector, value) => {
    const input = document.querySelector(selector);
    const status = document.querySelector('#status');
    const before = Number(status.dataset.runs ?? '0');
    input.value = String(value);
    input.dispatchEvent(new Event('change', { bubbles: true }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the run after ${selector} = ${value} did not finish`)), 60_000);
      const check = () => {
        if (Number(status.dataset.runs ?? '0') > before) {
          clearTimeout(timer);
          observer.disconnect();
          resolve();
        }
      };
      const observer = new MutationObserver(check);
      observer.observe(status, { attributes: true });
      check();
    });
  };
}

/** Debian's Chromium, headless, with the flags of every test (no persistent profile). */
export function launchChromium() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_FLAGS });
}

/** The module's policy catalogue, read from the same wasm build the page serves (web/src/generated). */
export async function policyCatalogue() {
  const generated = join(ROOT, 'web/src/generated/');
  const factory = (await import(join(generated, 'prefixroute.mjs'))).default;
  const mod = await factory({ wasmBinary: readFileSync(join(generated, 'prefixroute.wasm')) });
  return mod.policyCatalogue();
}
