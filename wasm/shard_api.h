// WebAssembly bindings of shards (core/include/prefixroute/run/shard.h): the
// page's pool of Web Workers runs one experiment as N shards, one per worker,
// and merges them into runScenario's results JSON.
//
//   runShard(scenarioJson, overridesJson, shardIndex, shardCount, onProgress)
//     -> { ok: true, shardJson, series } | { ok: false, errors, cancelled? }
//   mergeShards(documents)              -> { ok: true, resultsJson } | { ok: false, errors }
//
// shardIndex is 1-based, as the command line's --shard K/N: shard K runs the
// runs i of the experiment's run list (run_list.h: per replicate each policy,
// then the ideal and the pooled bound) with i mod shardCount == K - 1.
// shardJson is the document `prefixroute --shard K/N --json` writes for
// the same scenario, byte for byte; mergeShards of all N documents (any
// order) gives runScenario's resultsJson byte for byte. `series` holds the
// per-request series of the shard's own policy runs of the first replicate
// (seed), each with its policy and run index, for the page's charts: merged
// over the shards they are runScenario's series.
//
// The same refusals as runScenario, with the same fields and messages: the
// argument types, the overrides, a scenario naming a trace, the memory bound
// (coarse_api.h); mergeShards re-checks the merged scenario the same way, and
// refuses a wrong set of documents with "(shards)" / "(shard documents[i])"
// errors naming the problem (shard.h). Rules at the boundary as in bindings.cpp.
#pragma once

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "prefixroute/io/shard_json.h"
#include "prefixroute/run/shard.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute_wasm {

/// runShard's shardIndex / shardCount (1 <= index <= count <= kMaxShards,
/// integers) as the core's Shard; else false with a "(shard)" error
/// .
bool read_shard(const emscripten::val& index, const emscripten::val& count, prefixroute::Shard& out,
                std::vector<prefixroute::FieldError>& errors);

/// runShard's and runTraceShard's value once the shard has run: a failure for
/// a throwing callback or a cancel (as run_outcome), else {ok: true,
/// shardJson, series} (series: replicate 0's policy runs, each with `run`).
emscripten::val shard_outcome(const prefixroute::Scenario& scenario, prefixroute::ShardReport& report,
                              const std::string& callback_error);

/// mergeShards' documents (an array of strings), named "documents[i]" in
/// errors; else false with a "(shards)" error .
bool read_documents(const emscripten::val& documents, std::vector<prefixroute::ShardInput>& out,
                    std::vector<prefixroute::FieldError>& errors);

/// runShard(scenarioJson, overridesJson, shardIndex, shardCount, onProgress).
emscripten::val run_shard(const emscripten::val& scenario_json, const emscripten::val& overrides_json,
                          const emscripten::val& shard_index, const emscripten::val& shard_count,
                          const emscripten::val& on_progress);

/// mergeShards(documents) -> {ok, resultsJson} | failure.
emscripten::val merge_shards(const emscripten::val& documents);

}  // namespace prefixroute_wasm
