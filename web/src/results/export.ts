// Downloads of the current results. JSON is exactly the module's results JSON
// (schema "prefixroute.results/1", scenario included), byte for byte what
// `prefixroute --json` writes for the same scenario. CSV is plain
// RFC 4180 (one header row, CRLF line ends, no comment lines: spreadsheets
// import `#` lines as data): one row per policy with the table's columns at
// full precision, then the decode and per-session figures when the run has
// them (the core reports them only with decode on, or with sessions), then columns that say where the numbers come from, the same
// on every row: the workload's fingerprint, the equivalent prefixroute
// command and the page's link to the scenario. The full canonical scenario is
// the JSON export's.

import type { Results } from './results';
import type { Pair } from '../state/schema';

export const CSV_COLUMNS = [
  'policy',
  'label',
  'mean_ttft_ms',
  'p50_ttft_ms',
  'p90_ttft_ms',
  'p99_ttft_ms',
  'max_ttft_ms',
  'hit_rate',
  'prefill_tokens',
  'cached_tokens',
  'prompt_tokens',
  'imbalance',
] as const;

/**
 * Figures the core reports only for some runs: decode (end-to-end latency,
 * time per output token, throughput, batches; with decode on) and sessions
 * (with a workload of sessions). A column is written when every row has it.
 */
export const CSV_OPTIONAL_COLUMNS = [
  'mean_e2e_ms',
  'p50_e2e_ms',
  'p99_e2e_ms',
  'mean_tpot_ms',
  'p50_tpot_ms',
  'p99_tpot_ms',
  'output_tokens',
  'output_tokens_per_s',
  'mean_batch',
  'preemptions',
  'recomputed_tokens',
  'sessions',
  'multi_call_sessions',
  'later_call_hit_rate',
  'one_replica_session_share',
] as const;

/** Columns after the results: the run's provenance, the same on every row. */
export const CSV_SOURCE_COLUMNS = ['workload_fingerprint', 'command', 'link'] as const;

function csvCell(value: unknown): string {
  const text = typeof value === 'number' ? String(value) : String(value ?? '');
  // Quote anything with separators or quotes; neutralise spreadsheet formulas.
  const safe = /^[=+\-@\t\r]/.test(text) && typeof value !== 'number' ? `'${text}` : text;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/**
 * `traceName`: the replayed trace's file, when the results replayed one (the
 * CLI then needs --trace FILE). `link`: the page's link to the scenario.
 */
export function resultsToCsv(results: Results, overrides: readonly Pair[], traceName?: string, link = ''): string {
  const trace = traceName ? ` --trace ${/^[A-Za-z0-9._/-]+$/.test(traceName) ? traceName : `'${traceName.replace(/'/g, "'\\''")}'`}` : '';
  const sets = trace.trimStart() + (trace && overrides.length ? ' ' : '') + overrides.map(([k, v]) => `--set ${k}=${v}`).join(' ');
  const source = [results.workload.fingerprint, `prefixroute${sets ? ` ${sets}` : ''}`, link];
  const rows = results.results as unknown as readonly Record<string, unknown>[];
  const optional = CSV_OPTIONAL_COLUMNS.filter((c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number'));
  const columns = [...CSV_COLUMNS, ...optional];
  const lines = [[...columns, ...CSV_SOURCE_COLUMNS].join(',')];
  for (const r of rows) {
    lines.push([...columns.map((c) => r[c]), ...source].map(csvCell).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name that says which trace the results belong to. */
export function exportName(results: Results, ext: 'json' | 'csv'): string {
  const fp = /^[0-9a-f]{1,16}$/.test(results.workload.fingerprint) ? results.workload.fingerprint : 'run';
  return `prefixroute-results-${fp}.${ext}`;
}
