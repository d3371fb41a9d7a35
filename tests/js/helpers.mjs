// Shared by the Node tests of the WebAssembly module (node --test tests/js/).
// The module is the Emscripten ES6 factory built for web/worker; Node loads it
// by handing over the .wasm bytes, as the browser-less path of prefixroute.d.ts.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { CONTENT_SECURITY_POLICY } from '../../web/content-security-policy.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WASM_DIR = path.join(ROOT, 'build/wasm/wasm');
export const BENCH = path.join(ROOT, 'build/native/tools/prefixroute');
export const QUICKSTART = path.join(ROOT, 'build/native/examples/quickstart');
export const SCENARIOS = path.join(ROOT, 'scenarios');

function requireFile(file, hint) {
  if (!fs.existsSync(file)) throw new Error(`${path.relative(ROOT, file)} is missing: ${hint}`);
}

/** A fresh module instance (each instance has its own heap). */
export async function loadModule() {
  const mjs = path.join(WASM_DIR, 'prefixroute.mjs');
  const wasm = path.join(WASM_DIR, 'prefixroute.wasm');
  requireFile(mjs, 'run `npm run build:wasm` first');
  requireFile(wasm, 'run `npm run build:wasm` first');
  const { default: createPrefixroute } = await import(pathToFileURL(mjs).href);
  return createPrefixroute({ wasmBinary: fs.readFileSync(wasm) });
}

/** Every preset scenario file: scenarios/*.json, sorted. */
export function scenarioFiles() {
  return fs
    .readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.json') && fs.statSync(path.join(SCENARIOS, f)).isFile())
    .sort()
    .map((f) => path.join(SCENARIOS, f));
}

/**
 * Runs the native benchmark and returns { json, stdout } (json: the bytes of
 * its --json output). `args` are extra arguments (--scenario, --set ...).
 */
export function runNativeBench(args) {
  requireFile(BENCH, 'build the native preset first (cmake --preset native && cmake --build --preset native)');
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR || '/tmp'), 'prefixroute-js-'));
  try {
    const out = path.join(dir, 'results.json');
    const stdout = execFileSync(BENCH, [...args, '--json', out], { encoding: 'utf8' });
    return { json: fs.readFileSync(out, 'utf8'), stdout };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the native benchmark expecting failure; returns { status, stderr }. */
export function runNativeBenchFailing(args) {
  requireFile(BENCH, 'build the native preset first');
  try {
    execFileSync(BENCH, [...args, '--json', ''], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return { status: e.status, stderr: String(e.stderr) };
  }
  throw new Error(`prefixroute ${args.join(' ')} was expected to fail`);
}

export function runNative(binary, args = []) {
  requireFile(binary, 'build the native preset first');
  return execFileSync(binary, args, { encoding: 'utf8' });
}

/** The CLI's --set key=value pairs as the overridesJson of the module. */
export function overridesJson(pairs) {
  return JSON.stringify(pairs);
}

export function setArgs(pairs) {
  return pairs.flatMap(([k, v]) => ['--set', `${k}=${v}`]);
}

export const CHROMIUM = '/usr/bin/chromium';
// The page's own policy (the build's meta tag).
export const PAGE_CSP = CONTENT_SECURITY_POLICY;

/**
 * Serves `pages` ({ '/path': [contentType, body] }) plus the built module
 * (/prefixroute.mjs, /prefixroute.wasm) on 127.0.0.1 with the page's CSP.
 * Returns { base, close }.
 */
export async function serveWithModule(pages) {
  const http = await import('node:http');
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x').pathname;
    let body;
    let type;
    if (pages[url]) [type, body] = pages[url];
    else if (url === '/prefixroute.mjs' || url === '/prefixroute.wasm') {
      body = fs.readFileSync(path.join(WASM_DIR, url.slice(1)));
      type = url.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
    } else {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': type, 'Content-Security-Policy': PAGE_CSP, 'Cache-Control': 'no-store' });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/**
 * Headless Debian Chromium through playwright-core: { browser } or
 * { skip: reason } when Chromium or playwright-core is not installed.
 * With PREFIXROUTE_REQUIRE_BROWSER=1 (set by `npm test`) a missing browser
 * is an error instead of a skip, so CI cannot pass without the browser checks.
 */
export async function launchChromium() {
  const missing = (reason) => {
    if (process.env.PREFIXROUTE_REQUIRE_BROWSER === '1')
      throw new Error(`${reason}; PREFIXROUTE_REQUIRE_BROWSER=1 requires the browser tests`);
    return { skip: reason };
  };
  if (!fs.existsSync(CHROMIUM)) return missing(`${CHROMIUM} is not installed`);
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return missing('playwright-core is not installed (npm ci)');
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return { browser };
}
