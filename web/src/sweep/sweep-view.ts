// How the page shows a sweep's points: a policy whose outcome does not change
// over consecutive swept values (a policy the swept key does not touch, such
// as affinity under affinity_balanced.load_slack_s) is one row of the table
// and one point of the chart standing for all those values, not the same
// point listed and flagged once per value. Only the presentation merges:
// the numbers and the Pareto flags are the core's (sweep JSON), untouched,
// and the export is the JSON itself.

import type { SweepOutcome, SweepResults } from './sweep-results';

/** A policy's outcome at one or more consecutive swept values where it was the same. */
export interface SweepRow {
  /** The swept values (override texts) this row stands for, in sweep order; at least one. */
  values: string[];
  /** Index of the first of them among the sweep's points. */
  firstPoint: number;
  outcome: SweepOutcome;
}

/** Every number the page shows of an outcome, and its Pareto flag, equal. */
export function sameOutcome(a: SweepOutcome, b: SweepOutcome): boolean {
  return (
    a.policy === b.policy &&
    a.mean_ttft_ms === b.mean_ttft_ms &&
    a.p99_ttft_ms === b.p99_ttft_ms &&
    a.hit_rate === b.hit_rate &&
    a.prefill_tokens === b.prefill_tokens &&
    a.imbalance === b.imbalance &&
    a.pareto === b.pareto
  );
}

/**
 * The sweep's rows: per policy, its outcomes with each run of consecutive
 * equal ones merged; ordered by first value, then in the sweep's policy
 * order. O(points x policies).
 */
export function sweepRows(results: SweepResults): SweepRow[] {
  const open = new Map<string, SweepRow>();
  const rows: SweepRow[] = [];
  results.points.forEach((pt, point) => {
    for (const outcome of pt.results) {
      const last = open.get(outcome.policy);
      if (last && sameOutcome(last.outcome, outcome)) {
        last.values.push(pt.value);
        continue;
      }
      const row: SweepRow = { values: [pt.value], firstPoint: point, outcome };
      open.set(outcome.policy, row);
      rows.push(row);
    }
  });
  return rows;
}

/** The rows of one policy, in sweep order (one chart series). */
export function policyRows(rows: readonly SweepRow[], policy: string): SweepRow[] {
  return rows.filter((r) => r.outcome.policy === policy);
}

/**
 * What a row's values read as: "0.05"; "0 – 0.1" for a run of values;
 * "every value (0 – 0.2)" when it stands for the whole sweep.
 */
export function valuesText(values: readonly string[], pointCount: number): string {
  if (values.length === 1) return values[0];
  const span = `${values[0]} – ${values[values.length - 1]}`;
  return values.length === pointCount ? `every value (${span})` : span;
}
