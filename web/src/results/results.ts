// Types of the results JSON ("prefixroute.results/1", see
// core/include/prefixroute/run/experiment.h): what the benchmark writes and the
// page shows and exports.

export interface ReplicaResult {
  requests: number;
  prefill_tokens: number;
  cached_tokens: number;
  work_ms: number;
}

export interface PolicyResult {
  policy: string;
  label: string;
  mean_ttft_ms: number;
  p50_ttft_ms: number;
  p90_ttft_ms: number;
  p99_ttft_ms: number;
  max_ttft_ms: number;
  hit_rate: number;
  prompt_tokens: number;
  prefill_tokens: number;
  cached_tokens: number;
  imbalance: number;
  /** hit_rate over the ideal bound's hit rate (when the core reports bounds). */
  hit_share_of_ideal?: number;
  /** Time per output token (ms) and output tokens/s of the cluster: with the batched engine (decode on). */
  mean_tpot_ms?: number;
  p99_tpot_ms?: number;
  output_tokens_per_s?: number;
  /** Workloads with sessions only: sessions, those of more than one call, the hit rate of the calls after a
   * session's first, and the share of multi-call sessions served by one replica throughout. */
  sessions?: number;
  multi_call_sessions?: number;
  later_call_hit_rate?: number;
  one_replica_session_share?: number;
  replicas: ReplicaResult[];
  /** Runs with a benchmark client (client.*): requests that timed out, and the time requests waited in the client for a slot. */
  failed?: number;
  mean_client_wait_ms?: number;
  p99_client_wait_ms?: number;
  /** A client with stages (client.stages): each stage's figures, in ladder order, the warm-up left out (stages.ts). */
  stages?: StageResult[];
  /**
   * With replicates > 1: each metric's 95 % Student-t interval over the
   * seeds (the row's metric values are then the means).
   */
  interval?: Partial<Record<string, MetricInterval>>;
}

/**
 * One stage of a client's load ladder as the core measured it (core:
 * stage_metrics, run/replicates.cpp): its offered load (a rate in requests/s
 * for open-loop clients, a concurrency for closed ones), its window and its
 * figures over the requests it sent. With replicates > 1, each figure is its
 * mean over the seeds. TPOT and KV use are null when the engine has none.
 */
export interface StageResult {
  load: number;
  duration_s: number;
  start_s: number;
  end_s: number;
  requests: number;
  failed: number;
  completed_per_s: number;
  input_tokens_per_s: number;
  output_tokens_per_s: number;
  mean_ttft_ms: number;
  p50_ttft_ms: number;
  p90_ttft_ms: number;
  p99_ttft_ms: number;
  mean_tpot_ms: number | null;
  p90_tpot_ms: number | null;
  mean_e2e_ms: number;
  mean_kv_use: number | null;
  p90_kv_use: number | null;
  hit_rate: number;
  mean_client_wait_ms: number;
}

/** A metric's 95 % confidence interval over the replicates: mean ± half_width = [low, high]. */
export interface MetricInterval {
  half_width: number;
  low: number;
  high: number;
}

/** The replicates section of a run with replicates > 1 (core: ReplicateStats). */
export interface ReplicatesInfo {
  count: number;
  seeds: number[];
  confidence: number;
  /** Student-t quantile the half-widths were made with. */
  t: number;
  headline_metrics: string[];
  /** Per headline metric, the pairs of policies whose intervals overlap. */
  not_distinguishable: Record<string, [string, string][]>;
}

/** A cache that no routing can beat (ideal: unbounded; pooled: the cluster's caches as one). */
export interface CacheBound {
  capacity_tokens: number;
  hit_rate: number;
  cached_tokens: number;
  prefill_tokens: number;
  /** With replicates > 1: the bound's metrics' 95 % intervals over the seeds. */
  interval?: Partial<Record<string, MetricInterval>>;
}

export interface Results {
  schema: string;
  /** The policy prefixroute recommends (the catalogue's recommended entry). */
  recommended: string;
  scenario: Record<string, unknown>;
  workload: { requests: number; prompt_tokens: number; fingerprint: string };
  bounds?: { ideal?: CacheBound; pooled?: CacheBound };
  results: PolicyResult[];
  replicates?: ReplicatesInfo;
}

export function parseResults(json: string): Results {
  const doc = JSON.parse(json) as Results;
  if (!doc || !Array.isArray(doc.results) || typeof doc.workload !== 'object') {
    throw new Error('the results JSON does not have the expected shape');
  }
  return doc;
}
