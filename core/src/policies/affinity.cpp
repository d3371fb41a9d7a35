#include "prefixroute/policies/affinity.h"

#include <cstdint>

#include "policies/longest_prefix.h"

namespace prefixroute {

const PolicySpec& affinity_policy_spec() {
  static const PolicySpec spec = policy_spec<NoParams>(
      {"affinity", "Affinity (naive)", "The replica with the longest cached prefix of the prompt; no load guard.",
       {"#f97316", "#fb923c"}},
      {},
      [](const NoParams&, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<Affinity>();
      });
  return spec;
}

std::size_t Affinity::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  constexpr Tick kNoLimit = INT64_MAX;
  cluster.match_held(prompt, CacheView::Engine, held_);
  const std::size_t chosen = longest_prefix_index(
      held_, cluster, now, kNoLimit, start_, [&] { return cluster.least_wait(now, start_); }, predicted_);
  start_ = chosen + 1;
  return chosen;
}

}  // namespace prefixroute
