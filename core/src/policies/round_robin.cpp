#include "prefixroute/policies/round_robin.h"

namespace prefixroute {

const PolicySpec& round_robin_policy_spec() {
  static const PolicySpec spec = policy_spec<NoParams>(
      {"round_robin", "Round robin", "Replicas in turn, blind to caches and load.", {"#8792a2", "#9aa5b5"}}, {},
      [](const NoParams&, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<RoundRobin>();
      });
  return spec;
}

std::size_t RoundRobin::choose(const RouteRequest&, const ClusterView& cluster, Tick) {
  const std::size_t chosen = next_ % cluster.size();
  next_ = chosen + 1;
  return chosen;
}

}  // namespace prefixroute
