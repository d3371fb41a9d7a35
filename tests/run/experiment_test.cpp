// Experiments: every policy of a scenario on one trace, the results JSON, and
// cancellation.
#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/policies/catalogue.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute::experiment_test {
namespace {

using Json = nlohmann::json;

// A small scenario with every workload and cluster field set explicitly (the
// defaults are calibrated elsewhere and may change).
Scenario small_scenario(std::vector<std::string> policies = {"affinity_balanced", "round_robin",
                                                             "affinity", "least_loaded"}) {
  Scenario s = Scenario::reference();
  s.seed = 11;
  s.workload.requests = 400;
  s.workload.tenants = 5;
  s.workload.zipf_s = 1.0;
  s.workload.arrival_rate_per_s = 50.0;
  s.workload.prefix_tokens_min = 40;
  s.workload.prefix_tokens_max = 120;
  s.workload.turn_tokens_min = 5;
  s.workload.turn_tokens_max = 30;
  s.workload.vocab_size = 1000;
  s.cluster.replicas = 3;
  s.cluster.cache_tokens = 300;
  s.cluster.protect_after_hits = 4;
  s.cluster.prefill.tokens_per_s = 5000.0;
  set_number(s, "affinity_balanced.load_slack_s", 0.01);
  s.policies = std::move(policies);
  return s;
}

class Experiment : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(validate(scenario_).empty()); }
  Scenario scenario_ = small_scenario();
};

TEST_F(Experiment, OutcomesFollowTheScenarioPolicyOrder) {
  const ExperimentReport report = run_experiment(scenario_);
  ASSERT_FALSE(report.cancelled);
  ASSERT_EQ(report.outcomes.size(), scenario_.policies.size());
  for (std::size_t i = 0; i < scenario_.policies.size(); ++i)
    EXPECT_EQ(report.outcomes[i].policy, scenario_.policies[i]);
}

TEST_F(Experiment, RunsOnTheScenariosGeneratedWorkload) {
  const ExperimentReport report = run_experiment(scenario_);
  const Workload w = generate_workload(scenario_.workload, scenario_.seed);
  EXPECT_EQ(report.requests, w.size());
  EXPECT_EQ(report.prompt_tokens, w.total_prompt_tokens());
  EXPECT_EQ(report.fingerprint, w.fingerprint());
  for (const PolicyOutcome& o : report.outcomes) {
    EXPECT_EQ(o.run.ttft.size(), w.size()) << o.policy;
    EXPECT_EQ(o.summary.requests, w.size()) << o.policy;
    EXPECT_EQ(o.run.replicas.size(), scenario_.cluster.replicas) << o.policy;
  }
}

TEST_F(Experiment, PrefillPlusCachedEqualsPromptTokensForEveryPolicy) {
  const ExperimentReport report = run_experiment(scenario_);
  for (const PolicyOutcome& o : report.outcomes) {
    SCOPED_TRACE(o.policy);
    EXPECT_EQ(o.summary.prefill_tokens + o.summary.cached_tokens, report.prompt_tokens);
    EXPECT_EQ(o.summary.prompt_tokens, report.prompt_tokens);
    std::uint64_t cached = 0;
    for (std::uint32_t c : o.run.cached_of) cached += c;
    EXPECT_EQ(cached, o.summary.cached_tokens);
  }
}

TEST_F(Experiment, PoliciesDifferOnTheSameTrace) {
  // Guards against every outcome being a copy of one run: cache-blind round
  // robin must reuse less than affinity on a shared-prefix workload.
  const ExperimentReport report = run_experiment(small_scenario({"round_robin", "affinity"}));
  ASSERT_EQ(report.outcomes.size(), 2u);
  EXPECT_LT(report.outcomes[0].summary.hit_rate, report.outcomes[1].summary.hit_rate);
}

