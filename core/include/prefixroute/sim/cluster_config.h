// The serving cluster a scenario describes, and how its router observes it.
#pragma once

#include <cstdint>

#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/sim/prefill_model.h"

namespace prefixroute {

/// The replicas: how many, their cache budget and their speed.
struct ClusterConfig {
  std::uint32_t replicas = 4;
  std::uint64_t cache_tokens = 4000;
  std::uint32_t protect_after_hits = RadixCache::kDefaultProtectAfterHits;
  PrefillModel prefill;
  /// Time per output token; 0 turns decode off (the baseline model: a request
  /// completes at its first token and pins nothing).
  double decode_ms_per_token = 0;
};

/// How the router observes the engines (see Replica's "router's view").
struct RouterConfig {
  double scrape_period_ms = 50;  ///< engine metrics are sampled this often
  double kv_event_lag_ms = 0;    ///< the precise cache view lags the engine by this
};

}  // namespace prefixroute
