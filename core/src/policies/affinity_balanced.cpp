#include "prefixroute/policies/affinity_balanced.h"

#include <cstdint>

#include "policies/longest_prefix.h"

namespace prefixroute {

const PolicySpec& affinity_balanced_policy_spec() {
  static const PolicySpec spec = policy_spec<AffinityBalancedParams>(
      {"affinity_balanced", "Affinity balanced",
       "The longest cached prefix among replicas whose wait is within a slack of the least.",
       {"#0f9f6e", "#34d399"}},
      {param<&AffinityBalancedParams::load_slack_s>(
          "load_slack_s", "Load slack", 0, 3600, "s",
          "AffinityBalanced prefers cache only among replicas whose wait is within this of the least busy one.")},
      [](const AffinityBalancedParams& p, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<AffinityBalanced>(p);
      });
  return spec;
}

AffinityBalanced::AffinityBalanced(const AffinityBalancedParams& params)
    : load_slack_(seconds_to_ticks_saturating(params.load_slack_s)) {}

std::size_t AffinityBalanced::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  // The least-wait replica first in rotated order from start_: its wait is
  // w_min, and it is the choice when no eligible replica has any of the prompt.
  const std::size_t least = cluster.least_wait(now, start_);
  const Tick min_wait = cluster[least].projected_wait(now);
  // Saturate: w_min + slack beyond the Tick range means no limit (it must not wrap).
  const Tick limit = load_slack_ > INT64_MAX - min_wait ? INT64_MAX : min_wait + load_slack_;
  cluster.match_held(prompt, CacheView::Engine, held_);
  const std::size_t chosen =
      longest_prefix_index(held_, cluster, now, limit, start_, [least] { return least; }, predicted_);
  start_ = chosen + 1;
  return chosen;
}

}  // namespace prefixroute
