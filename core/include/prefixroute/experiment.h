// Experiment: a whole scenario run, every listed policy on the identical trace,
// and its results JSON (the schema the benchmark writes and the page exports).
//
// Results JSON (schema "prefixroute.results/1"):
//   { "schema": "prefixroute.results/1",
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
//                    "replicas": [ { "requests", "prefill_tokens", "cached_tokens", "work_ms",
//                                    "peak_in_flight", "peak_kv_usage" } ] } ] }
// It holds no timestamps or timings, so equal scenarios give equal bytes on
// every platform.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/workload/request_trace.h"
#include "prefixroute/scenario.h"
#include "prefixroute/sim/simulator.h"

namespace prefixroute {

struct PolicyOutcome {
  std::string policy;
  RunSummary summary;
  SimulationRun run;
};

struct ExperimentReport {
  std::uint64_t requests = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t fingerprint = 0;
  std::vector<PolicyOutcome> outcomes;  ///< in the scenario's policy order
  CacheBound ideal;                     ///< one unbounded cache
  CacheBound pooled;                    ///< one cache of replicas x cache_tokens
  bool cancelled = false;
};

/// Progress of a whole experiment: phase index (0..policies-1 for the
/// policies, then policies and policies+1 for the ideal and pooled bounds),
/// requests done in it, requests per phase. Return false to cancel.
using ExperimentProgress =
    std::function<bool(std::size_t policy_index, std::uint64_t done, std::uint64_t total)>;

/// Runs every policy of a valid scenario (see validate()) on one trace, then
/// the two cache bounds. The trace is `replay` when given (a trace read for
/// this scenario), else the synthetic workload generated from the scenario.
ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress = {},
                                const RequestTrace* replay = nullptr);

/// Checks a trace read for `scenario` against the limits that depend on both:
/// the trace's total prompt tokens / cluster.prefill_tokens_per_s (the longest
/// possible prefill work) must be at most kMaxPrefillSeconds, or a replica's
/// queue end could overflow a Tick. The synthetic workload has the same bound
/// in validate(); a trace's size is known only once it is read, so whoever
/// reads one calls this (through record_replay) before run_experiment.
/// Returns the problems; empty when the replay may run.
std::vector<FieldError> check_replay(const Scenario& scenario, double prompt_tokens);

/// The size of a replayed trace, as estimated_peak_bytes needs it.
struct ReplaySize {
  double requests = 0;
  double prompt_tokens = 0;      ///< summed over the requests
  double max_prompt_tokens = 0;  ///< of the longest prompt
  double pieces = 0;             ///< prompt pieces, summed over the requests
  double output_tokens = 0;      ///< summed over the requests
  double max_output_tokens = 0;  ///< of the longest output
};

/// check_replay with the trace's whole size: also bounds the step model's
/// worst case (prompt and output lengths) when the scenario has step costs
/// or runs the batched engine.
std::vector<FieldError> check_replay(const Scenario& scenario, const ReplaySize& size);

/// The size of `trace`. O(requests).
ReplaySize replay_size(const RequestTrace& trace);

/// An upper estimate of run_experiment's peak heap, in bytes, beyond a
/// replayed trace's own memory: the synthetic workload (when `replay` is
/// null), every policy's per-request results (kept until the end), the
/// replicas' caches (twice when KV events lag: the router's mirrors), and one
/// tree of every distinct token (a router's own tree, the ideal bound's cache). Policies run one after another, so their
/// trees are counted once. Built from the structures' own costs
/// (Workload::estimated_bytes, SimulationRun::kBytesPerRequest,
/// RadixCache::estimated_bytes) and checked against measured heap use in
/// tests/experiment_memory_test.cpp. O(1).
double estimated_peak_bytes(const Scenario& scenario, const ReplaySize* replay = nullptr);

/// The results JSON of a report (2-space indented, trailing newline).
std::string results_to_json(const Scenario& scenario, const ExperimentReport& report);

}  // namespace prefixroute
