// The sweep JSON ("prefixroute.sweep/1", written by the core's
// sweep_to_json) as the page reads it. The page draws from these numbers and
// exports the JSON text itself, untouched.

/** One policy's outcome at one swept value. */
export interface SweepOutcome {
  policy: string;
  mean_ttft_ms: number;
  p99_ttft_ms: number;
  /** Fraction of prompt tokens served from cache. */
  hit_rate: number;
  prefill_tokens: number;
  imbalance: number;
  /** On the Pareto front of all the sweep's points (the core's verdict). */
  pareto: boolean;
}

/** One swept value (as the override text the core applied) and every policy's outcome. */
export interface SweepPointResult {
  value: string;
  results: SweepOutcome[];
}

/** A whole sweep: the dotted key varied and its points in order. */
export interface SweepResults {
  schema: string;
  /** The policy prefixroute recommends (the catalogue's recommended entry). */
  recommended: string;
  key: string;
  points: SweepPointResult[];
}

/** Parses sweep JSON; throws on a document of another schema (a bug, not user input). */
export function parseSweepResults(json: string): SweepResults {
  const doc = JSON.parse(json) as Partial<SweepResults>;
  if (doc.schema !== 'prefixroute.sweep/1' || typeof doc.recommended !== 'string' || typeof doc.key !== 'string' || !Array.isArray(doc.points)) {
    throw new Error(`not a prefixroute.sweep/1 document (schema ${String(doc.schema)})`);
  }
  return { schema: doc.schema, recommended: doc.recommended, key: doc.key, points: doc.points };
}

/** Policies in the order the sweep reports them. */
export function sweepPolicies(results: SweepResults): string[] {
  return results.points[0]?.results.map((r) => r.policy) ?? [];
}

/** A point of the Pareto front as drawn, with the swept value and the policy it stands for. */
export interface FrontPoint {
  /** Fraction of prompt tokens served from cache. */
  hitRate: number;
  p99Ms: number;
  value: string;
  policy: string;
}

/**
 * The core's Pareto front as a line to draw: exactly the points the sweep
 * JSON flags `pareto`, ordered by hit rate (then p99: along the front p99
 * rises with hit rate), each distinct (hit rate, p99) once — the first in
 * sweep order stands for its equals. The page draws the core's verdict; it
 * never judges dominance itself.
 */
export function paretoFront(results: SweepResults): FrontPoint[] {
  const flagged = results.points.flatMap((pt) =>
    pt.results.filter((r) => r.pareto === true).map((r) => ({ hitRate: r.hit_rate, p99Ms: r.p99_ttft_ms, value: pt.value, policy: r.policy })));
  // Array.prototype.sort is stable: equal points keep their sweep order.
  flagged.sort((a, b) => a.hitRate - b.hitRate || a.p99Ms - b.p99Ms);
  return flagged.filter((p, i) => i === 0 || p.hitRate !== flagged[i - 1].hitRate || p.p99Ms !== flagged[i - 1].p99Ms);
}
