// Whether the reader's own run bears out the catalogue's recommended policy
// (the smallest worst-case p99 TTFT regret over the project's grid,
// core/src/policies/recommended_policy.inc). The badge stays unless another
// policy of this run is clearly better on p99 TTFT; then the page drops the
// badge for this run and names the better policy in one sentence.
//
// "Clearly better", on the rows the core computed:
//   - with replicates (95 % intervals): its p99 is lower and the two
//     intervals are apart (the core's overlap rule, intervals.ts);
//   - with one seed or a replayed trace (no intervals): its p99 is lower by
//     at least CLEAR_MARGIN of the recommended policy's p99.
// Of several such policies the one with the lowest p99 is named.

import { formatMs } from '../ui/format';
import { distinguishable, intervalOf, seedCount } from './intervals';
import { formatMargin } from './margin';
import type { PolicyResult, Results } from './results';
import { replaysTrace } from './trace-run';

/** Without intervals, a policy is clearly better when its p99 TTFT is at least this share below the recommended one's. */
export const CLEAR_MARGIN = 0.1;

export type RecommendationCheck =
  /** The recommended policy did not run: nothing to show. */
  | { kind: 'absent' }
  /** No policy is clearly better: the badge stands. */
  | { kind: 'holds'; recommended: PolicyResult }
  /**
   * `better` is clearly better on this run: no badge; `sentence` names it (the
   * verdict), `detail` gives the figures and the rule (the table's notes).
   */
  | { kind: 'withheld'; recommended: PolicyResult; better: PolicyResult; sentence: string; detail: string };

/** Whether `row` is clearly better than `rec` on p99 TTFT (see above). */
export function clearlyBetter(row: PolicyResult, rec: PolicyResult): boolean {
  const a = row.p99_ttft_ms;
  const b = rec.p99_ttft_ms;
  if (!Number.isFinite(a) || !Number.isFinite(b) || a >= b) return false;
  const apart = distinguishable(row, rec, 'p99_ttft_ms');
  if (apart !== null) return apart;
  return b > 0 && (b - a) / b >= CLEAR_MARGIN;
}

/** The check of the results' recommended policy against the other rows. */
export function checkRecommendation(results: Results): RecommendationCheck {
  const rec = results.results.find((r) => r.policy === results.recommended);
  if (!rec) return { kind: 'absent' };
  let better: PolicyResult | null = null;
  for (const r of results.results) {
    if (r !== rec && clearlyBetter(r, rec) && (!better || r.p99_ttft_ms < better.p99_ttft_ms)) better = r;
  }
  if (!better) return { kind: 'holds', recommended: rec };
  const a = better.p99_ttft_ms;
  const b = rec.p99_ttft_ms;
  const n = seedCount(results);
  const why = intervalOf(better, 'p99_ttft_ms') && intervalOf(rec, 'p99_ttft_ms')
    ? `95% intervals apart at N = ${n} seeds`
    : `${replaysTrace(results) ? 'one replay of the trace' : 'one seed'}: clearly means at least ${formatMargin(CLEAR_MARGIN)} lower`;
  // The verdict names the better policy in one short sentence (a phone's first
  // screen holds the verdict and the table's top); the figures and the rule go
  // to the table's notes.
  const sentence = `No badge: ${better.label} beats the recommended ${rec.label} here.`;
  const detail = `On this scenario ${better.label} is clearly better than the recommended ${rec.label}: p99 TTFT ${formatMs(a)} ms vs ${formatMs(b)} ms, ${formatMargin((b - a) / b)} lower (${why}), so the badge is withheld here.`;
  return { kind: 'withheld', recommended: rec, better, sentence, detail };
}
