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
  /** Workloads with sessions only: sessions, those of more than one call, the hit rate of the calls after a
   * session's first, and the share of multi-call sessions served by one replica throughout. */
  sessions?: number;
  multi_call_sessions?: number;
  later_call_hit_rate?: number;
  one_replica_session_share?: number;
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
