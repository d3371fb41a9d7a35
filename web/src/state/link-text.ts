// The text of a link's query as every reader of it needs it: the caps that
// keep a hostile link cheap, percent-decoding that never throws, and a safe
// short rendering of untrusted text for messages. The scenario's keys
// (url-state.ts), the trace's and the sweep's (trace-link.ts, sweep-link.ts)
// and the embed's (embed/embed-options.ts) are each read with these.

/**
 * Caps that keep a hostile link from costing time or flooding the page. A
 * value holds at least every catalogue policy's name in one `policies` list
 * (about 270 characters with 20 policies; page-state.test.ts passes them all
 * through a link), with room for the catalogue to grow.
 */
export const URL_LIMITS = { query: 4096, params: 64, key: 64, value: 1024 } as const;

/** A short, printable rendering of untrusted text for messages (shown with textContent only). */
export function preview(text: string, max = 32): string {
  // eslint-disable-next-line no-control-regex
  const printable = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?');
  const cut = printable.length > max ? `${printable.slice(0, max)}…` : printable;
  return `"${cut}"`;
}

/** decodeURIComponent of a query component ('+' is a space); null for bad percent-encoding. */
export function decodeComponent(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}
