// A policy defined only in the tests (test_pick_nth): every request to
// replica `index` (modulo the cluster's size). It walks the path
// docs/contributing/adding-a-policy.md describes, registered through the catalogue alone
// (tests/policies/catalogue_test.cpp), and is the policy the random scenarios
// are shown not to move when added (tests/policies/random_scenario_test.cpp).
// Registration is for the whole process and cannot be undone, so only the
// policies suite (policies_tests), whose tests expect it, registers it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/policies/policy_spec.h"

namespace prefixroute::testsupport {

struct PickNthParams {
  std::uint32_t index = 1;
  double weight = 0.5;  // unused by the rule; shows a Number parameter
};

class PickNth final : public RoutingPolicy {
 public:
  explicit PickNth(const PickNthParams& params) : params_(params) {}
  std::size_t choose(const RouteRequest&, const ClusterView& cluster, Tick) override { return params_.index % cluster.size(); }
  std::string_view name() const override { return "test_pick_nth"; }

 private:
  PickNthParams params_;
};

inline const PolicySpec& pick_nth_spec() {
  static const PolicySpec spec = policy_spec<PickNthParams>(
      {"test_pick_nth", "Pick the n-th (test)", "Every request to one replica.", {"#123456", "#abcdef"}},
      {param<&PickNthParams::index>("index", "Replica", 0, 4095, "", "The replica every request goes to."),
       param<&PickNthParams::weight>("weight", "Weight", 0, 1, "", "Unused.")},
      [](const PickNthParams& p, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<PickNth>(p);
      });
  return spec;
}

/// Registers test_pick_nth once per process (each test may run alone).
inline void register_pick_nth() {
  static const std::string outcome = register_policy(pick_nth_spec());
  ASSERT_EQ(outcome, "");
}

}  // namespace prefixroute::testsupport
