// The playground's Content-Security-Policy: no inline script, no eval;
// WebAssembly compilation is allowed explicitly. One list for the build's
// meta tag (web/vite.config.ts) and for the servers of the Node tests that
// load the module under the page's policy (tests/js/helpers.mjs).
const DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self' https:",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];

export const CONTENT_SECURITY_POLICY = DIRECTIVES.join('; ');

/**
 * The policy of embed.html, the same page for an embed that replays a trace
 * its author hosts (web/src/trace/hosted-trace.ts). connect-src allows https:
 * on both pages (any host: the server of a hosted trace is named by the
 * link, which a static build cannot know): the reader's browser fetches the
 * file a link names and replays it only when its SHA-256 is the link's.
 */
export const EMBED_CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY;
