// The one line above the table, in this order (verdictLine):
//   1. which policy wins on p99 TTFT, by how much against the runner-up, and
//      whether that is distinguishable given the seeds run (intervals.ts);
//   2. that winner's gain over the cache-blind baseline, round robin, in
//      words: "8.1x lower p99 TTFT than Round robin (86.9 ms vs 707 ms)"
//      (the rule: baseline-gain.ts);
//   3. the same as 1. for prefill tokens;
//   4. a warning for every policy the line names whose result comes from
//      piling onto few replicas (imbalance above 2: piling.ts);
//   5. when another policy of this run is clearly better than the
//      recommended one on p99 TTFT, that policy and why; the table then
//      drops the badge (recommendation.ts);
//   6. with one seed or a trace, that nothing was tested for chance.
// Made from the same rows and the same rule as the table's "best" tags, so
// the two cannot disagree; every figure is the core's.

import type { Column } from './table-columns';
import { baselineGain } from './baseline-gain';
import { bestIndex, columnStanding, seedCount, type Standing } from './intervals';
import { formatMargin } from './margin';
import { pilingSentence } from './piling';
import { checkRecommendation, type RecommendationCheck } from './recommendation';
import type { PolicyResult, Results } from './results';
import { replaysTrace } from './trace-run';

export { formatMargin } from './margin';
export { replaysTrace } from './trace-run';

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
    : 'One seed: these differences are not tested for chance (Replicates 3+ gives 95% intervals).';
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

/** One sentence of the line: `kind` says which rule made it; `metric`, `winner` and `standing` are set on the metric parts. */
export interface VerdictPart {
  kind: 'metric' | 'gain' | 'piling' | 'recommendation' | 'note';
  text: string;
  metric?: string;
  winner?: string;
  standing?: Standing['kind'];
}

/** The whole line and the recommendation check it made (the table shows the badge only when it holds). */
export interface VerdictLine {
  parts: VerdictPart[];
  recommendation: RecommendationCheck;
}

/**
 * The verdict line of these results (the order is in the doc block above);
 * `labelOf` names a policy that did not run (the catalogue's label).
 */
export function verdictLine(results: Results, columns: readonly Column[], labelOf: (policy: string) => string = (p) => p): VerdictLine {
  const all = verdicts(results, columns);
  const parts: VerdictPart[] = [];
  const named: PolicyResult[] = [];
  for (const v of all) {
    parts.push({ kind: 'metric', text: verdictSentence(results, v), metric: v.column.id, winner: v.winner.policy, standing: v.standing.kind });
    named.push(v.winner, ...(v.runnerUp ? [v.runnerUp] : []), ...v.tiedWith);
    if (v.column.id === 'p99_ttft_ms' && results.results.length > 1) {
      const gain = baselineGain(results, v.column, v.winner, labelOf);
      parts.push({ kind: 'gain', text: gain.text });
      if (gain.baseline) named.push(gain.baseline);
    }
  }
  const recommendation = checkRecommendation(results);
  if (recommendation.kind === 'withheld') named.push(recommendation.better, recommendation.recommended);
  const piling = pilingSentence(named);
  if (piling) parts.push({ kind: 'piling', text: piling });
  if (recommendation.kind === 'withheld') parts.push({ kind: 'recommendation', text: recommendation.sentence });
  const note = untestedNote(results, all);
  if (note) parts.push({ kind: 'note', text: note });
  return { parts, recommendation };
}
