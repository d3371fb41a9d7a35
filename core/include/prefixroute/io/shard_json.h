// The shard document: what one shard of an experiment or sweep writes
// (run/shard.h runs it), and the merge of all N documents back into exactly
// the report one machine makes.
//
// Shard document (schema "prefixroute.shard/1"; 2-space indented):
//   { "schema": "prefixroute.shard/1",
//     "kind": "experiment" | "sweep",
//     "shard": { "index": K, "count": N },     (K is 1-based)
//     "runs": total runs of the whole list,
//     experiment: "scenario": { canonical scenario }  (a replay's includes the trace's
//                  name, lines and content hash: shards of different files never merge)
//                 and, under the batched engine or with hardware.model set, "given": [ the
//                  derivable fields given (Scenario::given) ] (the canonical scenario
//                  cannot tell a given value from a default without hardware.model, and
//                  the results' hardware summary names which it was)
//     sweep:      "sweep": { "key", "values": [...] }, "scenarios": [ canonical scenario per point ],
//     "results": [ one per run of this shard, in run order:
//       a policy run: { "run", "workload": { "requests", "prompt_tokens", "fingerprint" },
//                       "policy", "decode", "summary": { every RunSummary field },
//                       "replicas": [ { "requests", "prefill_tokens", "cached_tokens",
//                                       "busy_ticks", "peak_in_flight", "peak_kv_usage" } ] }
//                     under the batched engine also "batched": true (absent under fifo), the
//                     summary's and each replica's batched figures (TPOT, output tokens, steps,
//                     batch, preemptions, ...) and, for the first replicate's runs,
//                     "timeline": { "period_ticks", "batch": [...], "kv_blocks": [...] }
//                     (sample after sample, each with every replica's; at most kInFlightSamples)
//       a bound run:  { "run", "workload": {...}, "bound": "ideal" | "pooled",
//                       "capacity_tokens", "hit_rate", "cached_tokens", "prefill_tokens" } ] }
// Numbers are written so they read back to the same double (nlohmann's
// shortest round-trip form), so the merge recomputes every mean and interval
// from the same bits one machine had.
//
// What a merge refuses, each with an error naming the document: text that is
// not a shard document; shards of another kind, scenario (the first
// differing field named), sweep or shard count; a shard given twice or
// missing; a run missing, repeated or outside its shard; runs of one seed that
// disagree on the workload's fingerprint (shards made by different builds).
//
// Cost: a shard holds its runs' summaries and per-replica totals, never
// per-request series: O(runs x replicas) bytes (plus, under the batched
// engine, O(policies x replicas x kInFlightSamples) for the timelines).
#pragma once

#include <string>
#include <vector>

#include "prefixroute/run/shard.h"

namespace prefixroute {

/// The shard document of a complete (not cancelled) experiment shard.
std::string experiment_shard_to_json(const Scenario& scenario, const ShardReport& shard);

/// The shard document of a complete sweep shard.
std::string sweep_shard_to_json(const SweepSpec& spec, const SweepReport& plan, const ShardReport& shard);

/// A document to merge and the name errors call it by (a file name, "document 2").
struct ShardInput {
  std::string name;
  std::string text;
};

/// The merged report, or why the documents do not merge.
struct MergedShards {
  enum class Kind { Experiment, Sweep };
  Kind kind = Kind::Experiment;
  Scenario scenario;        ///< experiment
  ExperimentReport report;  ///< experiment: as run_experiment would return it, without per-request series
  SweepSpec spec;           ///< sweep
  SweepReport sweep;        ///< sweep: as run_sweep would return it
  std::vector<FieldError> errors;  ///< field "(shards)" or "(shard NAME)"; non-empty: nothing merged
  bool ok() const { return errors.empty(); }
};

/// Checks and merges shard documents (any order). O(total size).
MergedShards merge_shards(const std::vector<ShardInput>& documents);

}  // namespace prefixroute
