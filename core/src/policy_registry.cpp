#include "prefixroute/policy_registry.h"

#include "prefixroute/policies.h"
#include "prefixroute/scenario.h"

namespace prefixroute {

const std::vector<PolicyInfo>& policy_catalogue() {
  static const std::vector<PolicyInfo> catalogue = {
      {"round_robin", "Round robin"},
      {"least_loaded", "Least loaded"},
      {"affinity", "Affinity (naive)"},
      {"affinity_balanced", "Affinity balanced"},
  };
  return catalogue;
}

bool is_known_policy(std::string_view name) {
  for (const auto& info : policy_catalogue())
    if (info.name == name) return true;
  return false;
}

std::unique_ptr<RoutingPolicy> make_policy(std::string_view name, const Scenario& scenario) {
  if (name == "round_robin") return std::make_unique<RoundRobin>();
  if (name == "least_loaded") return std::make_unique<LeastLoaded>();
  if (name == "affinity") return std::make_unique<Affinity>();
  if (name == "affinity_balanced")
    return std::make_unique<AffinityBalanced>(seconds_to_ticks(scenario.affinity_balanced_load_slack_s));
  return nullptr;
}

}  // namespace prefixroute
