// Vite configuration of the playground. The root is web/; the build is
// relocatable (base './') so web/dist works from any sub-path or a plain file
// server. The Content-Security-Policy meta tag is added only to the build:
// Vite's dev server injects styles through JS, which the policy forbids. The
// build also writes embed.html, the same page under the embed's policy.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

import { CONTENT_SECURITY_POLICY, EMBED_CONTENT_SECURITY_POLICY } from './content-security-policy.mjs';

function contentSecurityPolicy(): Plugin {
  return {
    name: 'prefixroute-csp',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: () => [
        {
          tag: 'meta',
          attrs: { 'http-equiv': 'Content-Security-Policy', content: CONTENT_SECURITY_POLICY },
          injectTo: 'head-prepend',
        },
      ],
    },
    // embed.html: the built index.html under the embed's policy (hosted traces: web/src/trace/hosted-trace.ts).
    writeBundle(options) {
      const dir = options.dir ?? 'dist';
      const html = readFileSync(join(dir, 'index.html'), 'utf8');
      const escaped = (policy: string) => `content="${policy.replace(/'/g, '&#39;')}"`;
      if (!html.includes(escaped(CONTENT_SECURITY_POLICY))) throw new Error('prefixroute-csp: the policy meta tag was not found in index.html');
      const embed = html.replace(escaped(CONTENT_SECURITY_POLICY), escaped(EMBED_CONTENT_SECURITY_POLICY));
      writeFileSync(join(dir, 'embed.html'), embed);
    },
  };
}

/**
 * The published-results suite's claims.json as the page imports it: only each
 * claim's id, title and scenario (the preset picker's labels,
 * src/state/presets.ts), not its sources and notes (about 11 KB gzip the page
 * never shows). Runs before Vite's JSON plugin; the unit tests read the whole file.
 */
function publishedClaimTitles(): Plugin {
  return {
    name: 'prefixroute-claim-titles',
    enforce: 'pre',
    transform(code, id) {
      if (!id.split('?')[0].replace(/\\/g, '/').endsWith('/scenarios/published/claims.json')) return null;
      const claims = (JSON.parse(code) as { claims: { id: string; title: string; scenario: string }[] }).claims;
      return { code: JSON.stringify({ claims: claims.map(({ id: claim, title, scenario }) => ({ id: claim, title, scenario })) }), map: null };
    },
  };
}

/** The dev server answers embed.html with the page (the build writes it as a file; the dev server sets no policy). */
function embedDocumentInDev(): Plugin {
  return {
    name: 'prefixroute-embed-dev',
    apply: 'serve',
    configureServer(server) {
      server.middlewares.use((req, _res, next) => {
        if (req.url && /^\/embed\.html(\?|$)/.test(req.url)) req.url = req.url.replace('/embed.html', '/index.html');
        next();
      });
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [contentSecurityPolicy(), embedDocumentInDev(), publishedClaimTitles()],
  worker: { format: 'es' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The wasm must stay a separate file: inlining it as base64 would cost
    // a third more bytes and need a data: URL in the CSP.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  server: { host: '127.0.0.1' },
  preview: { host: '127.0.0.1' },
});
