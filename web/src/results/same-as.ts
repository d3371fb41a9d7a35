// The command line that gives a view's numbers ("Same as: prefixroute ..."),
// shown under the results table and the timeline: the scenario on screen as
// --set pairs, and the replayed trace by its file name when the view replays
// one (the reader's own copy of the file goes there). The Sweep and Capacity
// sections write theirs the same way, with their own flag.

import { byId } from '../ui/dom';
import type { Pair } from '../state/schema';
import type { TraceRequest } from '../worker/protocol';

/** A file name as one shell word (quoted when it holds anything but the safe characters). */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9._/-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}

/**
 * "Same as: prefixroute [--trace FILE] FLAGS --set k=v ..." for the scenario
 * `overrides`, replaying `trace` when one is given (a trace read with bad
 * lines skipped adds trace.on_error=skip, as the run had it).
 */
export function sameAsCommand(overrides: readonly Pair[], trace: Pick<TraceRequest, 'source' | 'onError'> | null, flags: readonly string[] = []): string {
  const words = ['prefixroute'];
  if (trace) words.push('--trace', shellWord(trace.source.name));
  words.push(...flags);
  for (const [k, v] of overrides) words.push('--set', `${k}=${v}`);
  if (trace?.onError === 'skip' && !overrides.some(([k]) => k === 'trace.on_error')) words.push('--set', 'trace.on_error=skip');
  return `Same as: ${words.join(' ')}`;
}

/** Writes the table's and the timeline's "Same as" lines for the run on screen. */
export function showSameAs(overrides: readonly Pair[], trace: Pick<TraceRequest, 'source' | 'onError'> | null): void {
  byId('table-command').textContent = sameAsCommand(overrides, trace, ['--json', 'results.json']);
  byId('timeline-command').textContent = sameAsCommand(overrides, trace, ['--timeline', 'timeline.json']);
}
