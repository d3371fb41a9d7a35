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

/** "A and B need 3 GPUs ($X a month)", "C needs 4 GPUs", "D does not meet it with up to 256 GPUs". */
function groupText(rows: CapacityRow[], maxReplicas: number, gpusPerReplica: number): string {
  const names = rows.length > 1 ? `${rows.slice(0, -1).map((r) => r.label).join(', ')} and ${rows[rows.length - 1]!.label}` : rows[0]!.label;
  const gpus = rows[0]!.gpus;
  if (gpus === null) return `${names} ${rows.length > 1 ? 'do' : 'does'} not meet it with up to ${num(maxReplicas * gpusPerReplica)} GPUs`;
  const cost = typeof rows[0]!.cost_per_month === 'number' ? ` ($${num(Math.round(rows[0]!.cost_per_month))} a month)` : '';
  return `${names} ${rows.length > 1 ? 'need' : 'needs'} ${num(gpus)} GPU${gpus === 1 ? '' : 's'}${cost}`;
}

/**
 * "At p99 TTFT ≤ 2000 ms and 100 requests/s: Affinity and Affinity balanced
 * need 3 GPUs; Round robin needs 4 GPUs." Policies needing the same GPUs
 * are named together, the fewest GPUs first (policies that never meet the
 * SLO last); with replicates, the counts are means over the seeds.
 */
export function capacitySentence(doc: CapacityResults): string {
  const rows = [...doc.results].sort((a, b) => (a.gpus ?? Infinity) - (b.gpus ?? Infinity));
  const groups: CapacityRow[][] = [];
  for (const r of rows) {
    const last = groups[groups.length - 1];
    if (last && last[0]!.gpus === r.gpus) last.push(r);
    else groups.push([r]);
  }
  const seeds = doc.results[0]?.per_seed.length ?? 1;
  const load = `${num(doc.load.base)} ${doc.load.unit}`;
  const mean = seeds > 1 ? ` (means over ${seeds} seeds)` : '';
  const answers = groups.map((g) => groupText(g, doc.replicas.max, doc.replicas.gpus_per_replica));
  return `At ${sloText(doc)} and ${load}${mean}: ${answers.join('; ')}.`;
}
