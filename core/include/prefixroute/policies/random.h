// RandomChoice (`random`): each request to a replica drawn uniformly at
// random. Every gateway's baseline: SGLang model gateway `random`
// (smg-project/smg : model_gateway/src/policies/random.rs), AIBrix `random`
// (its fallback for an unknown strategy), vLLM production-stack's fallback.
//
// Reads nothing: no cache, no load. The draw comes from the policy's own Rng
// seeded from the scenario seed (one Rng::below(n) per request), so a run is
// reproducible and native and wasm draw the same replicas.
// Simplifications: none (the gateways draw from an unseeded generator).
// Cost: O(1) per request.
#pragma once

#include <cstddef>
#include <cstdint>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

class RandomChoice final : public RoutingPolicy {
 public:
  /// `seed` is the scenario seed; the policy derives its own stream from it.
  explicit RandomChoice(std::uint64_t seed);
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "random"; }

 private:
  Rng rng_;
};

/// RandomChoice's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& random_policy_spec();

}  // namespace prefixroute
