// Replica set-ups for the policy suites: a cluster of idle replicas, a cached
// prefix placed by hand, router in-flight counters set to given values, and a
// request recorded as routed without asking the policy to choose it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/token.h"
#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/policies/routing_policy.h"
#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/cluster/replica.h"
#include "tokens.h"

namespace prefixroute::testsupport {

/// `n` idle replicas with empty caches of `cache_tokens` tokens each. The
/// default (1000) is larger than any prompt the hand-computed policy tests
/// route; pass a size where eviction or KV usage is part of the test.
inline std::vector<Replica> make_replicas(std::size_t n, std::size_t cache_tokens = 1000,
                                          std::uint32_t protect_after_hits = RadixCache::kDefaultProtectAfterHits) {
  std::vector<Replica> r;
  r.reserve(n);
  for (std::size_t i = 0; i < n; ++i) r.emplace_back(RadixCache(cache_tokens, protect_after_hits));
  return r;
}

/// Puts the first `k` tokens of `prompt` into replica i's cache, admitted at
/// time 0 (so its prefill is queued from 0 at the `prefill` rate).
inline void cache_prefix(std::vector<Replica>& replicas, std::size_t i, TokenSpan prompt, std::size_t k,
                         const PrefillModel& prefill) {
  replicas[i].admit(prompt.first(k), 0, prefill);
}

/// Sets each replica's router-side in-flight counter to `counts[i]` (replicas
/// past the end of `counts` keep theirs).
inline void set_in_flight(std::vector<Replica>& replicas, const std::vector<std::uint32_t>& counts) {
  for (std::size_t i = 0; i < counts.size(); ++i) {
    while (replicas[i].in_flight() > 0) replicas[i].router_completed();
    for (std::uint32_t k = 0; k < counts[i]; ++k) replicas[i].router_dispatched();
  }
}

/// Tells `policy` that request `id` went to `replica` at time 0 without a
/// choose() for it, as a router records a request it sent (the policy then
/// counts it as fully uncached).
inline void record_routed(RoutingPolicy& policy, std::uint64_t id, std::size_t replica, const Tokens& prompt,
                          std::uint64_t output_tokens = 0) {
  const PromptPieces pieces = prompt_of(prompt);
  policy.on_routed(RoutedRequest{id, replica, pieces, output_tokens, 0});
}

}  // namespace prefixroute::testsupport
