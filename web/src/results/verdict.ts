// The one line above the table: which policy wins on p99 TTFT and on prefill
// tokens, by how much against the runner-up, and whether that is
// distinguishable given the seeds run (intervals.ts). Made from the same rows
// and the same rule as the table's "best" tags, so the two cannot disagree.

import type { Column } from './table-columns';
import { bestIndex, columnStanding, seedCount, type Standing } from './intervals';
import type { PolicyResult, Results } from './results';

/** The metrics the verdict speaks of (results JSON keys), in its order, with the words that name their winner. */
export const VERDICT_METRICS: readonly { id: string; lead: string }[] = [
  { id: 'p99_ttft_ms', lead: 'Lowest p99 TTFT' },
  { id: 'prefill_tokens', lead: 'Fewest prefill tokens' },
];

export interface MetricVerdict {
  column: Column;
  /** "Lowest p99 TTFT" */
  lead: string;
  winner: PolicyResult;
  /** The second best row; null with one policy. */
  runnerUp: PolicyResult | null;
  /** Runner-up's value minus the winner's, as a share of the runner-up's (≥ 0 for either direction of "better"). */
  margin: number;
  standing: Standing;
  /** Rows the winner cannot be told from (standing `tied`). */
  tiedWith: PolicyResult[];
}

/** A replayed trace, as the results' scenario echo shows it (its trace section names a file or counts lines). */
export function replaysTrace(results: Results): boolean {
  const trace = (results.scenario as { trace?: { name?: unknown; lines?: unknown } }).trace;
  return !!trace && ((typeof trace.name === 'string' && trace.name !== '') || (typeof trace.lines === 'number' && trace.lines > 0));
}

export function metricVerdict(results: Results, column: Column, lead: string): MetricVerdict | null {
  const rows = results.results;
  const w = bestIndex(rows, column.value, column.better);
  if (w < 0) return null;
  const others = rows.filter((_, i) => i !== w);
  const r = bestIndex(others, column.value, column.better);
  const winner = rows[w];
  const runnerUp = r < 0 ? null : others[r];
  let margin = 0;
  if (runnerUp) {
    const a = column.value(winner);
    const b = column.value(runnerUp);
    margin = b !== 0 ? Math.abs(b - a) / Math.abs(b) : 0;
  }
  const standing = columnStanding(rows, column.id, column.value, column.better);
  const tiedWith = standing.kind === 'tied' ? standing.with.map((i) => rows[i]) : [];
  return { column, lead, winner, runnerUp, margin, standing, tiedWith };
}

/** "2%", "<1%", "35%": a margin as a reader takes it in. */
export function formatMargin(margin: number): string {
  const pct = Math.round(margin * 100);
  return pct < 1 ? (margin > 0 ? '<1%' : '0%') : `${pct}%`;
}

/**
 * The verdict on one metric in words: who wins, by how much against the
 * runner-up, and whether that is told apart at this N (with one seed the
 * line's last sentence, untestedNote, says so once for every metric).
 */
export function verdictSentence(results: Results, v: MetricVerdict): string {
  const c = v.column;
  const unit = c.unit ? ` ${c.unit}` : '';
  const lead = `${v.lead}: ${v.winner.label} (${c.format(c.value(v.winner))}${unit})`;
  if (!v.runnerUp) return `${lead}.`;
  if (c.format(c.value(v.winner)) === c.format(c.value(v.runnerUp))) {
    return `${v.lead}: ${v.winner.label}, level with ${v.runnerUp.label} (${c.format(c.value(v.winner))}${unit}).`;
  }
  const side = c.better === 'low' ? 'below' : 'above';
  const by = `${formatMargin(v.margin)} ${side} ${v.runnerUp.label} (${c.format(c.value(v.runnerUp))}${unit})`;
  const n = seedCount(results);
  switch (v.standing.kind) {
    case 'best':
      return `${lead}, ${by}: distinguishable from every other policy at N = ${n} seeds (95% intervals apart).`;
    case 'tied': {
      const names = v.tiedWith.map((r) => r.label);
      const list = names.length <= 2 ? names.join(' and ') : `${names.slice(0, 2).join(', ')} and ${names.length - 2} more`;
      return `${lead}, ${by}: not distinguishable from ${list} at N = ${n} seeds (95% intervals overlap).`;
    }
    default:
      return `${lead}, ${by}.`;
  }
}

/** The line's closing sentence when nothing was tested (one seed or a trace), else "". */
export function untestedNote(results: Results, all: readonly MetricVerdict[]): string {
  if (!all.some((v) => v.standing.kind === 'untested')) return '';
  return replaysTrace(results)
    ? 'One replay of the trace (a trace has one replicate): these differences are not tested for chance.'
    : 'One seed: these differences are not tested for chance; set Replicates to 3 or more for 95% intervals.';
}

/** Every verdict metric's verdict, in VERDICT_METRICS order (a metric whose column is missing is left out). */
export function verdicts(results: Results, columns: readonly Column[]): MetricVerdict[] {
  const out: MetricVerdict[] = [];
  for (const m of VERDICT_METRICS) {
    const column = columns.find((c) => c.id === m.id);
    const v = column ? metricVerdict(results, column, m.lead) : null;
    if (v) out.push(v);
  }
  return out;
}
