// docs/contributing/adding-a-policy.md, proven. Its header, source and test
// blocks are extracted by the build (tests/docs/extract_code.cmake) and
// compiled into this executable, where the doc's own TwoChoices.* tests run;
// here the policy is registered through the catalogue (register_policy, as a
// catalogue line would add it) and run from a scenario, its colour is checked
// against every catalogued policy's, and the page's catalogue block is checked
// against the real end of the list in core/src/policies/catalogue.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "files.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/policies/two_choices.h"  // extracted from the page
#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::adding_a_policy_test {
namespace {

using Json = nlohmann::json;
using testsupport::read_file;
using testsupport::source_path;

const std::string kDoc = "docs/contributing/adding-a-policy.md";

void register_two_choices() {
  static const std::string outcome = register_policy(two_choices_policy_spec());
  ASSERT_EQ(outcome, "");
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\\')) s.pop_back();
  const std::size_t first = s.find_first_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first);
}

TEST(AddingAPolicyDoc, ThePagesPolicyRunsFromAScenarioWithItsParameter) {
  register_two_choices();
  const ScenarioParse parsed = parse_scenario(
      "", {{"policies", "two_choices,least_loaded"}, {"two_choices.candidates", "3"}, {"workload.requests", "300"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  const Json results = Json::parse(results_to_json(parsed.scenario, run_experiment(parsed.scenario)));
  const Json& row = results["results"][0];
  EXPECT_EQ(row["policy"], "two_choices");
  EXPECT_EQ(row["label"], "Two choices");
  EXPECT_EQ(results["scenario"]["two_choices"]["candidates"], 3);
  int routed = 0;
  for (const Json& replica : row["replicas"]) routed += replica["requests"].get<int>();
  EXPECT_EQ(routed, 300);
  const Json schema = Json::parse(scenario_json_schema());
  EXPECT_EQ(schema["properties"]["two_choices"]["properties"]["candidates"]["default"], 2);
}

TEST(AddingAPolicyDoc, ThePagesColoursAreNoOtherPolicys) {
  const PolicyColours mine = two_choices_policy_spec().identity.colours;
  for (const PolicySpec* spec : policy_catalogue()) {
    if (spec->name() == "two_choices") continue;
    EXPECT_NE(spec->identity.colours.light, mine.light) << spec->name() << " uses the page's light colour";
    EXPECT_NE(spec->identity.colours.dark, mine.dark) << spec->name() << " uses the page's dark colour";
  }
}

// The page shows the end of PREFIXROUTE_BUILTIN_POLICIES with its new line:
// the list's last entry, now continued by a backslash, then X(two_choices).
TEST(AddingAPolicyDoc, ItsCatalogueBlockIsTheEndOfTheRealListPlusOneLine) {
  const std::optional<std::string> catalogue = read_file(source_path("core/src/policies/catalogue.cpp"));
  ASSERT_TRUE(catalogue);
  std::vector<std::string> list;
  bool in_list = false;
  for (const std::string& line : lines_of(*catalogue)) {
    if (line.rfind("#define PREFIXROUTE_BUILTIN_POLICIES(X)", 0) == 0) {
      in_list = true;
      continue;
    }
    if (!in_list) continue;
    list.push_back(line);
    if (line.empty() || line.back() != '\\') break;
  }
  ASSERT_GE(list.size(), 2u) << "no PREFIXROUTE_BUILTIN_POLICIES list in catalogue.cpp";

  const std::optional<std::string> doc = read_file(source_path(kDoc));
  ASSERT_TRUE(doc);
  const std::vector<std::string> lines = lines_of(*doc);
  std::size_t i = 0;
  while (i < lines.size() && lines[i] != "<!-- catalogue-end: core/src/policies/catalogue.cpp -->") ++i;
  ASSERT_LT(i + 4, lines.size()) << kDoc << " has no catalogue block";
  ASSERT_EQ(lines[i + 1], "```cpp");
  EXPECT_EQ(trimmed(lines[i + 2]), trimmed(list.back())) << "the page's block must start at the list's last entry";
  EXPECT_EQ(lines[i + 2].back(), '\\') << "the former last entry needs the continuation backslash";
  EXPECT_EQ(lines[i + 2].size(), list[list.size() - 2].size()) << "the backslashes line up as in the file";
  EXPECT_EQ(lines[i + 3], "  X(two_choices)") << "the new last entry has no backslash";
  EXPECT_EQ(lines[i + 4], "```");
}

}  // namespace
}  // namespace prefixroute::adding_a_policy_test
