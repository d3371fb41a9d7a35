// Experiment: a whole scenario run, every listed policy on the identical trace
// (its results JSON: io/results_json.h; replicate statistics: replicates.h).
//
// An experiment is a list of independent runs (run_list.h): per replicate,
// each policy, then the ideal and the pooled bound. run_experiment executes
// them on `jobs` threads and assembles the report in run order, so the
// results are the same bytes for any number of jobs (and for shards merged:
// shard.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

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

}  // namespace prefixroute
