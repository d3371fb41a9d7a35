// The random scenarios of the property suites (tests/support/random_scenario.h)
// do not depend on the catalogue's length: adding a policy changes no other
// policy's random cases, so it cannot make another policy's property test
// pass or fail. What the generator draws for a catalogue without policy X
// equals what it draws with X once X's parts (its place in the list, its
// parameters) are taken out: checked for test_pick_nth, registered here as a
// new policy would be added, and for each policy of the catalogue left out in
// turn.
// And the runs agree: every other policy's results row is the same.
//
// In the policies suite because registering test_pick_nth is for the whole
// process (pick_nth_policy.h), and this executable's tests expect it.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/io/results_json.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "pick_nth_policy.h"
#include "random_scenario.h"

namespace prefixroute::random_scenario_test {
namespace {

using Json = nlohmann::json;
using testsupport::kPropertySuiteSeed;
using testsupport::parsed_random_case;
using testsupport::ParsedCase;

#if PREFIXROUTE_TESTS_SANITIZED
constexpr int kCases = 24;
constexpr int kDrawCases = 10;
constexpr int kRunCases = 3;
#else
constexpr int kCases = 200;     // the property suite's cases (tests/property_test.cpp)
constexpr int kDrawCases = 50;  // each built-in left out: draws only
constexpr int kRunCases = 12;
#endif

// The catalogue without the policy `name`.
std::vector<const PolicySpec*> catalogue_without(std::string_view name) {
  std::vector<const PolicySpec*> out;
  for (const PolicySpec* spec : policy_catalogue())
    if (spec->name() != name) out.push_back(spec);
  return out;
}

std::vector<std::string> list_without(const std::vector<std::string>& list, std::string_view name) {
  std::vector<std::string> out;
  for (const std::string& n : list)
    if (n != name) out.push_back(n);
  return out;
}

// `overrides` without the parts of the policy `name`: its parameters, and its
// place in the policy list.
std::vector<Override> overrides_without(const std::vector<Override>& overrides, std::string_view name) {
  const std::string prefix = std::string(name) + ".";
  std::vector<Override> out;
  for (const auto& [key, value] : overrides) {
    if (key.compare(0, prefix.size(), prefix) == 0) continue;
    if (key != "policies") {
      out.emplace_back(key, value);
      continue;
    }
    std::string list;
    std::string_view rest = value;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      if (item != name) list += (list.empty() ? "" : ",") + std::string(item);
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    out.emplace_back(key, list);
  }
  return out;
}

// Checks case `index` drawn with the whole catalogue against the same case
// drawn without `name`; counts the cases `name` is listed in.
void expect_same_case_without(std::string_view name, std::uint64_t index, int& listed) {
  SCOPED_TRACE(std::string(name) + ", case " + std::to_string(index));
  const ParsedCase with = parsed_random_case(kPropertySuiteSeed, index);
  const ParsedCase without = parsed_random_case(kPropertySuiteSeed, index, catalogue_without(name));
  if (with.draw.policies != without.draw.policies) ++listed;
  ASSERT_EQ(without.draw.policies, list_without(with.draw.policies, name));
  if (!without.draw.runnable()) return;  // name was the case's only policy
  ASSERT_TRUE(with.parse.ok()) << with.refusals;
  ASSERT_TRUE(without.parse.ok()) << without.refusals;
  ASSERT_EQ(without.draw.overrides, overrides_without(with.draw.overrides, name));
}

TEST(RandomScenarioCatalogue, ANewPolicyChangesNoOtherPolicysCases) {
  testsupport::register_pick_nth();
  int listed = 0;
  for (int i = 0; i < kCases && !::testing::Test::HasFailure(); ++i)
    expect_same_case_without("test_pick_nth", static_cast<std::uint64_t>(i), listed);
  EXPECT_GT(listed, 0);  // the new policy is in some cases: there was something to move
}

// Draws only (every attempt's, parsed or not): 5 attempts x kDrawCases cases
// x each policy of the catalogue.
TEST(RandomScenarioCatalogue, LeavingOutAnyPolicyChangesNoOtherPolicysDraws) {
  for (int i = 0; i < kDrawCases; ++i) {
    for (std::uint32_t attempt = 0; attempt < 5; ++attempt) {
      const auto index = static_cast<std::uint64_t>(i);
      const testsupport::RandomCase with = testsupport::random_case(kPropertySuiteSeed, index, attempt);
      for (const PolicySpec* spec : policy_catalogue()) {
        SCOPED_TRACE(std::string(spec->name()) + ", case " + std::to_string(i) + ", attempt " + std::to_string(attempt));
        const testsupport::RandomCase without =
            testsupport::random_case(kPropertySuiteSeed, index, attempt, catalogue_without(spec->name()));
        ASSERT_EQ(without.policies, list_without(with.policies, spec->name()));
        if (without.runnable()) {
          ASSERT_EQ(without.overrides, overrides_without(with.overrides, spec->name()));
        }
      }
    }
  }
}

// The results JSON of `scenario`, run.
Json results_of(const Scenario& scenario) {
  return Json::parse(results_to_json(scenario, run_experiment(scenario)));
}

TEST(RandomScenarioCatalogue, ANewPolicyChangesNoOtherPolicysResults) {
  testsupport::register_pick_nth();
  int compared = 0;
  for (int i = 0; i < kCases && compared < kRunCases; ++i) {
    const ParsedCase with = parsed_random_case(kPropertySuiteSeed, static_cast<std::uint64_t>(i));
    const ParsedCase without =
        parsed_random_case(kPropertySuiteSeed, static_cast<std::uint64_t>(i), catalogue_without("test_pick_nth"));
    if (with.draw.policies.size() < 2 || with.draw.policies == without.draw.policies) continue;
    SCOPED_TRACE("case " + std::to_string(i));
    ASSERT_TRUE(with.parse.ok() && without.parse.ok()) << with.refusals << without.refusals;
    ++compared;
    const Json a = results_of(with.parse.scenario);
    const Json b = results_of(without.parse.scenario);
    EXPECT_EQ(a["workload"], b["workload"]);
    EXPECT_EQ(a["hardware"], b["hardware"]);
    EXPECT_EQ(a["bounds"], b["bounds"]);
    ASSERT_EQ(a["results"].size(), b["results"].size() + 1);
    std::size_t k = 0;  // b's rows are a's, in a's order, without test_pick_nth's
    for (const Json& row : a["results"]) {
      if (row["policy"] == "test_pick_nth") continue;
      EXPECT_EQ(row, b["results"][k]) << row["policy"];
      ++k;
    }
  }
  EXPECT_EQ(compared, kRunCases);
}

}  // namespace
}  // namespace prefixroute::random_scenario_test
