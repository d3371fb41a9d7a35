// Where a replayed trace comes from, and how a link names it.
//
// A trace is either the excerpt shipped with the project (the first 1,000
// lines of the Mooncake conversation trace, scenarios/traces/, bundled as a
// static asset and fetched only when asked for) or a file the user picked or
// dropped. The file itself never travels: the worker reads it from the File
// handle in chunks.
//
// Links. The excerpt can be named in a link: `trace=mooncake-excerpt`. An
// uploaded file cannot; its link carries the scenario keys the command line
// uses for it (`trace.name=FILE&trace.content_hash=HEX`), and opening it asks
// the user to load the file again (the core then checks the hash). The mode
// for bad lines travels as `trace.on_error=skip`. Reading these never throws.

import excerptUrl from '../../scenarios/traces/mooncake-conversation-first-1000.jsonl?url';
import type { Pair } from './url-state';

/** What to do on a bad trace line: the core's trace.on_error. */
export type OnError = 'stop' | 'skip';

/**
 * A trace the worker can read. `key` identifies the source for the worker's
 * cache of loaded traces (the same key is never reused for another file).
 */
export type TraceSource =
  | { kind: 'excerpt'; key: string; name: string; url: string; bytes: number }
  | { kind: 'file'; key: string; name: string; file: File; bytes: number };

/** The shipped excerpt's link value, file name and size (for progress before the fetch answers). */
export const EXCERPT = {
  linkValue: 'mooncake-excerpt',
  name: 'mooncake-conversation-first-1000.jsonl',
  bytes: 251_546,
  label: 'Mooncake conversation trace, first 1,000 requests',
} as const;

/**
 * Cluster settings the excerpt preset applies: the README's setting for the
 * conversation trace (8 replicas, a 1 M-token cache each). Prompts average
 * 14k tokens, so the reference scenario's 4,000-token caches would hold none.
 */
export const EXCERPT_PRESET: readonly Pair[] = [
  ['cluster.replicas', '8'],
  ['cluster.cache_tokens', '1000000'],
];

export function excerptSource(): TraceSource {
  return { kind: 'excerpt', key: 'excerpt', name: EXCERPT.name, url: excerptUrl, bytes: EXCERPT.bytes };
}

let nextFileKey = 1;

/** A source for a picked or dropped file; each call gets a fresh cache key. */
export function fileSource(file: File): TraceSource {
  return { kind: 'file', key: `file-${nextFileKey++}`, name: file.name, file, bytes: file.size };
}

/** What a link says about the trace. */
export type TraceLink =
  | { kind: 'none' }
  | { kind: 'excerpt'; onError: OnError }
  | { kind: 'file'; name: string; contentHash: string; onError: OnError };

/** Query keys this module owns; the rest of the query is the scenario (url-state.ts). */
export const TRACE_LINK_KEYS = ['trace', 'trace.name', 'trace.content_hash', 'trace.on_error'] as const;

const HASH_RE = /^[0-9a-f]{16}$/;
const MAX_NAME = 256;

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** Splits a query into the trace's pairs and the rest (returned as a query string for decodeUrlState). */
export function splitTraceQuery(search: string): { trace: Map<string, string>; rest: string } {
  let query = String(search ?? '');
  if (query.startsWith('?')) query = query.slice(1);
  const trace = new Map<string, string>();
  const rest: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decode(eq >= 0 ? part.slice(0, eq) : part);
    if (key !== null && (TRACE_LINK_KEYS as readonly string[]).includes(key)) {
      const value = decode(eq >= 0 ? part.slice(eq + 1) : '');
      if (value !== null) trace.set(key, value); // the last occurrence wins, as elsewhere
    } else {
      rest.push(part);
    }
  }
  return { trace, rest: rest.length ? `?${rest.join('&')}` : '' };
}

/** Reads the trace part of a link, with messages for anything unusable. Never throws. */
export function readTraceLink(pairs: Map<string, string>): { link: TraceLink; messages: string[] } {
  const messages: string[] = [];
  const onErrorText = pairs.get('trace.on_error');
  let onError: OnError = 'stop';
  if (onErrorText === 'skip' || onErrorText === 'stop') onError = onErrorText;
  else if (onErrorText !== undefined) messages.push('Ignored trace.on_error: it must be stop or skip.');
  const source = pairs.get('trace');
  const name = pairs.get('trace.name');
  if (source !== undefined) {
    if (source === EXCERPT.linkValue) return { link: { kind: 'excerpt', onError }, messages };
    messages.push(`Ignored trace=${source.slice(0, 40)}: the only trace a link can name is ${EXCERPT.linkValue}.`);
  }
  if (name !== undefined && name !== '') {
    const hash = pairs.get('trace.content_hash') ?? '';
    if (hash !== '' && !HASH_RE.test(hash)) {
      messages.push('Ignored trace.content_hash: it must be 16 lowercase hex digits.');
      return { link: { kind: 'file', name: name.slice(0, MAX_NAME), contentHash: '', onError }, messages };
    }
    return { link: { kind: 'file', name: name.slice(0, MAX_NAME), contentHash: hash, onError }, messages };
  }
  if (onErrorText !== undefined && source === undefined) messages.push('Ignored trace.on_error: the link replays no trace.');
  return { link: { kind: 'none' }, messages };
}

/** The link pairs for a replayed trace (appended after the scenario's overrides). */
export function traceLinkPairs(link: TraceLink): Pair[] {
  const pairs: Pair[] = [];
  if (link.kind === 'excerpt') pairs.push(['trace', EXCERPT.linkValue]);
  if (link.kind === 'file') {
    pairs.push(['trace.name', link.name]);
    if (link.contentHash) pairs.push(['trace.content_hash', link.contentHash]);
  }
  if (link.kind !== 'none' && link.onError === 'skip') pairs.push(['trace.on_error', 'skip']);
  return pairs;
}

/** Formats a byte count for progress text: "245.6 KB", "104.9 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

/** A trace problem as one line: "line 3, input_length: must be …" (line 0: the whole trace). */
export function problemText(p: { line: number; field: string; message: string }): string {
  const where = p.line > 0 ? `line ${p.line}` : 'trace';
  return `${where}${p.field ? `, ${p.field}` : ''}: ${p.message}`;
}
