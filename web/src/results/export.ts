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
//
// Results with a benchmark client's load stages keep the one table: a
// `stage` column after `label` (empty on a policy's whole-run row, 1, 2, …
// on its stage rows, which follow it), and after the run's figure columns the
// stage figures that have no run column of their name (the stage's load and
// window, requests, completed/s, …). A stage row fills the columns of its
// stage's figures (mean_ttft_ms is the stage's mean TTFT there) and leaves
// the run-only ones empty; a whole-run row leaves the stage-only ones empty.
// Without stages the CSV has none of these columns.

import type { Results, StageResult } from './results';
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

/** A stage's figures, in the order of the results JSON's `stages` entries (results.ts' StageResult). */
export const CSV_STAGE_FIGURES: readonly (keyof StageResult)[] = [
  'load',
  'duration_s',
  'start_s',
  'end_s',
  'requests',
  'failed',
  'completed_per_s',
  'input_tokens_per_s',
  'output_tokens_per_s',
  'mean_ttft_ms',
  'p50_ttft_ms',
  'p90_ttft_ms',
  'p99_ttft_ms',
  'mean_tpot_ms',
  'p90_tpot_ms',
  'mean_e2e_ms',
  'mean_kv_use',
  'p90_kv_use',
  'hit_rate',
  'mean_client_wait_ms',
];

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
  const figures: string[] = [...CSV_COLUMNS, ...optional];
  const staged = results.results.some((r) => (r.stages?.length ?? 0) > 0);
  const stageOnly = staged ? CSV_STAGE_FIGURES.filter((c) => !figures.includes(c)) : [];
  const columns: string[] = staged ? [...figures.slice(0, 2), 'stage', ...figures.slice(2), ...stageOnly] : figures;
  const lines = [[...columns, ...CSV_SOURCE_COLUMNS].join(',')];
  const stageFigures = new Set<string>(CSV_STAGE_FIGURES);
  for (const [i, r] of rows.entries()) {
    lines.push([...columns.map((c) => (stageOnly.includes(c as keyof StageResult) || c === 'stage' ? '' : r[c])), ...source].map(csvCell).join(','));
    const policy = results.results[i];
    for (const [k, stage] of (policy.stages ?? []).entries()) {
      const figure = stage as unknown as Record<string, unknown>;
      const cell = (c: string): unknown =>
        c === 'policy' ? policy.policy : c === 'label' ? policy.label : c === 'stage' ? k + 1 : stageFigures.has(c) ? figure[c] : '';
      lines.push([...columns.map(cell), ...source].map(csvCell).join(','));
    }
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name that says which trace the results belong to. */
export function exportName(results: Results, ext: 'json' | 'csv'): string {
  const fp = /^[0-9a-f]{1,16}$/.test(results.workload.fingerprint) ? results.workload.fingerprint : 'run';
  return `prefixroute-results-${fp}.${ext}`;
}
