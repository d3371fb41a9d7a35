#include "prefixroute/policies/least_loaded.h"

namespace prefixroute {

const PolicySpec& least_loaded_policy_spec() {
  static const PolicySpec spec = policy_spec<NoParams>(
      {"least_loaded", "Least loaded", "The replica with the least queued prefill work.", {"#8b5cf6", "#a78bfa"}},
      {},
      [](const NoParams&, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<LeastLoaded>();
      });
  return spec;
}

std::size_t LeastLoaded::choose(const RouteRequest&, const ClusterView& cluster, Tick now) {
  const std::size_t chosen = cluster.least_wait(now, start_);
  start_ = chosen + 1;
  return chosen;
}

}  // namespace prefixroute
