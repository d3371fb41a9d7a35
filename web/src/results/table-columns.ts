// The results table's columns: which metric of a row each shows, its unit,
// format and which direction is better. Shared by the table, the verdict and
// the pinned-run comparison.

import { formatChange, formatCount, formatMs, formatPercent, formatPointChange, formatRatio } from '../ui/format';
import pageDefaults from '../state/page-defaults.json';
import type { PolicyResult } from './results';

export interface Column {
  /** The metric's key in the results JSON (and in a row's `interval`). */
  id: string;
  header: string;
  unit: string;
  value: (r: PolicyResult) => number;
  format: (v: number) => string;
  better: 'low' | 'high';
  change: (v: number, baseline: number) => string;
  /** Hidden first on narrow screens. */
  optional?: boolean;
}

export const COLUMNS: readonly Column[] = [
  { id: 'mean_ttft_ms', header: 'Mean TTFT', unit: 'ms', value: (r) => r.mean_ttft_ms, format: formatMs, better: 'low', change: formatChange },
  { id: 'p50_ttft_ms', header: 'p50 TTFT', unit: 'ms', value: (r) => r.p50_ttft_ms, format: formatMs, better: 'low', change: formatChange, optional: true },
  { id: 'p90_ttft_ms', header: 'p90 TTFT', unit: 'ms', value: (r) => r.p90_ttft_ms, format: formatMs, better: 'low', change: formatChange, optional: true },
  { id: 'p99_ttft_ms', header: 'p99 TTFT', unit: 'ms', value: (r) => r.p99_ttft_ms, format: formatMs, better: 'low', change: formatChange },
  { id: 'hit_rate', header: 'Hit rate', unit: '', value: (r) => r.hit_rate, format: formatPercent, better: 'high', change: formatPointChange },
  { id: 'prefill_tokens', header: 'Prefill tokens', unit: '', value: (r) => r.prefill_tokens, format: formatCount, better: 'low', change: formatChange },
  { id: 'imbalance', header: 'Imbalance', unit: '', value: (r) => r.imbalance, format: formatRatio, better: 'low', change: formatChange },
];

/**
 * Columns shown when the results have them: decode figures of the batched
 * engine (time per output token, output throughput of the whole cluster).
 */
export const DECODE_COLUMNS: readonly Column[] = [
  { id: 'mean_tpot_ms', header: 'Mean TPOT', unit: 'ms', value: (r) => r.mean_tpot_ms ?? NaN, format: formatMs, better: 'low', change: formatChange },
  { id: 'p99_tpot_ms', header: 'p99 TPOT', unit: 'ms', value: (r) => r.p99_tpot_ms ?? NaN, format: formatMs, better: 'low', change: formatChange, optional: true },
  { id: 'output_tokens_per_s', header: 'Output', unit: 'tokens/s', value: (r) => r.output_tokens_per_s ?? NaN, format: formatCount, better: 'high', change: formatChange },
];

/** The per-session columns, shown when the workload has sessions (the core reports them only then). */
export const SESSION_COLUMNS: readonly Column[] = [
  { id: 'later_call_hit_rate', header: 'Later-call hit rate', unit: '', value: (r) => r.later_call_hit_rate ?? NaN, format: formatPercent, better: 'high', change: formatPointChange },
  { id: 'one_replica_session_share', header: 'Sessions on one replica', unit: '', value: (r) => r.one_replica_session_share ?? NaN, format: formatPercent, better: 'high', change: formatPointChange },
];

/** The table's columns for these rows: COLUMNS, then each decode and session column every row has a value for. */
export function columnsFor(rows: readonly PolicyResult[]): Column[] {
  const present = (c: Column) => rows.length > 0 && rows.every((r) => Number.isFinite(c.value(r)));
  return [...COLUMNS, ...DECODE_COLUMNS.filter(present), ...SESSION_COLUMNS.filter(present)];
}

/**
 * The policy the small figures compare against: the cache-blind baseline,
 * named in page-defaults.json (the page's editorial choices are data, as the
 * presets are).
 */
export const BASELINE_POLICY: string = pageDefaults.baselinePolicy;

/** A half-width in the column's format: hit rates in points ("1.8 pp" reads as ± 1.8%), the rest as the value. */
export function formatHalfWidth(column: Column, half: number): string {
  return column.id === 'hit_rate' ? `${(half * 100).toFixed(1)}%` : column.format(half);
}
