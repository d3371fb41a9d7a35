// AffinityBalanced: let w_min be the least projected wait. Eligible replicas
// are those with wait <= w_min + load_slack. Among them, the longest cached
// prefix wins; ties go to the least wait, then rotate. When no eligible
// replica has any of the prompt cached this is exactly LeastLoaded (the
// fallback to load balancing). One of the four baseline policies (the seed
// write-up's proposal); it reads the engines' caches (engine truth).
// Cost: one walk of the cluster's prefix index plus O(holders + log R).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

struct AffinityBalancedParams {
  double load_slack_s = 0.05;  ///< prefer cache only within this much wait of the least busy replica
};

class AffinityBalanced final : public RoutingPolicy {
 public:
  explicit AffinityBalanced(const AffinityBalancedParams& params = {});
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "affinity_balanced"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  Tick load_slack() const { return load_slack_; }
  CacheView matched_view() const override { return CacheView::Engine; }

 private:
  Tick load_slack_;
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::vector<PrefixIndex::Held> held_;  // this request's replicas with a cached prefix (reused buffer)
};

/// AffinityBalanced's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& affinity_balanced_policy_spec();

}  // namespace prefixroute
