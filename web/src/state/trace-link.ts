// The trace part of the page's link. The shipped excerpt is
// `trace=mooncake-excerpt`. An uploaded file cannot travel: its link carries
// the keys the command line uses for it (`trace.name=FILE&trace.content_hash=HEX`),
// and opening it asks the user to load the file again (the core then checks
// the hash). The bad-line mode travels as `trace.on_error=skip`. These keys
// are taken out of the query before the scenario's keys are read
// (page-state.ts). A copy of the file served at an https URL can travel:
// `trace.url=URL&trace.sha256=HEX` (SHA-256 of its bytes, as an embed's
// embed.trace_url / embed.trace_sha256); opening the link fetches it,
// checks the hash and replays it (hosted-trace.ts). Decoding never throws:
// what cannot be used is dropped with a message.

import { hostedUrlProblem } from '../embed/embed-options';
import { EXCERPT, type OnError } from '../trace/trace-source';
import { decodeComponent } from './link-text';
import type { Pair } from './schema';

/** What a link says about the trace to replay instead of the synthetic workload. */
export type TraceLink =
  | { kind: 'none' }
  | { kind: 'excerpt'; onError: OnError }
  | { kind: 'file'; name: string; contentHash: string; onError: OnError }
  | { kind: 'hosted'; url: string; sha256: string; onError: OnError };

/** Query keys of the trace; the rest of the query is the scenario's and the sweep's. */
export const TRACE_LINK_KEYS = ['trace', 'trace.name', 'trace.content_hash', 'trace.on_error', 'trace.url', 'trace.sha256'] as const;

const HASH_RE = /^[0-9a-f]{16}$/;
const SHA256_RE = /^[0-9a-f]{64}$/;
const MAX_NAME = 256;

/**
 * Splits a query into the trace's pairs (the last occurrence of a key wins;
 * a value with bad percent-encoding is dropped) and the rest, returned as a
 * query string for decodeUrlState.
 */
export function splitTraceQuery(search: string): { trace: Map<string, string>; rest: string } {
  let query = String(search ?? '');
  if (query.startsWith('?')) query = query.slice(1);
  const trace = new Map<string, string>();
  const rest: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decodeComponent(eq >= 0 ? part.slice(0, eq) : part);
    if (key !== null && (TRACE_LINK_KEYS as readonly string[]).includes(key)) {
      const value = decodeComponent(eq >= 0 ? part.slice(eq + 1) : '');
      if (value !== null) trace.set(key, value);
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
  const url = pairs.get('trace.url');
  const sha = pairs.get('trace.sha256');
  if (url !== undefined || sha !== undefined) {
    const urlProblem = url === undefined ? 'is missing' : hostedUrlProblem(url);
    const shaProblem = sha === undefined ? 'is missing' : SHA256_RE.test(sha) ? null : 'must be 64 lowercase hex digits';
    if (!urlProblem && !shaProblem) return { link: { kind: 'hosted', url: url!, sha256: sha!, onError }, messages };
    if (urlProblem) messages.push(`Ignored trace.url (${urlProblem}): the link replays no hosted trace.`);
    if (shaProblem) messages.push(`Ignored trace.sha256 (${shaProblem}; the SHA-256 of the hosted file): the link replays no hosted trace.`);
  }
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

/** The link pairs of a replayed trace (written after the scenario's overrides). */
export function traceLinkPairs(link: TraceLink): Pair[] {
  const pairs: Pair[] = [];
  if (link.kind === 'excerpt') pairs.push(['trace', EXCERPT.linkValue]);
  if (link.kind === 'file') {
    pairs.push(['trace.name', link.name]);
    if (link.contentHash) pairs.push(['trace.content_hash', link.contentHash]);
  }
  if (link.kind === 'hosted') {
    pairs.push(['trace.url', link.url]);
    pairs.push(['trace.sha256', link.sha256]);
  }
  if (link.kind !== 'none' && link.onError === 'skip') pairs.push(['trace.on_error', 'skip']);
  return pairs;
}
