// Headroom: how much cache benefit was there to capture at all?
//
// ideal:  one cache of unbounded size serving every request. No routing policy
//         over per-replica caches can hit more: a replica can only hold
//         prefixes of prompts it has seen, all of which this cache holds.
// pooled: one cache as large as all replicas' caches together, under the same
//         eviction rule. Not a strict bound (LRU is not optimal), but what the
//         cluster's memory would give if it were one cache.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "prefixroute/workload/request_source.h"
#include "prefixroute/workload/request_trace.h"

namespace prefixroute {

struct CacheBound {
  std::uint64_t capacity_tokens = 0;
  std::uint64_t cached_tokens = 0;
  std::uint64_t prefill_tokens = 0;
  double hit_rate = 0;  ///< cached / prompt tokens
};

/// Serves every request of `source`, read once, from one RadixCache of
/// `capacity_tokens`. Cost: one insert per request, O(prompt pieces).
CacheBound single_cache_bound(RequestSource& source, std::uint64_t capacity_tokens,
                              std::uint32_t protect_after_hits);
CacheBound single_cache_bound(const RequestTrace& trace, std::uint64_t capacity_tokens,
                              std::uint32_t protect_after_hits);

/// single_cache_bound with a capacity that holds every prompt
/// (`total_prompt_tokens`, the stream's sum).
CacheBound ideal_bound(RequestSource& source, std::uint64_t total_prompt_tokens);
CacheBound ideal_bound(const RequestTrace& trace);

/// The same number without the cache where it can: block_ideal_bound
/// (block_ideal_bound.h: a block trace's ids, a few bytes per request) on a
/// source from `open`, and when that declines, ideal_bound on a second one.
/// (A replayed trace has its block ids tried as it is read instead:
/// ReplayFigures::ideal, replayed_trace.h.)
CacheBound ideal_bound(const std::function<std::unique_ptr<RequestSource>()>& open,
                       std::uint64_t total_prompt_tokens);

}  // namespace prefixroute
