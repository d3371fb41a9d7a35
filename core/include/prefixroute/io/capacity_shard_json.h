// Capacity shard documents: what one shard of a capacity search writes
// (run_capacity_shard, run/capacity_search.h), and the merge of all N back
// into the report one machine makes, so capacity_to_json of the merge is the
// same bytes as `prefixroute --capacity --json` on one machine.
//
// Document (schema "prefixroute.capacity-shard/1"; 2-space indented):
//   { "schema": "prefixroute.capacity-shard/1",
//     "shard": { "index": K, "count": N }, "searches": searches of the whole list,
//     "scenario": { canonical scenario },
//     "results": [ one per search of this shard, in list order:
//       { "search": index, "seed",
//         "load":     { "found", "limited", "value", "steps": [ step ... ] },
//         "replicas": { same } } ] }
//   step: { "value", "met", "slo_attainment", "goodput_per_s",
//           "ttft_ms", "tpot_ms" (null when absent) }
// Numbers are written so they read back to the same double.
//
// A merge refuses, naming the document: text that is not such a document;
// shards of another scenario (the first differing field named) or shard
// count; a shard given twice or missing; a search missing, repeated or
// outside its shard.
#pragma once

#include <string>
#include <vector>

#include "prefixroute/io/shard_json.h"
#include "prefixroute/run/capacity_search.h"

namespace prefixroute {

/// The shard document of a complete (not cancelled) capacity shard.
std::string capacity_shard_to_json(const Scenario& scenario, const CapacityShardReport& shard);

/// Whether `text` looks like a capacity shard document (its schema key),
/// for a command that merges either kind.
bool is_capacity_shard(const std::string& text);

/// The merged search, or why the documents do not merge.
struct MergedCapacity {
  Scenario scenario;
  CapacityReport report;
  std::vector<FieldError> errors;  ///< field "(shards)" or "(shard NAME)"; non-empty: nothing merged
  bool ok() const { return errors.empty(); }
};

/// Checks and merges capacity shard documents (any order). O(total size).
MergedCapacity merge_capacity_shards(const std::vector<ShardInput>& documents);

}  // namespace prefixroute
