// The p99 TTFT winner's gain over the cache-blind baseline (round robin,
// page-defaults.json's baselinePolicy), in words a reader takes in at once.
//
// The rule, on the rows the core computed (nothing re-modelled here):
//   - the ratio baseline p99 / winner p99 is printed as "N.Nx lower" when it
//     is at least GAIN_RATIO_FROM (2), else the difference as a share of the
//     baseline's p99, "35% lower" (formatMargin: "<1%" below one percent);
//   - both figures follow in the table's format: "(86.9 ms vs 707 ms)";
//   - equal figures as the table prints them read "level with";
//   - the baseline as the winner says that no policy run beats it;
//   - a baseline that was not run is named, with how to add it;
//   - with replicates, a gain whose 95 % intervals overlap the baseline's
//     says it is not distinguishable at that N.

import { distinguishable, seedCount } from './intervals';
import type { PolicyResult, Results } from './results';
import { BASELINE_POLICY, type Column } from './table-columns';
import { formatMargin } from './margin';

/** From this ratio of the baseline's p99 to the winner's on, the gain is a ratio ("8.1x"); below, a percentage. */
export const GAIN_RATIO_FROM = 2;

/** The gain in words: "8.1x lower" (ratio ≥ GAIN_RATIO_FROM) or "35% lower". */
export function formatGain(winner: number, baseline: number): string {
  const ratio = winner > 0 ? baseline / winner : Infinity;
  if (Number.isFinite(ratio) && ratio >= GAIN_RATIO_FROM) return `${ratio.toFixed(1)}x lower`;
  return `${formatMargin(baseline > 0 ? (baseline - winner) / baseline : 0)} lower`;
}

/**
 * The sentence on the winner's (`winner`, the p99 TTFT column's best row)
 * gain over the baseline policy; `labelOf` names the baseline when it did
 * not run. Returns the sentence and the baseline row (null when not run).
 */
export function baselineGain(
  results: Results,
  column: Column,
  winner: PolicyResult,
  labelOf: (policy: string) => string = (p) => p,
  baselinePolicy: string = BASELINE_POLICY,
): { text: string; baseline: PolicyResult | null } {
  const baseline = results.results.find((r) => r.policy === baselinePolicy) ?? null;
  if (!baseline) {
    return { text: `${labelOf(baselinePolicy)}, the cache-blind baseline, was not run: add it to the policies to see the gain over it.`, baseline: null };
  }
  const unit = column.unit ? ` ${column.unit}` : '';
  const w = column.value(winner);
  const b = column.value(baseline);
  if (winner === baseline) {
    return { text: `${baseline.label}, the cache-blind baseline, has the lowest ${column.header} here: no policy run beats it on this scenario.`, baseline };
  }
  if (column.format(w) === column.format(b)) {
    return { text: `${winner.label}’s ${column.header} is level with ${baseline.label}’s (${column.format(w)}${unit}).`, baseline };
  }
  const apart = distinguishable(winner, baseline, column.id);
  const chance = apart === false ? ` Not distinguishable from it at N = ${seedCount(results)} seeds (95% intervals overlap).` : '';
  return {
    text: `${winner.label} has ${formatGain(w, b)} ${column.header} than ${baseline.label} (${column.format(w)}${unit} vs ${column.format(b)}${unit}).${chance}`,
    baseline,
  };
}
