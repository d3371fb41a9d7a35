// What the replicates let the page claim. With replicates > 1 the core
// reports each metric as the mean over the seeds with its 95 % Student-t
// interval (results JSON: a row's `interval`); two policies are told apart on
// a metric only when their intervals do not overlap, the rule of the core's
// `not_distinguishable` list (core/src/base/statistics.cpp, intervals_overlap:
// a.low <= b.high && b.low <= a.high). With one seed nothing is tested: the
// page says so instead of marking a winner.

import type { MetricInterval, PolicyResult, Results } from './results';

/** Seeds run: the replicates' count, 1 without replicates (and always for a replayed trace). */
export function seedCount(results: Results): number {
  return results.replicates?.count ?? 1;
}

/** A row's interval on a metric (results JSON key), or null with one seed. */
export function intervalOf(row: PolicyResult, metric: string): MetricInterval | null {
  const i = row.interval?.[metric];
  return i && Number.isFinite(i.low) && Number.isFinite(i.high) ? i : null;
}

/** The core's overlap rule (intervals_overlap): closed intervals sharing a point. */
export function intervalsOverlap(a: MetricInterval, b: MetricInterval): boolean {
  return a.low <= b.high && b.low <= a.high;
}

/**
 * Whether two policies differ on a metric at the seeds run: true when their
 * intervals are disjoint, false when they overlap, null when there are no
 * intervals to judge by (one seed).
 */
export function distinguishable(a: PolicyResult, b: PolicyResult, metric: string): boolean | null {
  const x = intervalOf(a, metric);
  const y = intervalOf(b, metric);
  if (!x || !y) return null;
  return !intervalsOverlap(x, y);
}

/** Index of the row with the best value (lowest or highest), -1 when none is finite. */
export function bestIndex(rows: readonly PolicyResult[], value: (r: PolicyResult) => number, better: 'low' | 'high'): number {
  let best = -1;
  rows.forEach((r, i) => {
    const v = value(r);
    if (!Number.isFinite(v)) return;
    if (best < 0 || (better === 'low' ? v < value(rows[best]) : v > value(rows[best]))) best = i;
  });
  return best;
}

/**
 * How a column's leader stands: `best` (its interval is apart from every
 * other row's: the table tags it "best"), `tied` with the rows whose
 * intervals overlap it (not distinguishable at this N), or `untested` (one
 * seed: the leader is only the lowest figure of that seed).
 */
export type Standing =
  | { kind: 'none' }
  | { kind: 'untested'; leader: number }
  | { kind: 'best'; leader: number }
  | { kind: 'tied'; leader: number; with: number[] };

export function columnStanding(rows: readonly PolicyResult[], metric: string, value: (r: PolicyResult) => number, better: 'low' | 'high'): Standing {
  const leader = bestIndex(rows, value, better);
  if (leader < 0 || rows.length < 2) return { kind: 'none' };
  const ties: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (i === leader) continue;
    const d = distinguishable(rows[leader], rows[i], metric);
    if (d === null) return { kind: 'untested', leader };
    if (!d) ties.push(i);
  }
  return ties.length ? { kind: 'tied', leader, with: ties } : { kind: 'best', leader };
}
