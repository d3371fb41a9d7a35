// The failure-mode presets reproduce their failures. tests/failure_modes.json
// names, for each preset (scenarios/failure-*.json), the failing policy and
// setting, the fix, the metric and the margin; each test runs the preset (and
// the fix's overrides) and asserts failing / fix >= margin, and that the
// preset's two-line description states exactly that margin (its phrase), so a
// description cannot promise more than the run shows.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "files.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::failure_modes_test {
namespace {

using Json = nlohmann::json;
using testsupport::read_file;
using testsupport::source_path;

Json manifest() {
  const auto text = read_file(source_path("tests/failure_modes.json"));
  if (!text) return Json::object();
  return Json::parse(*text);
}

// The preset with the policy and setting of one side (failing or fix): only
// that policy runs.
RunSummary run_side(const std::string& preset_text, const Json& side) {
  std::vector<Override> overrides;
  for (const auto& [key, value] : side.at("set").items()) overrides.emplace_back(key, value.get<std::string>());
  overrides.emplace_back("policies", side.at("policy").get<std::string>());
  const ScenarioParse parsed = parse_scenario(preset_text, overrides);
  EXPECT_TRUE(parsed.ok()) << (parsed.errors.empty() ? "" : parsed.errors[0].field + ": " + parsed.errors[0].message);
  const ExperimentReport report = run_experiment(parsed.scenario);
  EXPECT_EQ(report.outcomes.size(), 1u);
  return report.outcomes.empty() ? RunSummary{} : report.outcomes.front().summary;
}

double metric_of(const RunSummary& summary, const std::string& metric) {
  if (metric == "mean_ttft_ms") return summary.mean_ttft_ms;
  if (metric == "p99_ttft_ms") return summary.p99_ttft_ms;
  ADD_FAILURE() << "unknown metric " << metric << " (mean_ttft_ms or p99_ttft_ms)";
  return 0;
}

TEST(FailureModes, TheManifestListsEveryFailurePresetOnce) {
  const Json modes = manifest().value("modes", Json::array());
  ASSERT_EQ(modes.size(), 6u);
  for (const char* preset : {"failure-fleet-gate.json", "failure-hash-thrash.json", "failure-agent-burst.json",
                             "failure-slow-poll.json", "failure-shared-prompt.json"}) {
    int seen = 0;
    for (const Json& mode : modes) seen += mode.at("preset") == preset ? 1 : 0;
    EXPECT_EQ(seen, 1) << preset;
  }
}

class FailureMode : public ::testing::TestWithParam<int> {};

TEST_P(FailureMode, TheFailingPolicyIsWorseThanTheFixByTheStatedMargin) {
  const Json modes = manifest().value("modes", Json::array());
  ASSERT_LT(static_cast<std::size_t>(GetParam()), modes.size());
  const Json& mode = modes[static_cast<std::size_t>(GetParam())];
  const std::string preset = mode.at("preset");
  const auto text = read_file(source_path("scenarios/" + preset));
  ASSERT_TRUE(text.has_value()) << preset;

  // The description: two lines, the second stating the margin the run must show.
  const Json description = Json::parse(*text).at("description");
  ASSERT_EQ(description.size(), 2u) << preset;
  const std::string phrase = mode.at("phrase");
  EXPECT_NE(description[1].get<std::string>().find(phrase), std::string::npos)
      << preset << ": the description does not state \"" << phrase << "\"";

  const std::string metric = mode.at("metric");
  const double margin = mode.at("margin");
  const double failing = metric_of(run_side(*text, mode.at("failing")), metric);
  const double fix = metric_of(run_side(*text, mode.at("fix")), metric);
  ASSERT_GT(fix, 0) << preset;
  EXPECT_GE(failing / fix, margin) << preset << ": " << metric << " failing " << failing << " fix " << fix;
}

INSTANTIATE_TEST_SUITE_P(Presets, FailureMode, ::testing::Range(0, 6));

}  // namespace
}  // namespace prefixroute::failure_modes_test
