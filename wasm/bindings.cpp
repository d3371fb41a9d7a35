// WebAssembly bindings: the whole JavaScript surface of prefixroute, in this
// one EMSCRIPTEN_BINDINGS block; the functions it names live beside it, one
// file a part of the surface. prefixroute.d.ts declares it for TypeScript.
//
//   coarse_api    runScenario, validateScenario, hardwareSummary, smallestTp, scenarioSchema,
//                 policyCatalogue, version, memoryStats: what the playground's
//                 workers call. Strings in, plain JS objects out; a bad scenario
//                 is a value ({ok: false, errors}), never an exception.
//   trace_api     TraceLoader (a trace read in chunks), runTrace, runTraceShard
//   sweep_api     runSweep, runSweepShard, mergeSweepShards, expandSweep
//   shard_api     runShard, mergeShards
//   capacity_api  runCapacity, runTraceCapacity (per policy, the highest load
//                 and the fewest replicas meeting the scenario's SLO)
//   library_api   RadixCache, Cluster and the four baseline routing policies,
//                 mirroring the C++ API so JS can route requests one by one
//                 (embind handles: call .delete() when done)
//
// Rules at the boundary
//   * No C++ exception crosses into JS (3.1.6 would deliver a bare number):
//     the core does not throw, and inputs are checked before they reach it.
//   * No JS exception is thrown from inside wasm either: it would skip C++
//     destructors and the restore of the stack pointer, leaking both on every
//     throw (~200k throws corrupt the module). Misuse of the library API
//     records a TypeError/RangeError and the call returns normally; post.js
//     wraps the classes' methods and constructors and throws the recorded
//     error from JavaScript. Callbacks (onProgress) are called through a
//     try/catch for the same reason.
//   * Counts that may exceed 2^31 cross as double (WASM_BIGINT is off); times
//     cross as seconds (library) or milliseconds (series, results JSON).
//   * Bulk arrays leave as copies: a typed-array view of wasm memory goes dead
//     (length 0) when memory grows.
#include <emscripten/bind.h>

#include "capacity_api.h"
#include "coarse_api.h"
#include "library_api.h"
#include "prefixroute/policies/affinity.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/policies/least_loaded.h"
#include "prefixroute/policies/round_robin.h"
#include "shard_api.h"
#include "sweep_api.h"
#include "trace_api.h"

EMSCRIPTEN_BINDINGS(prefixroute) {
  using namespace emscripten;
  using namespace prefixroute_wasm;
  using prefixroute::RadixCache;
  using prefixroute::RoutingPolicy;

  // Coarse API.
  function("runScenario", &run_scenario);
  function("validateScenario", &validate_scenario);
  function("hardwareSummary", &hardware_summary);
  function("smallestTp", &smallest_tp);
  function("scenarioSchema", &scenario_schema);
  function("policyCatalogue", &policy_catalogue);
  function("version", &version);
  function("memoryStats", &memory_stats);

  // Trace replay.
  class_<TraceLoader>("TraceLoader")
      .constructor(&make_loader, allow_raw_pointers())
      .function("feed", &loader_feed)
      .function("finish", &loader_finish);
  function("runTrace", &run_trace);
  function("runTraceShard", &run_trace_shard);
  function("runTraceSweep", &run_trace_sweep);

  // Sweeps.
  function("runSweep", &run_sweep);
  function("runSweepShard", &run_sweep_shard);
  function("mergeSweepShards", &merge_sweep_shards);
  function("expandSweep", &expand_sweep);

  // Shards.
  function("runShard", &run_shard);
  function("mergeShards", &merge_shards);

  // Capacity search.
  function("runCapacity", &run_capacity);
  function("runTraceCapacity", &run_trace_capacity);

  // Library API.
  value_object<JsInsertResult>("InsertResult")
      .field("cachedTokens", &JsInsertResult::cachedTokens)
      .field("insertedTokens", &JsInsertResult::insertedTokens)
      .field("evictedTokens", &JsInsertResult::evictedTokens);
  value_object<JsAdmission>("Admission")
      .field("cachedTokens", &JsAdmission::cachedTokens)
      .field("prefillTokens", &JsAdmission::prefillTokens)
      .field("startSeconds", &JsAdmission::startSeconds)
      .field("firstTokenSeconds", &JsAdmission::firstTokenSeconds);
  value_object<JsReplicaState>("ReplicaState")
      .field("requests", &JsReplicaState::requests)
      .field("prefillTokens", &JsReplicaState::prefillTokens)
      .field("cachedTokens", &JsReplicaState::cachedTokens)
      .field("busySeconds", &JsReplicaState::busySeconds)
      .field("busyUntilSeconds", &JsReplicaState::busyUntilSeconds)
      .field("cacheSize", &JsReplicaState::cacheSize)
      .field("cacheNodes", &JsReplicaState::cacheNodes);

  class_<RadixCache>("RadixCache")
      .constructor(&make_cache1, allow_raw_pointers())
      .constructor(&make_cache2, allow_raw_pointers())
      .function("match", &cache_match)
      .function("insert", &cache_insert)
      .function("size", &cache_size)
      .function("capacity", &cache_capacity)
      .function("nodeCount", &cache_node_count)
      .function("protectAfterHits", &cache_protect_after_hits)
      .function("evictedTotal", &cache_evicted_total)
      .function("checkInvariants", &cache_check_invariants);

  class_<Cluster>("Cluster")
      .constructor(&make_cluster2, allow_raw_pointers())
      .constructor(&make_cluster3, allow_raw_pointers())
      .function("size", &cluster_size)
      .function("admit", &cluster_admit)
      .function("match", &cluster_match)
      .function("replica", &cluster_replica);

  class_<RoutingPolicy>("RoutingPolicy")
      .function("choose", &policy_choose)
      .function("name", &policy_name);
  class_<prefixroute::RoundRobin, base<RoutingPolicy>>("RoundRobin").constructor<>();
  class_<prefixroute::LeastLoaded, base<RoutingPolicy>>("LeastLoaded").constructor<>();
  class_<prefixroute::Affinity, base<RoutingPolicy>>("Affinity").constructor<>();
  class_<prefixroute::AffinityBalanced, base<RoutingPolicy>>("AffinityBalanced")
      .constructor(&make_affinity_balanced0, allow_raw_pointers())
      .constructor(&make_affinity_balanced1, allow_raw_pointers())
      .function("loadSlackSeconds", &affinity_balanced_load_slack);
}
