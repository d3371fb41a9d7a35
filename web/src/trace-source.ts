// Where a replayed trace comes from: the excerpt shipped with the project
// (the first 1,000 lines of the Mooncake conversation trace,
// scenarios/traces/, bundled as a static asset and fetched only when asked
// for) or a file the user picked or dropped. The page's pool reads it once
// into an in-memory copy that its workers stream in chunks (worker-pool.ts);
// a file too large for that is streamed by one worker from its File handle.
// How a link names a trace is page-state.ts's (TraceLink).

import excerptUrl from '../../scenarios/traces/mooncake-conversation-first-1000.jsonl?url';
import { formatCountOf } from './format';
import type { TraceSummary } from './protocol';
import type { Pair } from './schema';

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

/**
 * Cluster settings the excerpt preset applies: the README's setting for the
 * conversation trace (8 replicas, a 1 M-token cache each). Prompts average
 * 14k tokens, so the reference scenario's 4,000-token caches would hold none.
 */
export const EXCERPT_PRESET: readonly Pair[] = [
  ['cluster.replicas', '8'],
  ['cluster.cache_tokens', '1000000'],
];

/** A cluster field put back after a replay: from the value the replay ran with to the one before it (null: the default). */
export interface RestoredField {
  key: string;
  /** The value during the replay (null: the default). */
  from: string | null;
  to: string | null;
}

/**
 * The overrides to go back to the synthetic workload with: `current` (the
 * replay's), with the fields the excerpt preset sets (EXCERPT_PRESET: a
 * trace-sized cluster) put back to their values in `before` (the synthetic
 * scenario shown before the replay), or to their defaults when there was
 * none (a replay opened from a link), and without the trace's own fields
 * (trace.start_s, end_s, limit, time_scale). Also lists what changed, for the page to
 * say so.
 */
export function overridesAfterReplay(current: readonly Pair[], before: readonly Pair[] | null): { overrides: Pair[]; restored: RestoredField[] } {
  const values = new Map<string, string>(current);
  const earlier = new Map<string, string>(before ?? []);
  const restored: RestoredField[] = [];
  for (const [key] of EXCERPT_PRESET) {
    const from = values.get(key) ?? null;
    const to = earlier.get(key) ?? null;
    if (from === to) continue;
    if (to === null) values.delete(key);
    else values.set(key, to);
    restored.push({ key, from, to });
  }
  // The trace slicing fields (request limit, time scale) belong to the replay.
  for (const key of [...values.keys()]) if (key.startsWith('trace.')) values.delete(key);
  return { overrides: [...values], restored };
}

export function excerptSource(): TraceSource {
  return { kind: 'excerpt', key: 'excerpt', name: EXCERPT.name, url: excerptUrl, bytes: EXCERPT.bytes };
}

let nextFileKey = 1;

/** A source for a picked or dropped file; each call gets a fresh cache key. */
export function fileSource(file: File): TraceSource {
  return { kind: 'file', key: `file-${nextFileKey++}`, name: file.name, file, bytes: file.size };
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

/**
 * What the trace panel says once a replay has finished: what was read, and
 * the skipped lines if any. Past tense: the run is over when it is shown.
 */
export function replayedText(summary: TraceSummary): string {
  // The format is the core's reading (trace.format, or told from the first line), not a guess of the page's.
  const format = summary.format && summary.format !== 'auto' ? ` (${summary.format} format)` : '';
  let text = `Replayed ${summary.name}${format}: ${formatCountOf(summary.requests, 'request')} from ${formatCountOf(summary.lines, 'line')} (${formatBytes(summary.bytes)}).`;
  if (summary.skippedLines > 0) {
    const first = summary.problems[0];
    text += ` Skipped ${formatCountOf(summary.skippedLines, 'bad line')}${first ? `; first: ${problemText(first)}` : ''}.`;
  }
  return text;
}

/** The drop zone's line on the file replayed: the format the core read it as. */
export function formatText(summary: TraceSummary): string {
  if (!summary.format || summary.format === 'auto') return '';
  return `${summary.name}: read as ${summary.format} format.`;
}

/** The headline over a trace's problems when it could not be replayed. */
export function problemHeadline(summary: TraceSummary): string {
  return summary.problems.some((p) => p.line > 0)
    ? `${summary.name} has a bad line, so reading stopped after ${formatCountOf(summary.lines, 'line')}:`
    : `${summary.name} could not be replayed:`;
}
