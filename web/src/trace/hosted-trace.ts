// A trace its author hosts at an https URL. An embed's link carries the URL
// and the SHA-256 of the file's bytes (embed-options.ts: embed.trace_url,
// embed.trace_sha256), a full-page link the same as trace.url and
// trace.sha256 (state/trace-link.ts); the reader's browser fetches it,
// reading the body in chunks for progress, checks the hash (crypto.subtle)
// and hands the bytes to the worker as a File, like a file the reader had
// picked (trace-source.ts, fileSource). A changed file or an unreachable one
// is a message, never a replay of something the author did not publish.
//
// The fetch runs on the page, under its Content-Security-Policy
// (connect-src 'self' https:, web/content-security-policy.mjs).

/** The largest hosted trace the page reads (the bytes are held once in memory for the hash). */
export const MAX_HOSTED_BYTES = 256 * 1024 * 1024;

/** SHA-256 of bytes as 64 lowercase hex digits. */
export async function sha256Hex(data: ArrayBuffer | Blob): Promise<string> {
  const bytes = data instanceof Blob ? await data.arrayBuffer() : data;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A hosted trace that could not be used: the text says why, for the reader. */
export class HostedTraceError extends Error {}

/** The file name of a URL's path (for messages and the worker's summary). */
export function hostedName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop();
    return last ? decodeURIComponent(last).slice(0, 128) : 'hosted trace';
  } catch {
    return 'hosted trace';
  }
}

/**
 * Fetches the trace at `url`, reporting bytes read, and returns it as a File
 * once its SHA-256 is `sha256`. Throws HostedTraceError with a reader-facing
 * message when it is unreachable, too large, or not the file the embed was
 * made with.
 */
export async function fetchHostedTrace(
  url: string,
  sha256: string,
  onProgress: (bytes: number, total: number) => void = () => {},
  fetchFn: typeof fetch = fetch,
): Promise<File> {
  const name = hostedName(url);
  let response: Response;
  try {
    response = await fetchFn(url, { mode: 'cors', credentials: 'omit', cache: 'no-cache', redirect: 'follow' });
  } catch (error) {
    throw new HostedTraceError(
      `The trace at ${url} could not be fetched (${error instanceof Error ? error.message : String(error)}). ` +
        'Its server must answer over https and allow other sites to read it (Access-Control-Allow-Origin).',
    );
  }
  if (!response.ok) throw new HostedTraceError(`The trace at ${url} could not be fetched: the server answered ${response.status} ${response.statusText}.`.replace(/ \./, '.'));
  const total = Number(response.headers.get('content-length') ?? 0);
  if (total > MAX_HOSTED_BYTES) throw new HostedTraceError(`The trace at ${url} has ${total} bytes; the page reads at most ${MAX_HOSTED_BYTES}.`);
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_HOSTED_BYTES) {
        await reader.cancel();
        throw new HostedTraceError(`The trace at ${url} is larger than ${MAX_HOSTED_BYTES} bytes, the most the page reads.`);
      }
      chunks.push(value);
      onProgress(bytes, total);
    }
  } else {
    const whole = new Uint8Array(await response.arrayBuffer());
    chunks.push(whole);
    bytes = whole.byteLength;
    onProgress(bytes, total);
  }
  const blob = new Blob(chunks as BlobPart[]);
  const actual = await sha256Hex(blob);
  if (actual !== sha256) {
    throw new HostedTraceError(
      `The trace at ${url} has changed since this link was made (its SHA-256 is ${actual.slice(0, 12)}…, the link expects ${sha256.slice(0, 12)}…): it is not replayed. Its author can make a new link (or embed) for the file as it is now.`,
    );
  }
  return new File([blob], name, { type: 'text/plain' });
}
