// The playground's Content-Security-Policy: no inline script, no eval;
// WebAssembly compilation is allowed explicitly. One list for the build's
// meta tag (web/vite.config.ts) and for the servers of the Node tests that
// load the module under the page's policy (tests/js/helpers.mjs).
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
