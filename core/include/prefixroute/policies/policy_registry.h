// The catalogue of routing policies: names, labels, construction from a scenario.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

struct Scenario;

struct PolicyInfo {
  std::string_view name;         ///< as in results JSON and the scenario's policy list
  std::string_view label;        ///< for tables and charts
  std::string_view description;  ///< one line: what the policy does
  std::string_view colour_light; ///< its colour in charts on a light page (CSS hex)
  std::string_view colour_dark;  ///< the same on a dark page
};

/// Every known policy, in the order reports list them.
const std::vector<PolicyInfo>& policy_catalogue();

/// Whether `name` is in the catalogue.
bool is_known_policy(std::string_view name);

/// A fresh instance of policy `name` (known) with parameters from `scenario`.
std::unique_ptr<RoutingPolicy> make_policy(std::string_view name, const Scenario& scenario);

}  // namespace prefixroute
