// A static file server for web/dist that behaves like a slow mobile link,
// for the first-view benchmark (bench/first_view.mjs). The throttle is the
// server's because Chromium's own network throttling does not reach the
// page's Web Workers (the module's wasm is fetched by a worker).
//
// The link it models:
//   - latency: a response starts one round trip (`rttMs`) after its request
//     arrives (the request's half on the way up, the first byte's on the way
//     down); the first request on a new connection waits one round trip more
//     (the TCP handshake);
//   - bandwidth: one downlink of `downKbps` kbit/s shared by every response in
//     flight, on every connection (round robin in 1 KB slices), as a phone's
//     radio link is shared; headers are not counted;
//   - compression: a host that gzips (GitHub Pages-like): text, JS and wasm
//     are sent gzip -9 when the browser accepts it; what is counted and
//     throttled is the bytes sent.
// Files are cacheable as GitHub Pages serves them (`cache-control:
// max-age=600`): a page that asks twice for one file (a preload and a
// worker's fetch, two workers) gets it from the browser's cache, as on the
// host. Every load of the benchmark starts with an empty cache.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.jsonl': 'application/jsonl',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};
const COMPRESSED = new Set(['.html', '.js', '.mjs', '.css', '.wasm', '.json', '.jsonl', '.svg']);
const SLICE = 1024;

/**
 * The shared downlink: streams of bytes queued on it are sent round robin,
 * SLICE bytes at a time, at `bytesPerMs` overall. Cost: one timer every few
 * milliseconds while anything is in flight, none when idle.
 */
class Downlink {
  constructor(bytesPerMs) {
    this.bytesPerMs = bytesPerMs;
    this.streams = [];
    this.budget = 0;
    this.last = 0;
    this.timer = null;
  }

  /** Queues `data` for `res`; calls `done()` once its last byte is written. */
  send(res, data, done) {
    this.streams.push({ res, data, offset: 0, done });
    if (!this.timer) {
      this.last = performance.now();
      this.budget = 0;
      this.timer = setTimeout(() => this.pump(), 2);
    }
  }

  pump() {
    const now = performance.now();
    this.budget += (now - this.last) * this.bytesPerMs;
    this.last = now;
    let i = 0;
    while (this.streams.length > 0 && this.budget >= 1) {
      i %= this.streams.length;
      const s = this.streams[i];
      if (s.res.destroyed) {
        this.streams.splice(i, 1); // the browser gave up on it: it no longer takes the link
        continue;
      }
      const n = Math.min(SLICE, s.data.length - s.offset, Math.floor(this.budget));
      if (n <= 0) break;
      s.res.write(s.data.subarray(s.offset, s.offset + n));
      s.offset += n;
      this.budget -= n;
      if (s.offset >= s.data.length) {
        this.streams.splice(i, 1);
        s.res.end();
        s.done();
      } else i++;
    }
    if (this.streams.length === 0) {
      this.timer = null;
      return;
    }
    this.timer = setTimeout(() => this.pump(), 4);
  }
}

/**
 * Serves `root` under `mount` through a modelled link of `rttMs` round trip
 * and `downKbps` downlink; resolves to { url, close }. `onFile({ file, raw,
 * sent, startMs, doneMs })` is called for every file once sent, with its size
 * on disk and on the wire and when its request arrived and its last byte was
 * written (performance.now() of this process).
 */
export function serveThrottled(root, { rttMs, downKbps, mount = '/', onFile = () => {} }) {
  const base = resolve(root);
  const link = new Downlink((downKbps * 1000) / 8 / 1000);
  // Every file read and compressed up front: compressing the wasm while
  // serving would stall the link for a good part of a second.
  const cache = new Map();
  (function walk(dir) {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const raw = readFileSync(p);
        cache.set(p, { raw: raw.length, plain: raw, gzip: COMPRESSED.has(extname(p)) ? gzipSync(raw, { level: 9 }) : null });
      }
    }
  })(base);
  const body = (file, gzip) => {
    const entry = cache.get(file);
    return { raw: entry.raw, data: gzip && entry.gzip ? entry.gzip : entry.plain };
  };
  const seen = new WeakSet();
  const server = createServer((req, res) => {
    const startMs = performance.now();
    const handshake = seen.has(req.socket) ? 0 : rttMs;
    seen.add(req.socket);
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = normalize(join(base, path.slice(mount.length)));
    let status = 200;
    if (!path.startsWith(mount) || !file.startsWith(base)) status = 404;
    else {
      try {
        if (statSync(file).isDirectory()) file = join(file, 'index.html');
        if (!cache.has(file)) status = 404;
      } catch {
        status = 404;
      }
    }
    setTimeout(() => {
      if (status !== 200) {
        res.writeHead(status).end('not found');
        return;
      }
      const { raw, data } = body(file, /\bgzip\b/.test(req.headers['accept-encoding'] ?? ''));
      const gzip = data !== cache.get(file).plain;
      res.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'max-age=600',
        'content-length': data.length,
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      });
      link.send(res, data, () => onFile({ file, raw, sent: data.length, startMs, doneMs: performance.now() }));
    }, handshake + rttMs);
  });
  return new Promise((ok) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      const close = () =>
        new Promise((done) => {
          server.close(done);
          server.closeAllConnections();
        });
      ok({ url: `http://127.0.0.1:${port}${mount}`, close });
    });
  });
}
