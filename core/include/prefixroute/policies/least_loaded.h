// LeastLoaded: the replica with the least projected outstanding work
// (busy_until - now). Ties rotate: the scan starts one past the previous
// choice, so an idle cluster is filled in round-robin order. One of the four
// baseline policies. Cost: O(log R) with the simulator's busy_until tree.
#pragma once

#include <cstddef>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

class LeastLoaded final : public RoutingPolicy {
 public:
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "least_loaded"; }

 private:
  std::size_t start_ = 0;
};

/// LeastLoaded's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& least_loaded_policy_spec();

}  // namespace prefixroute
