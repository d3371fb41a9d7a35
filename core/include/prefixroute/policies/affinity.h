// Affinity (naive): the replica with the longest cached prefix of the prompt.
// Ties (including "nobody has it", all zero) go to the least projected wait,
// then rotate as in LeastLoaded. No load guard: a heavy tenant piles up. One
// of the four baseline policies; it reads the engines' caches (engine truth).
// Cost: one walk of the cluster's prefix index plus O(holders).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

class Affinity final : public RoutingPolicy {
 public:
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "affinity"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  CacheView matched_view() const override { return CacheView::Engine; }

 private:
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::vector<PrefixIndex::Held> held_;  // this request's replicas with a cached prefix (reused buffer)
};

/// Affinity's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& affinity_policy_spec();

}  // namespace prefixroute
