// Types of the results JSON ("prefixroute.results/1", see
// core/include/prefixroute/experiment.h): what the benchmark writes and the
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
  replicas: ReplicaResult[];
}

/** A cache that no routing can beat (ideal: unbounded; pooled: the cluster's caches as one). */
export interface CacheBound {
  capacity_tokens: number;
  hit_rate: number;
  cached_tokens: number;
  prefill_tokens: number;
}

export interface Results {
  schema: string;
  scenario: Record<string, unknown>;
  workload: { requests: number; prompt_tokens: number; fingerprint: string };
  bounds?: { ideal?: CacheBound; pooled?: CacheBound };
  results: PolicyResult[];
}

export function parseResults(json: string): Results {
  const doc = JSON.parse(json) as Results;
  if (!doc || !Array.isArray(doc.results) || typeof doc.workload !== 'object') {
    throw new Error('the results JSON does not have the expected shape');
  }
  return doc;
}
