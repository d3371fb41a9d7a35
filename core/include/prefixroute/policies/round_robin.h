// RoundRobin: replicas 0, 1, ..., n-1, 0, ... regardless of state. The
// cache-blind gateway default, and one of the four baseline policies.
// Cost: O(1) per request.
#pragma once

#include <cstddef>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

class RoundRobin final : public RoutingPolicy {
 public:
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "round_robin"; }

 private:
  std::size_t next_ = 0;
};

/// RoundRobin's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& round_robin_policy_spec();

}  // namespace prefixroute
