// The policy catalogue: what it lists, how a policy's spec becomes scenario
// fields, and the path docs/contributing/adding-a-policy.md describes, walked by a policy
// defined only in the tests (tests/support/pick_nth_policy.h) and registered
// through the catalogue alone.
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/io/results_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/scenario/scenario.h"
#include "pick_nth_policy.h"

namespace prefixroute::catalogue_test {
namespace {

using Json = nlohmann::json;

// test_pick_nth, the policy defined only in the tests (pick_nth_policy.h).
using testsupport::pick_nth_spec;
using testsupport::register_pick_nth;

TEST(AddingAPolicy, ARegisteredPolicyRunsFromAScenarioWithItsParameter) {
  register_pick_nth();
  const ScenarioParse parsed = parse_scenario(
      "", {{"policies", "test_pick_nth,round_robin"}, {"test_pick_nth.index", "2"}, {"workload.requests", "200"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  const Json results = Json::parse(results_to_json(parsed.scenario, run_experiment(parsed.scenario)));
  const Json& row = results["results"][0];
  EXPECT_EQ(row["policy"], "test_pick_nth");
  EXPECT_EQ(row["label"], "Pick the n-th (test)");
  EXPECT_EQ(row["replicas"][2]["requests"], 200);  // index 2: every request
  EXPECT_EQ(row["replicas"][0]["requests"], 0);
  EXPECT_EQ(results["scenario"]["test_pick_nth"]["index"], 2);
  EXPECT_EQ(results["scenario"]["test_pick_nth"]["weight"], 0.5);
}

TEST(AddingAPolicy, ARegisteredPolicyIsInTheSchemaTheCatalogueJsonAndAll) {
  register_pick_nth();
  const Json schema = Json::parse(scenario_json_schema());
  const Json& index = schema["properties"]["test_pick_nth"]["properties"]["index"];
  EXPECT_EQ(index["type"], "integer");
  EXPECT_EQ(index["maximum"], 4095);
  EXPECT_EQ(index["default"], 1);
  EXPECT_EQ(index["x-label"], "Replica");
  EXPECT_EQ(index["x-policy"], "test_pick_nth");
  const Json& names = schema["properties"]["policies"]["items"]["enum"];
  EXPECT_EQ(names.back(), "test_pick_nth");

  const Json catalogue = Json::parse(policy_catalogue_json());
  EXPECT_EQ(catalogue.back()["name"], "test_pick_nth");
  EXPECT_EQ(catalogue.back()["colours"]["dark"], "#abcdef");
  EXPECT_EQ(catalogue.back()["params"], (Json{"test_pick_nth.index", "test_pick_nth.weight"}));

  const ScenarioParse all = parse_scenario("", {{"policies", "all"}});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all.scenario.policies.back(), "test_pick_nth");
}

TEST(AddingAPolicy, ARegisteredPolicysParametersAreValidatedLikeAnyField) {
  register_pick_nth();
  const ScenarioParse parsed = parse_scenario("", {{"test_pick_nth.index", "4096"}, {"test_pick_nth.bogus", "1"}});
  ASSERT_EQ(parsed.errors.size(), 2u);
  EXPECT_EQ(parsed.errors[0].field, "test_pick_nth.bogus");
  EXPECT_NE(parsed.errors[0].message.find("allowed keys in test_pick_nth: index, weight"), std::string::npos);
  EXPECT_EQ(parsed.errors[1].field, "test_pick_nth.index");
  EXPECT_EQ(parsed.errors[1].message, "must be an integer in [0, 4095]; got 4096");
}

TEST(AddingAPolicy, ACanonicalDocumentPutsANewSectionAfterTheVersion1Sections) {
  register_pick_nth();
  const std::string text = scenario_to_json(Scenario::reference());
  EXPECT_LT(text.find("\"affinity_balanced\""), text.find("\"test_pick_nth\""));
  EXPECT_LT(text.find("\"test_pick_nth\""), text.find("\"policies\""));
}

TEST(RegisterPolicy, RefusesATakenNameAReservedNameAndBadParameters) {
  register_pick_nth();
  EXPECT_EQ(register_policy(pick_nth_spec()), "a policy named \"test_pick_nth\" is already in the catalogue");

  PolicySpec reserved = pick_nth_spec();
  reserved.identity.name = "cluster";
  EXPECT_EQ(register_policy(reserved), "\"cluster\" is a scenario section, not a policy name");

  PolicySpec bad_name = pick_nth_spec();
  bad_name.identity.name = "Pick-Nth";
  EXPECT_NE(register_policy(bad_name).find("must match [a-z][a-z0-9_]*"), std::string::npos);
  EXPECT_EQ(register_policy(bad_name), "policy name \"Pick-Nth\" must match [a-z][a-z0-9_]* (at most 40 characters)");

  PolicySpec repeated = pick_nth_spec();
  repeated.identity.name = "test_repeated";
  repeated.params.push_back(repeated.params[0]);
  repeated.defaults.push_back(repeated.defaults[0]);
  EXPECT_EQ(register_policy(repeated), "test_repeated.index: listed twice");

  PolicySpec out_of_range = pick_nth_spec();
  out_of_range.identity.name = "test_out_of_range";
  out_of_range.defaults[0] = 5000;
  EXPECT_EQ(register_policy(out_of_range), "test_out_of_range.index: the default is outside [min, max]");

  EXPECT_FALSE(is_known_policy("test_repeated"));
  EXPECT_FALSE(is_known_policy("test_out_of_range"));
}

// ---------------------------------------------------------------------------
// The built-in catalogue

TEST(Catalogue, StartsWithTheFourBaselinePoliciesInReportOrder) {
  std::vector<std::string_view> names;
  for (const PolicySpec* spec : policy_catalogue()) names.push_back(spec->name());
  ASSERT_GE(names.size(), 4u);
  names.resize(4);
  EXPECT_EQ(names, (std::vector<std::string_view>{"round_robin", "least_loaded", "affinity", "affinity_balanced"}));
}

TEST(Catalogue, NamesLabelsAndColoursAreUniqueAndDescribed) {
  const auto& catalogue = policy_catalogue();
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    const PolicyIdentity& a = catalogue[i]->identity;
    EXPECT_FALSE(a.label.empty());
    EXPECT_FALSE(a.description.empty());
    EXPECT_EQ(a.colours.light.size(), 7u) << a.name;
    EXPECT_EQ(a.colours.dark.size(), 7u) << a.name;
    for (std::size_t j = 0; j < i; ++j) {
      const PolicyIdentity& b = catalogue[j]->identity;
      EXPECT_NE(a.name, b.name);
      EXPECT_NE(a.label, b.label);
      EXPECT_NE(a.colours.light, b.colours.light) << a.name << " and " << b.name;
    }
  }
}

TEST(Catalogue, MakesEachPolicyUnderItsNameFromItsDefaults) {
  const Scenario s = Scenario::reference();
  for (const PolicySpec* spec : policy_catalogue()) {
    EXPECT_TRUE(is_known_policy(spec->name()));
    const auto policy = make_policy(*spec, s.policy_params.of(*spec), policy_context(s));
    ASSERT_NE(policy, nullptr) << spec->name();
    EXPECT_EQ(policy->name(), spec->name());
  }
}

TEST(Catalogue, AnUnknownNameIsNotAPolicy) {
  EXPECT_FALSE(is_known_policy("no_such_policy"));
  EXPECT_FALSE(is_known_policy(""));
  EXPECT_EQ(find_policy("no_such_policy"), nullptr);
}

TEST(Catalogue, AffinityBalancedTakesItsSlackFromTheScenario) {
  const ScenarioParse parsed = parse_scenario("", {{"affinity_balanced.load_slack_s", "0.25"}});
  ASSERT_TRUE(parsed.ok());
  const PolicySpec& spec = *find_policy("affinity_balanced");
  const auto policy = make_policy(spec, parsed.scenario.policy_params.of(spec), policy_context(parsed.scenario));
  const auto* balanced = dynamic_cast<const AffinityBalanced*>(policy.get());
  ASSERT_NE(balanced, nullptr);
  EXPECT_EQ(balanced->load_slack(), 250 * kTicksPerMillisecond);
}

TEST(PolicyParameters, ValuesEqualToTheDefaultsCompareEqualToNeverSet) {
  const PolicySpec& spec = *find_policy("affinity_balanced");
  PolicyParameters a, b;
  a.set(spec, 0, 0.25);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.of(spec)[0], 0.25);
  a.set(spec, 0, spec.defaults[0]);
  EXPECT_EQ(a, b);
  EXPECT_EQ(b.of(spec)[0], 0.05);
}

TEST(RecommendedPolicy, ExactlyOneBuiltInEntryIsMarkedAndItIsTheRecommendedPolicy) {
  ASSERT_TRUE(is_known_policy(recommended_policy()));
  const Json catalogue = Json::parse(policy_catalogue_json());
  int marked = 0;
  for (const Json& entry : catalogue) {
    ASSERT_TRUE(entry.at("recommended").is_boolean()) << entry.at("name");
    if (entry.at("recommended") == true) {
      ++marked;
      EXPECT_EQ(entry.at("name"), std::string(recommended_policy()));
      // The mark carries its worst-case regret over the grid (a ratio minus one, so >= 0).
      EXPECT_EQ(entry.at("worst_p99_regret").get<double>(), recommended_policy_worst_regret());
      EXPECT_GE(recommended_policy_worst_regret(), 0.0);
    } else {
      EXPECT_FALSE(entry.contains("worst_p99_regret")) << entry.at("name");
    }
  }
  EXPECT_EQ(marked, 1);
}

}  // namespace
}  // namespace prefixroute::catalogue_test
