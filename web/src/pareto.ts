// The Pareto front of a sweep: the points no other point beats on both
// axes at once. Presentation only — the core marks the same points in the
// sweep JSON ("pareto"); the page recomputes them to draw the front as a line
// and a unit test checks the two agree.

/** One (value, policy) outcome of a sweep: higher hit rate and lower p99 are better. */
export interface TradeOff {
  hitRate: number;
  p99Ms: number;
}

/** Whether `a` dominates `b`: at least as good on both axes and strictly better on one. */
export function dominates(a: TradeOff, b: TradeOff): boolean {
  return a.hitRate >= b.hitRate && a.p99Ms <= b.p99Ms && (a.hitRate > b.hitRate || a.p99Ms < b.p99Ms);
}

/**
 * For each point, whether it is on the Pareto front (no point dominates it).
 * Points with a non-finite coordinate are never on the front and dominate
 * nothing. Equal points are all on the front. O(n²); sweeps have at most
 * 200 values × 10 policies.
 */
export function paretoFlags(points: readonly TradeOff[]): boolean[] {
  const finite = points.map((p) => Number.isFinite(p.hitRate) && Number.isFinite(p.p99Ms));
  return points.map((p, i) => finite[i] && !points.some((q, j) => finite[j] && dominates(q, p)));
}

/**
 * The front as a line to draw: the distinct front points ordered by hit rate
 * (and so by p99, which rises along the front), left to right.
 */
export function paretoLine(points: readonly TradeOff[]): TradeOff[] {
  const flags = paretoFlags(points);
  const front = points.filter((_, i) => flags[i]);
  front.sort((a, b) => a.hitRate - b.hitRate || a.p99Ms - b.p99Ms);
  return front.filter((p, i) => i === 0 || p.hitRate !== front[i - 1].hitRate || p.p99Ms !== front[i - 1].p99Ms);
}
