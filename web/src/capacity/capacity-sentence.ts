// The plain sentence that answers the capacity question for the scenario on
// screen: the SLO, the load it was searched at, and per policy the GPUs it
// needs (fewest first), from the core's capacity JSON alone.

import type { CapacityResults, CapacityRow } from './capacity-results';

/** A number as the page prints a count or load: at most 3 decimals, thousands grouped. */
function num(x: number): string {
  return x.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** The SLO as text: "p99 TTFT ≤ 2000 ms" and, when bounded, "p90 TPOT ≤ 50 ms". */
export function sloText(doc: CapacityResults): string {
  const slo = doc.scenario.slo;
  const parts: string[] = [];
  if (slo.ttft_ms > 0) parts.push(`p${num(slo.ttft_percentile)} TTFT ≤ ${num(slo.ttft_ms)} ms`);
  if (slo.tpot_ms > 0) parts.push(`p${num(slo.tpot_percentile)} TPOT ≤ ${num(slo.tpot_ms)} ms`);
  return parts.join(' and ');
}

function gpusText(row: CapacityRow, maxReplicas: number, gpusPerReplica: number): string {
  if (row.gpus === null) return `${row.label} does not meet it with up to ${num(maxReplicas * gpusPerReplica)} GPUs`;
  const cost = typeof row.cost_per_month === 'number' ? ` ($${num(Math.round(row.cost_per_month))} a month)` : '';
  return `${row.label} needs ${num(row.gpus)} GPU${row.gpus === 1 ? '' : 's'}${cost}`;
}

/**
 * "At p99 TTFT ≤ 2000 ms and 100 requests/s: Affinity needs 3 GPUs, Round
 * robin needs 4 GPUs." Policies with the fewest GPUs first (a policy that
 * never meets the SLO last); with replicates, the counts are means over the seeds.
 */
export function capacitySentence(doc: CapacityResults): string {
  const rows = [...doc.results].sort((a, b) => (a.gpus ?? Infinity) - (b.gpus ?? Infinity));
  const seeds = doc.results[0]?.per_seed.length ?? 1;
  const load = `${num(doc.load.base)} ${doc.load.unit}`;
  const mean = seeds > 1 ? ` (means over ${seeds} seeds)` : '';
  const answers = rows.map((r) => gpusText(r, doc.replicas.max, doc.replicas.gpus_per_replica));
  return `At ${sloText(doc)} and ${load}${mean}: ${answers.join(', ')}.`;
}
