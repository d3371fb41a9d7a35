// The "Load stages" view's data: a client's load ladder (client.stages) as
// the results JSON carries it, one `stages` array per policy, mapped to what
// the view draws: a statistic of each stage against the stage's offered load,
// one series per policy, and the per-stage table's rows. Every number is the
// core's, read as it is; nothing here models or recomputes anything. Pure
// functions, O(policies x stages).

import type { Results, StageResult } from './results';

/** What a stage's `load` is: a send rate (poisson, constant clients) or a concurrency (closed). */
export interface OfferedLoad {
  kind: 'rate' | 'concurrency';
  /** The x axis' title. */
  axis: string;
  /** The table column's heading. */
  column: string;
  /** One stage's load as text: "4 conc", "12.5 req/s". */
  text: (load: number) => string;
}

/** The offered load of these results: a closed client's stages are concurrencies, the others' rates. */
export function offeredLoad(results: Results): OfferedLoad {
  const client = results.scenario.client as { kind?: unknown } | undefined;
  if (client?.kind === 'closed') {
    return { kind: 'concurrency', axis: 'offered load: concurrency (requests outstanding)', column: 'Concurrency', text: (v) => `${v} conc` };
  }
  return { kind: 'rate', axis: 'offered load: send rate (requests/s)', column: 'Send rate (req/s)', text: (v) => `${v} req/s` };
}

/** A figure of a stage the charts can draw. */
export interface StageStat {
  id: string;
  key: keyof StageResult;
  label: string;
  /** The value axis' title. */
  axis: string;
}

/** The TTFT statistics the TTFT chart offers; the first is the default (the published figures' p90). */
export const TTFT_STATS: readonly StageStat[] = [
  { id: 'p90', key: 'p90_ttft_ms', label: 'p90', axis: 'p90 TTFT (ms)' },
  { id: 'mean', key: 'mean_ttft_ms', label: 'Mean', axis: 'mean TTFT (ms)' },
  { id: 'p50', key: 'p50_ttft_ms', label: 'p50', axis: 'p50 TTFT (ms)' },
  { id: 'p99', key: 'p99_ttft_ms', label: 'p99', axis: 'p99 TTFT (ms)' },
];

/** The throughput measures the throughput chart offers; the first is the default. */
export const THROUGHPUT_STATS: readonly StageStat[] = [
  { id: 'requests', key: 'completed_per_s', label: 'Completed requests/s', axis: 'completed requests/s' },
  { id: 'output', key: 'output_tokens_per_s', label: 'Output tokens/s', axis: 'output tokens/s' },
  { id: 'input', key: 'input_tokens_per_s', label: 'Input tokens/s', axis: 'input tokens/s' },
];

/** The statistic of `list` with this id; the list's first (the default) for an unknown one. */
export function statById(list: readonly StageStat[], id: string): StageStat {
  return list.find((s) => s.id === id) ?? list[0];
}

/** Whether any policy's results carry stages: the view is shown only then. */
export function hasStages(results: Results): boolean {
  return results.results.some((r) => (r.stages?.length ?? 0) > 0);
}

/** One point of a series: a stage's offered load and its figure (null: the stage has none, e.g. no TPOT without decode). */
export interface StagePoint {
  stage: number;
  x: number;
  y: number | null;
}

/** One policy's line: its stages in ladder order. */
export interface StageSeries {
  policy: string;
  label: string;
  points: StagePoint[];
}

function figure(stage: StageResult, key: keyof StageResult): number | null {
  const v = stage[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A statistic against the offered load, one series per policy (in the results' order), stages numbered from 1. */
export function stageSeries(results: Results, stat: StageStat): StageSeries[] {
  return results.results
    .filter((r) => (r.stages?.length ?? 0) > 0)
    .map((r) => ({
      policy: r.policy,
      label: r.label,
      points: (r.stages ?? []).map((s, i) => ({ stage: i + 1, x: s.load, y: figure(s, stat.key) })),
    }));
}

/** A row of the per-stage table: a policy's stage. */
export interface StageRow {
  policy: string;
  label: string;
  /** 1-based, in ladder order (the warm-up is not a stage of the results). */
  stage: number;
  figures: StageResult;
}

/** The per-stage table's rows: each policy's stages in ladder order, policies in the results' order. */
export function stageRows(results: Results): StageRow[] {
  return results.results.flatMap((r) => (r.stages ?? []).map((figures, i) => ({ policy: r.policy, label: r.label, stage: i + 1, figures })));
}

/** A column of the per-stage table: its heading and the figure it shows (a fraction shown as a percentage). */
export interface StageColumn {
  id: string;
  key: keyof StageResult;
  heading: string;
  format: 'ms' | 'rate' | 'count' | 'percent';
}

/** The table's figure columns, after the policy, the stage and its offered load (the CLI's stage table, and the rest of the JSON's). */
export const STAGE_COLUMNS: readonly StageColumn[] = [
  { id: 'requests', key: 'requests', heading: 'Requests', format: 'count' },
  { id: 'failed', key: 'failed', heading: 'Failed', format: 'count' },
  { id: 'completed_per_s', key: 'completed_per_s', heading: 'Completed/s', format: 'rate' },
  { id: 'input_tokens_per_s', key: 'input_tokens_per_s', heading: 'Input tok/s', format: 'count' },
  { id: 'output_tokens_per_s', key: 'output_tokens_per_s', heading: 'Output tok/s', format: 'count' },
  { id: 'mean_ttft_ms', key: 'mean_ttft_ms', heading: 'Mean TTFT (ms)', format: 'ms' },
  { id: 'p50_ttft_ms', key: 'p50_ttft_ms', heading: 'p50 TTFT (ms)', format: 'ms' },
  { id: 'p90_ttft_ms', key: 'p90_ttft_ms', heading: 'p90 TTFT (ms)', format: 'ms' },
  { id: 'p99_ttft_ms', key: 'p99_ttft_ms', heading: 'p99 TTFT (ms)', format: 'ms' },
  { id: 'mean_tpot_ms', key: 'mean_tpot_ms', heading: 'Mean TPOT (ms)', format: 'ms' },
  { id: 'p90_tpot_ms', key: 'p90_tpot_ms', heading: 'p90 TPOT (ms)', format: 'ms' },
  { id: 'mean_e2e_ms', key: 'mean_e2e_ms', heading: 'Mean E2E (ms)', format: 'ms' },
  { id: 'mean_kv_use', key: 'mean_kv_use', heading: 'KV use, mean', format: 'percent' },
  { id: 'p90_kv_use', key: 'p90_kv_use', heading: 'KV use, p90', format: 'percent' },
  { id: 'hit_rate', key: 'hit_rate', heading: 'Hit rate', format: 'percent' },
  { id: 'mean_client_wait_ms', key: 'mean_client_wait_ms', heading: 'Client wait (ms)', format: 'ms' },
];

/** A column's figure of a stage (null: the run has none, e.g. TPOT without decode). */
export function stageFigure(row: StageRow, column: StageColumn): number | null {
  return figure(row.figures, column.key);
}
