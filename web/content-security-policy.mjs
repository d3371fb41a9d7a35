// The playground's Content-Security-Policy: no inline script, no eval;
// WebAssembly compilation is allowed explicitly. One list for the build's
// meta tag (web/vite.config.ts) and for the servers of the Node tests that
// load the module under the page's policy (tests/js/helpers.mjs).
const DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

export const CONTENT_SECURITY_POLICY = DIRECTIVES.join('; ');

/**
 * The policy of embed.html, the same page for an embed that replays a trace
 * its author hosts (web/src/trace/hosted-trace.ts): the reader's browser fetches
 * that file from the author's https server, so connect-src also allows
 * https: (any host: the author's server is named by the embed's link, which
 * a static build cannot know). Every other directive is the page's; the full
 * page and embeds of the shipped excerpt keep connect-src 'self'.
 */
export const EMBED_CONTENT_SECURITY_POLICY = DIRECTIVES.map((d) => (d.startsWith('connect-src ') ? `${d} https:` : d)).join('; ');
