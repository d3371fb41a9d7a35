// A tiny static file server for web/dist on 127.0.0.1 and a free port. It
// mounts the site under a sub-path, so the tests also prove that the build
// is relocatable (base './'). No CSP header: the page's meta tag must do.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Serves `root` under `mount` (e.g. "/some/sub/path/"); resolves to { url, close }.
 * `onFile(file)`, when given, is called with the path of every file served
 * (bench/payload.mjs: what the page downloads for its first view).
 */
export function serveStatic(root, mount = '/', onFile = () => {}) {
  const base = resolve(root);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(mount)) {
      res.writeHead(404).end('not found');
      return;
    }
    let file = normalize(join(base, path.slice(mount.length)));
    if (!file.startsWith(base)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      statSync(file);
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    onFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      // close() also ends the browser's open keep-alive connections: a
      // closing server otherwise waits for the browser to drop them (about
      // 100 s for Chromium's idle sockets to a page still open).
      const close = () =>
        new Promise((done) => {
          server.close(done);
          server.closeAllConnections();
        });
      ok({ url: `http://127.0.0.1:${port}${mount}`, close });
    });
  });
}