TEST_F(Experiment, SameScenarioTwiceGivesIdenticalJsonBytes) {
  const std::string a = results_to_json(scenario_, run_experiment(scenario_));
  const std::string b = results_to_json(scenario_, run_experiment(scenario_));
  EXPECT_EQ(a, b);
}

TEST_F(Experiment, DifferentSeedGivesDifferentResults) {
  Scenario other = scenario_;
  other.seed = 12;
  EXPECT_NE(results_to_json(scenario_, run_experiment(scenario_)),
            results_to_json(other, run_experiment(other)));
}

TEST_F(Experiment, ResultsJsonIsIndentedWithATrailingNewline) {
  const std::string text = results_to_json(scenario_, run_experiment(scenario_));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.rfind("{\n  \"schema\"", 0), 0u) << text.substr(0, 40);
}

TEST_F(Experiment, ResultsJsonEchoesTheScenarioAndTheWorkload) {
  const ExperimentReport report = run_experiment(scenario_);
  const Json doc = Json::parse(results_to_json(scenario_, report));
  EXPECT_EQ(doc.at("schema"), "prefixroute.results/1");
  EXPECT_EQ(doc.at("recommended"), std::string(recommended_policy()));
  EXPECT_EQ(doc.at("scenario"), Json::parse(scenario_to_json(scenario_)));
  const Json& workload = doc.at("workload");
  EXPECT_EQ(workload.at("requests"), report.requests);
  EXPECT_EQ(workload.at("prompt_tokens"), report.prompt_tokens);
  const std::string fingerprint = workload.at("fingerprint");
  ASSERT_EQ(fingerprint.size(), 16u);
  EXPECT_EQ(std::stoull(fingerprint, nullptr, 16), report.fingerprint);
}

TEST_F(Experiment, ScenarioEchoParsesBackToTheSameScenario) {
  const Json doc = Json::parse(results_to_json(scenario_, run_experiment(scenario_)));
  const ScenarioParse p = parse_scenario(doc.at("scenario").dump());
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(scenario_to_json(p.scenario), scenario_to_json(scenario_));
}

TEST_F(Experiment, ResultsJsonHasEveryRequiredKeyPerPolicy) {
  const ExperimentReport report = run_experiment(scenario_);
  const Json doc = Json::parse(results_to_json(scenario_, report));
  const Json& results = doc.at("results");
  ASSERT_TRUE(results.is_array());
  ASSERT_EQ(results.size(), scenario_.policies.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Json& row = results[i];
    SCOPED_TRACE(scenario_.policies[i]);
    for (const char* key :
         {"policy", "label", "mean_ttft_ms", "p50_ttft_ms", "p90_ttft_ms", "p99_ttft_ms",
          "max_ttft_ms", "hit_rate", "prompt_tokens", "prefill_tokens", "cached_tokens",
          "imbalance", "replicas"})
      EXPECT_TRUE(row.contains(key)) << key;
    EXPECT_EQ(row.at("policy"), scenario_.policies[i]);
    ASSERT_EQ(row.at("replicas").size(), scenario_.cluster.replicas);
    for (const Json& r : row.at("replicas"))
      for (const char* key : {"requests", "prefill_tokens", "cached_tokens", "work_ms"})
        EXPECT_TRUE(r.contains(key)) << key;
  }
}

TEST_F(Experiment, ResultsJsonValuesAreTheReportsSummaries) {
  const ExperimentReport report = run_experiment(scenario_);
  const Json doc = Json::parse(results_to_json(scenario_, report));
  for (std::size_t i = 0; i < report.outcomes.size(); ++i) {
    const RunSummary& s = report.outcomes[i].summary;
    const Json& row = doc.at("results")[i];
    SCOPED_TRACE(report.outcomes[i].policy);
    EXPECT_EQ(row.at("mean_ttft_ms").get<double>(), s.mean_ttft_ms);
    EXPECT_EQ(row.at("p50_ttft_ms").get<double>(), s.p50_ttft_ms);
    EXPECT_EQ(row.at("p90_ttft_ms").get<double>(), s.p90_ttft_ms);
    EXPECT_EQ(row.at("p99_ttft_ms").get<double>(), s.p99_ttft_ms);
    EXPECT_EQ(row.at("hit_rate").get<double>(), s.hit_rate);
    EXPECT_EQ(row.at("prefill_tokens").get<std::uint64_t>(), s.prefill_tokens);
    EXPECT_EQ(row.at("imbalance").get<double>(), s.imbalance);
    EXPECT_LE(s.p50_ttft_ms, s.p90_ttft_ms);
    EXPECT_LE(s.p90_ttft_ms, s.p99_ttft_ms);
    EXPECT_LE(s.p99_ttft_ms, s.max_ttft_ms);
  }
}

