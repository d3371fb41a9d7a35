// Where a replayed trace comes from: the excerpt shipped with the project
// (the first 1,000 lines of the Mooncake conversation trace,
// scenarios/traces/, bundled as a static asset and fetched only when asked
// for) or a file the user picked or dropped. The page's pool reads it once
// into an in-memory copy that its workers stream in chunks
// (worker/worker-pool.ts); a file too large for that is streamed by one
// worker from its File handle. How a link names a trace is
// state/trace-link.ts's (TraceLink).

import excerptUrl from '../../../scenarios/traces/mooncake-conversation-first-1000.jsonl?url';

/** What to do on a bad trace line: the core's trace.on_error. */
export type OnError = 'stop' | 'skip';

/**
 * A trace the worker can read. `key` identifies the source for the worker's
 * cache of loaded traces (the same key is never reused for another file).
 */
export type TraceSource =
  | { kind: 'excerpt'; key: string; name: string; url: string; bytes: number }
  | { kind: 'file'; key: string; name: string; file: File; bytes: number };

/** The shipped excerpt's link value (`trace=…`), file name and size (for progress before the fetch answers). */
export const EXCERPT = {
  linkValue: 'mooncake-excerpt',
  name: 'mooncake-conversation-first-1000.jsonl',
  bytes: 251_546,
  label: 'Mooncake conversation trace, first 1,000 requests',
} as const;

/** The shipped excerpt as a source (fetched by URL when first replayed). */
export function excerptSource(): TraceSource {
  return { kind: 'excerpt', key: 'excerpt', name: EXCERPT.name, url: excerptUrl, bytes: EXCERPT.bytes };
}

let nextFileKey = 1;

/** A source for a picked or dropped file; each call gets a fresh cache key. */
export function fileSource(file: File): TraceSource {
  return { kind: 'file', key: `file-${nextFileKey++}`, name: file.name, file, bytes: file.size };
}
