// Shards: one experiment or sweep split over machines.
//
// A shard K/N runs the runs i of the run list (run_list.h) with
// i mod N == K - 1. Its document, and the merge of N documents back into the
// report a single run_experiment / run_sweep would have made (so
// results_to_json / sweep_to_json of it are the same bytes): io/shard_json.h
// (tests/run/shard_test.cpp, tests/cli/shards_parallel_test.sh).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/run/sweep.h"

namespace prefixroute {

/// One run a shard executed: its place in the list and what it produced.
struct ShardRun {
  std::size_t run = 0;           ///< index in the whole list (a sweep's points one after another)
  std::size_t point = 0;         ///< the sweep point (0 for an experiment)
  RunKey key;                    ///< replicate and phase within the point
  std::uint64_t requests = 0;    ///< of the trace it ran on
  std::uint64_t prompt_tokens = 0;
  std::uint64_t fingerprint = 0;
  PolicyOutcome outcome;         ///< phase < policies (series kept only when asked, replicate 0)
  CacheBound bound;              ///< the bound phases
};

/// What one shard ran. Invariant: `runs` holds every run the shard selects,
/// in order, unless cancelled.
struct ShardReport {
  Shard shard;
  std::size_t total_runs = 0;
  std::vector<ShardRun> runs;
  bool cancelled = false;
};

/// Runs the shard's runs of a valid scenario (`replay`: as for
/// run_experiment). `progress` gets the run index in the scenario's list.
/// `keep_series`: keep the per-request series of replicate 0's policy runs
/// and record their timelines (sim/timeline.h) (the module hands them to the
/// page's charts); the document never holds them.
ShardReport run_experiment_shard(const Scenario& scenario, const Shard& shard, const ExperimentProgress& progress = {},
                                 const ReplayedTrace* replay = nullptr, unsigned jobs = 1, bool keep_series = false);

/// Runs the shard's runs of a planned sweep (plan_sweep with no errors),
/// replaying `replay` when given (record_sweep_replay, sweep_replay.h).
ShardReport run_sweep_shard(const SweepReport& plan, const Shard& shard, const SweepProgress& progress = {},
                            unsigned jobs = 1, const ReplayedTrace* replay = nullptr);

}  // namespace prefixroute