TEST_F(Experiment, UncancelledResultsCarryNoCancelledFlag) {
  const Json doc = Json::parse(results_to_json(scenario_, run_experiment(scenario_)));
  EXPECT_FALSE(doc.contains("cancelled"));
}

// ---------------------------------------------------------------------------
// Progress and cancellation

TEST_F(Experiment, ProgressStartsEachPolicyAndNeverExceedsItsTotal) {
  std::vector<std::size_t> started;
  bool within_total = true;
  const ExperimentReport report =
      run_experiment(scenario_, [&](std::size_t phase, std::uint64_t done, std::uint64_t total) {
        if (done == 0) started.push_back(phase);
        within_total = within_total && done <= total && total == scenario_.workload.requests;
        return true;
      });
  EXPECT_FALSE(report.cancelled);
  EXPECT_TRUE(within_total);
  // Policies 0..3, then the two cache-bound phases (experiment.h).
  EXPECT_EQ(started, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
}

TEST_F(Experiment, ReturningFalseBeforeAPolicyCancelsTheRest) {
  const ExperimentReport report =
      run_experiment(scenario_, [](std::size_t phase, std::uint64_t, std::uint64_t) {
        return phase < 2;
      });
  EXPECT_TRUE(report.cancelled);
  ASSERT_EQ(report.outcomes.size(), 2u);
  EXPECT_EQ(report.outcomes[0].policy, scenario_.policies[0]);
  EXPECT_EQ(report.outcomes[1].policy, scenario_.policies[1]);
  const Json doc = Json::parse(results_to_json(scenario_, report));
  EXPECT_EQ(doc.at("cancelled"), true);
  EXPECT_EQ(doc.at("results").size(), 2u);
}

TEST_F(Experiment, ReturningFalseMidRunCancelsThatRun) {
  // Enough requests for the simulator's periodic progress report (every 4096).
  Scenario big = scenario_;
  big.workload.requests = 10'000;
  big.workload.prefix_tokens_min = 5;
  big.workload.prefix_tokens_max = 10;
  big.workload.turn_tokens_min = 1;
  big.workload.turn_tokens_max = 3;
  std::uint64_t last_done = 0;
  int calls_after_cancel = 0;
  bool cancelled = false;
  const ExperimentReport report =
      run_experiment(big, [&](std::size_t, std::uint64_t done, std::uint64_t) {
        if (cancelled) ++calls_after_cancel;
        last_done = done;
        cancelled = done > 0;
        return !cancelled;
      });
  EXPECT_TRUE(report.cancelled);
  EXPECT_TRUE(report.outcomes.empty());
  EXPECT_GT(last_done, 0u);
  EXPECT_LT(last_done, big.workload.requests);
  EXPECT_EQ(calls_after_cancel, 0);
}

TEST_F(Experiment, CancellingAtTheStartRunsNothing) {
  const ExperimentReport report =
      run_experiment(scenario_, [](std::size_t, std::uint64_t, std::uint64_t) { return false; });
  EXPECT_TRUE(report.cancelled);
  EXPECT_TRUE(report.outcomes.empty());
  EXPECT_EQ(report.requests, scenario_.workload.requests);
}

}  // namespace
}  // namespace prefixroute::experiment_test
