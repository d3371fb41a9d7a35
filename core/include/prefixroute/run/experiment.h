// Experiment: a whole scenario run, every listed policy on the identical trace,
// and its results JSON (the schema the benchmark writes and the page exports).
//
// An experiment is a list of independent runs (run_list.h): per replicate,
// each policy, then the ideal and the pooled bound. run_experiment executes
// them on `jobs` threads and assembles the report in run order, so the
// results are the same bytes for any number of jobs (and for shards merged:
// shard.h).
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

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/base/statistics.h"
#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"

namespace prefixroute {

struct PolicyOutcome {
  std::string policy;
  RunSummary summary;
  SimulationRun run;
};

/// One seed's results in a replicated experiment: what the scenario with that
/// seed and one replicate reports. Outcomes hold summaries, per-replica
/// totals and the decode flag; their per-request series are released.
struct SeedReport {
  std::uint64_t seed = 0;
  std::uint64_t requests = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t fingerprint = 0;
  std::vector<PolicyOutcome> outcomes;  ///< in the scenario's policy order
  CacheBound ideal;
  CacheBound pooled;
};

/// The results of one experiment. The top-level fields are those of the
/// scenario's own seed (replicate 0), with each policy's per-request series
/// (PolicyOutcome::run) kept for charts; `seeds` adds every seed's summaries
/// when replicates > 1. A report merged from shards has no per-request series
/// (each outcome's run holds only replicas, decode, batched and, under the
/// batched engine, the timeline samples).
struct ExperimentReport {
  std::uint64_t requests = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t fingerprint = 0;
  std::vector<PolicyOutcome> outcomes;  ///< in the scenario's policy order
  CacheBound ideal;                     ///< one unbounded cache
  CacheBound pooled;                    ///< one cache of replicas x cache_tokens
  std::vector<SeedReport> seeds;        ///< replicates > 1: every seed, in order (the first repeats the above); else empty
  bool cancelled = false;
};

/// Progress of a whole experiment: run index in the scenario's run list
/// (run_list.h; with one replicate the phase: 0..policies-1 the policies,
/// then policies and policies+1 the ideal and pooled bounds), requests done
/// in it, requests per run. Return false to cancel. With jobs > 1 the runs
/// report interleaved, never two calls at once (they are serialised), and
/// once one call returns false no further call is made.
using ExperimentProgress =
    std::function<bool(std::size_t policy_index, std::uint64_t done, std::uint64_t total)>;

/// Runs every policy of a valid scenario (see validate()) on one trace, then
/// the two cache bounds, once per replicate (seed .. seed + replicates - 1).
/// The trace is `replay` when given (a trace read for this scenario; one
/// replicate; each run opens its own reader of it, replayed_trace.h), else
/// the synthetic workload generated from each seed. The runs
/// go on `jobs` threads (1: in order on this one; a build without threads
/// always runs them so); the report is the same whatever `jobs`. Peak memory
/// grows with jobs: up to `jobs` runs' caches and workloads at once.
/// A cancelled report holds replicate 0's policies that finished before the
/// first that did not, and no seeds.
/// `record_timeline`: each outcome's run also holds its timeline
/// (sim/timeline.h; timeline_json.h writes them), replicate 0's only.
/// `keep_series`: replicate 0's outcomes keep their per-request series
/// (SimulationRun::ttft ...); without, a long run's per-request times go to
/// disk while it runs (tick_spill.h) and only the summaries remain.
ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress = {},
                                const ReplayedTrace* replay = nullptr, unsigned jobs = 1,
                                bool record_timeline = false, bool keep_series = true);

/// Replicate statistics of a report with replicates > 1, as the results
/// JSON and the command line's table show them.
struct ReplicatedMetric {
  std::string key;              ///< the results JSON key, e.g. "mean_ttft_ms"
  std::vector<double> per_seed; ///< in seed order (only seeds that have it, for predicted_*)
  Interval interval;            ///< mean and 95 % half-width over per_seed
};

struct PolicyReplicates {
  std::string policy;
  std::vector<ReplicatedMetric> metrics;  ///< in the results row's key order
  const ReplicatedMetric* find(std::string_view key) const;
};

struct ReplicateStats {
  std::size_t count = 0;
  double t = 0;                                  ///< t_{0.975, count-1}
  std::vector<PolicyReplicates> policies;        ///< scenario order
  std::vector<ReplicatedMetric> ideal, pooled;   ///< hit_rate, cached_tokens, prefill_tokens
  ReplicatedMetric prompt_tokens;                ///< of the seeds' workloads
  struct Pair {
    std::string metric, a, b;  ///< a before b in scenario order
  };
  std::vector<Pair> not_distinguishable;         ///< headline metric by metric, pairs in order
};

/// The metrics two policies are compared on (the table's headline columns).
inline constexpr std::string_view kHeadlineMetrics[] = {"mean_ttft_ms", "p99_ttft_ms", "hit_rate",
                                                         "prefill_tokens"};

/// The statistics of `report.seeds` (empty stats when it has none). O(seeds x policies^2).
ReplicateStats replicate_stats(const ExperimentReport& report);

/// Checks a trace read for `scenario` against the limits that depend on both:
/// the trace's total prompt tokens / cluster.prefill_tokens_per_s (the longest
/// possible prefill work) must be at most kMaxPrefillSeconds, or a replica's
/// queue end could overflow a Tick. The synthetic workload has the same bound
/// in validate(); a trace's size is known only once it is read, so whoever
/// reads one calls this (through record_replay) before run_experiment.
/// Returns the problems; empty when the replay may run.
std::vector<FieldError> check_replay(const Scenario& scenario, double prompt_tokens);


/// check_replay with the trace's whole size: also bounds the step model's
/// worst case (prompt and output lengths) when the scenario has step costs
/// or runs the batched engine.
std::vector<FieldError> check_replay(const Scenario& scenario, const ReplaySize& size);

/// An upper estimate of run_experiment's peak heap, in bytes, beyond a
/// replayed trace's own memory (an InMemoryReplay's trace; a SpilledTrace
/// keeps none but a 1 MiB buffer per run at once): the synthetic workload
/// (when `replay` is null), every policy's per-request results (kept until
/// the end), and the largest runs at once. A policy's run holds the
/// replicas' caches (twice when KV events lag: the router's mirrors; never
/// more pieces than tokens), a session tally when requests share sessions
/// (SessionTally), its own state and one tree of every distinct token (a
/// router's own tree of the routed prompts, counted for every policy). The
/// ideal bound's run holds such a tree too, or nothing when the trace's block
/// ids gave the bound as it was read (ReplaySize::ideal_from_block_ids); the
/// pooled bound's run one cache of every replica's budget. With `jobs` = 1
/// the runs go one after another; with more, min(jobs, runs) runs at once, of
/// which at most the policies' runs are policy runs (and, with replicates,
/// workloads are counted). Replicates add nothing else: only the first seed
/// keeps per-request results. Built from the structures' own costs
/// (Workload::estimated_bytes, SimulationRun::kBytesPerRequest,
/// RadixCache::estimated_bytes) and checked against measured heap use in
/// tests/experiment_memory_test.cpp. O(policies).
double estimated_peak_bytes(const Scenario& scenario, const ReplaySize* replay = nullptr, unsigned jobs = 1);

/// The results JSON of a report (2-space indented, trailing newline).
std::string results_to_json(const Scenario& scenario, const ExperimentReport& report);

}  // namespace prefixroute
