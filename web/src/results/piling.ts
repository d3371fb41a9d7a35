// Results that come from piling onto few replicas. The core's `imbalance`
// (core/src/sim/metrics.cpp) is the busiest replica's busy time × replicas /
// all replicas' busy time: 1.00 is an even spread, R (the replica count) is
// all the work on one replica. A low p99 bought with an imbalance far above
// one holds only while that replica keeps up: the verdict says so for every
// policy it names whose imbalance is above IMBALANCE_BOUND.

import { formatRatio } from '../ui/format';
import type { PolicyResult } from './results';

/**
 * Above this imbalance the verdict warns: the busiest replica did more than
 * twice an even share of the work (on 8 replicas, over a quarter of it).
 */
export const IMBALANCE_BOUND = 2;

/** Whether a row's result comes from piling onto few replicas (imbalance above IMBALANCE_BOUND). */
export function piles(row: PolicyResult): boolean {
  return Number.isFinite(row.imbalance) && row.imbalance > IMBALANCE_BOUND;
}

/** "A and B", "A, B and C". */
function names(list: readonly string[]): string {
  return list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}` : list[0] ?? '';
}

/**
 * One sentence on the rows of `named` (the policies the verdict names, in its
 * order) that pile onto few replicas, or '' when none does:
 * "Expected TTFT piles its work onto few replicas: imbalance 8.00 of at most 8
 * (its busiest replica did 8.00 times an even share; flagged above 2)."
 */
export function pilingSentence(named: readonly PolicyResult[]): string {
  const seen = new Set<string>();
  const rows = named.filter((r) => {
    if (seen.has(r.policy) || !piles(r)) return false;
    seen.add(r.policy);
    return true;
  });
  if (rows.length === 0) return '';
  const most = rows[0].replicas.length;
  const atMost = most > 0 ? ` of at most ${most}` : '';
  if (rows.length === 1) {
    const r = rows[0];
    return `${r.label} piles its work onto few replicas: imbalance ${formatRatio(r.imbalance)}${atMost} (its busiest replica did ${formatRatio(r.imbalance)} times an even share; flagged above ${IMBALANCE_BOUND}).`;
  }
  return `${names(rows.map((r) => r.label))} pile their work onto few replicas: imbalance ${names(rows.map((r) => formatRatio(r.imbalance)))}${atMost} (the busiest replica did that many times an even share; flagged above ${IMBALANCE_BOUND}).`;
}
