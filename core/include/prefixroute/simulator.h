// The discrete-event simulator: one policy, one cluster, one trace.
//
// Requests are processed in arrival order (the trace is sorted; equal arrival
// times keep trace order). At each arrival the policy sees every replica's
// state as of that instant and picks one; the chosen replica matches and
// inserts the prompt at admission and queues its prefill behind earlier work
// (FIFO). Because each replica serves its requests in admission order, the
// cache state at admission equals the state its predecessors leave behind, so
// no separate completion events are needed: the whole run is one pass.
//
//   TTFT = queue wait + uncached tokens / prefill rate
//
// Cost: O(R * (policy cost + L log F)) for R requests of L tokens.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "prefixroute/prefill_model.h"
#include "prefixroute/routing_policy.h"
#include "prefixroute/time.h"
#include "prefixroute/request_trace.h"

namespace prefixroute {

struct ClusterConfig {
  std::uint32_t replicas = 4;
  std::uint64_t cache_tokens = 4000;
  std::uint32_t protect_after_hits = RadixCache::kDefaultProtectAfterHits;
  PrefillModel prefill;
};

/// Per-replica totals of one run.
struct ReplicaTotals {
  std::uint64_t requests = 0;
  std::uint64_t prefill_tokens = 0;
  std::uint64_t cached_tokens = 0;
  Tick busy_ticks = 0;
};

/// Everything one run produced, per request (arrival order) and per replica.
struct SimulationRun {
  std::vector<Tick> ttft;                 ///< per request
  std::vector<std::uint32_t> replica_of;  ///< per request: where it was served
  std::vector<std::uint32_t> cached_of;   ///< per request: cached prompt tokens
  std::vector<ReplicaTotals> replicas;
  bool cancelled = false;
};

/// Called every `progress_every` requests with the number done so far;
/// returning false cancels the run (the result has cancelled = true).
using ProgressCallback = std::function<bool(std::uint64_t done)>;

SimulationRun simulate(const RequestTrace& trace, const ClusterConfig& cluster,
                       RoutingPolicy& policy, const ProgressCallback& progress = {},
                       std::uint64_t progress_every = 4096);

}  // namespace prefixroute
