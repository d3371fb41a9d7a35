// What the core reports about a trace it read (TraceLoader.finish(), passed
// on by the worker with the run), and how the page says it: what was read,
// the skipped lines, the format the core read it as, a bad line.

import { formatBytes, formatCountOf } from '../ui/format';

/** One bad trace line (line 0: the trace as a whole), as the core reports it. */
export interface TraceProblemInfo {
  line: number;
  field: string;
  message: string;
}

/** The trace a run replayed: what was read and what was skipped. */
export interface TraceSummary {
  name: string;
  bytes: number;
  lines: number;
  requests: number;
  skippedLines: number;
  /** The format the lines were read as, as the core reports it ("mooncake", "bailian", ...). */
  format: string;
  contentHash: string;
  problems: TraceProblemInfo[];
  unlistedProblems: number;
  /** What was read, as the core's JSON ("prefixroute.trace/1": trace-figures.ts reads it); "" when nothing was. */
  summaryJson: string;
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

/** The command line that replays the same file with the same scenario: `prefixroute --trace FILE --set k=v ...`. */
export function sameAsCommand(name: string, overrides: readonly (readonly [string, string])[], onError: 'stop' | 'skip'): string {
  const sets = overrides.map(([k, v]) => ` --set ${k}=${v}`).join('');
  return `prefixroute --trace ${name}${sets}${onError === 'skip' ? ' --set trace.on_error=skip' : ''}`;
}
