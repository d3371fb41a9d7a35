// The results JSON: what the command line writes and the page exports for one
// experiment (run/experiment.h).
//
// Results JSON (schema "prefixroute.results/1"):
//   { "schema": "prefixroute.results/1",
//     "recommended": the catalogue's recommended policy (policies/catalogue.h),
//     "scenario": { ...canonical scenario, every field... },
//     "workload": { "requests", "prompt_tokens", "fingerprint" (16 hex digits) },
//     "bounds": { "ideal":  { "capacity_tokens", "hit_rate", "cached_tokens", "prefill_tokens" },
//                 "pooled": { same } },
//     "results": [ { "policy", "label", "mean_ttft_ms", "p50_ttft_ms", "p90_ttft_ms",
//                    "p99_ttft_ms", "max_ttft_ms", "hit_rate" (fraction), "hit_share_of_ideal",
//                    "prompt_tokens", "prefill_tokens", "cached_tokens", "imbalance",
//                    "predicted_hit_rate" (null when the policy predicts nothing),
//                    "predicted_requests_actual_hit_rate",
//                    "mean_e2e_ms", "p50_e2e_ms", "p99_e2e_ms" (decode on only),
//                    "sessions", "multi_call_sessions", "later_call_hit_rate",
//                    "one_replica_session_share" (workloads with sessions, where
//                    some session has two calls: sim/session_tally.h; after the
//                    batched keys),
//                    "replicas": [ { "requests", "prefill_tokens", "cached_tokens", "work_ms",
//                                    "peak_in_flight", "peak_kv_usage" } ] } ] }
// Under the batched engine (or with hardware.model set) a "hardware" object
// (hardware_summary.h) follows "workload"; batched rows add, after the e2e
// keys, "mean_tpot_ms", "p50_tpot_ms", "p99_tpot_ms" (null when no request
// generated two tokens), "output_tokens", "output_tokens_per_s", "span_s",
// "mean_batch", "preemptions", "recomputed_tokens"; their replicas add
// "steps", "mean_batch", "peak_batch", "output_tokens", "output_tokens_per_s",
// "preemptions", "recomputed_tokens", "overcommits"; and the row gains
// "timeline": { "period_ms", "kv_capacity_blocks", "batch": [[per replica]],
// "kv_blocks": [[per replica]] } after "replicas".
// It holds no timestamps or timings, so equal scenarios give equal bytes on
// every platform.
//
// With replicates = N > 1 (seeds seed .. seed + N - 1) every key above stays
// where it is and holds the mean over the seeds (token counts become
// fractional means; "requests" and "capacity_tokens" are the same for every
// seed), and the replicated objects gain two keys after their own:
//     "interval": { <metric>: { "half_width", "low", "high" }, ... }
//         the 95 % Student-t interval of every numeric metric of the object
//         (low = mean - half_width, high = mean + half_width);
//     "per_seed": [ { "seed", <metric>: value, ... }, ... ]
//         each seed's value of those metrics, in seed order: exactly what
//         the run with that seed and replicates = 1 reports.
// Replicated objects: each results row (its metrics; its "replicas" hold
// per-replica-index means), bounds.ideal and bounds.pooled (hit_rate,
// cached_tokens, prefill_tokens), and workload (prompt_tokens; its
// per_seed entries are { "seed", "requests", "prompt_tokens", "fingerprint" }
// and its "fingerprint" is FNV-1a 64 over the seeds' fingerprints in order).
// "predicted_*" means are over the seeds where the policy predicted (TPOT's
// likewise). A batched row's "timeline" is replicate 0's: each seed samples
// at its own period, so samples cannot be averaged. Then,
// after "results":
//     "replicates": { "count": N, "seeds": [seed, ..., seed + N - 1],
//                     "confidence": 0.95, "t": t_{0.975, N-1},
//                     "headline_metrics": ["mean_ttft_ms", "p99_ttft_ms", "hit_rate", "prefill_tokens"],
//                     "not_distinguishable": { <headline metric>: [ [policy_a, policy_b], ... ] } }
// listing, per headline metric, every pair of policies (scenario order, a
// before b) whose intervals overlap; every pair not listed is
// distinguishable at this N (base/statistics.h has the rule).
#pragma once

#include <string>

#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// The results JSON of a report (2-space indented, trailing newline).
std::string results_to_json(const Scenario& scenario, const ExperimentReport& report);

}  // namespace prefixroute
