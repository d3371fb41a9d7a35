// SLO figures (run/slo.h): attainment and goodput against runs computed by
// hand, the joint attainment against the run's own per-request series, the
// results JSON without targets, shards and bad values.
#include "prefixroute/run/slo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/io/results_json.h"
#include "prefixroute/io/shard_json.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/run/shard.h"
#include "prefixroute/scenario/scenario.h"
#include "field_errors.h"

namespace prefixroute::slo_test {
namespace {

using Json = nlohmann::json;
using testsupport::has_error;

// One replica without a cache serving 50 prompts of 100 unique tokens at
// 1,000 tokens/s (100 ms each), sent by a constant client every 80 ms: the
// queue grows by 20 ms a request, so request i (from 0) has
//   TTFT_i = 100 + 20 i ms,
// and the replica is busy from the first send to the last completion:
//   span = 50 x 100 ms = 5 s.
Scenario queue_by_hand() {
  Scenario s = Scenario::reference();
  s.workload.requests = 50;
  s.workload.tenants = 1;
  s.workload.prefix_tokens_min = 0;
  s.workload.prefix_tokens_max = 0;
  s.workload.turn_tokens_min = 100;
  s.workload.turn_tokens_max = 100;
  s.cluster.replicas = 1;
  s.cluster.cache_tokens = 0;
  s.cluster.prefill.tokens_per_s = 1000;
  s.client.kind = "constant";
  s.client.rate_per_s = 12.5;
  s.policies = {"round_robin"};
  return s;
}

TEST(Slo, AttainmentAndGoodputOfAQueueComputedByHand) {
  Scenario s = queue_by_hand();
  // Within 510 ms: 100 + 20 i <= 510 for i = 0 .. 20, so 21 of 50.
  s.slo.ttft_ms = 510;
  s.slo.ttft_percentile = 40;  // needs ceil(0.4 x 50) = 20: met
  ASSERT_TRUE(validate(s).empty());
  const ExperimentReport report = run_experiment(s);
  ASSERT_EQ(report.outcomes.size(), 1u);
  const RunSummary& r = report.outcomes[0].summary;
  // The hand computation's premise: TTFTs 100 .. 1080 ms.
  EXPECT_NEAR(r.max_ttft_ms, 1080, 1e-3);
  EXPECT_TRUE(r.has_slo);
  EXPECT_TRUE(r.has_ttft_target);
  EXPECT_FALSE(r.has_tpot_target);
  EXPECT_DOUBLE_EQ(r.ttft_attainment, 21.0 / 50);
  EXPECT_DOUBLE_EQ(r.slo_attainment, 21.0 / 50);
  EXPECT_NEAR(r.goodput_per_s, 21.0 / 5.0, 1e-6);
  EXPECT_EQ(r.slo_met, 1u);

  s.slo.ttft_percentile = 50;  // needs 25 of 50: not met
  EXPECT_EQ(run_experiment(s).outcomes[0].summary.slo_met, 0u);
  s.slo.ttft_percentile = 42;  // needs exactly 21: met
  EXPECT_EQ(run_experiment(s).outcomes[0].summary.slo_met, 1u);
  s.slo.ttft_percentile = 42.001;  // needs ceil(21.0005) = 22
  EXPECT_EQ(run_experiment(s).outcomes[0].summary.slo_met, 0u);
}

TEST(Slo, NeededCountIsTheNearestRank) {
  EXPECT_EQ(slo_needed(99, 4000), 3960u);
  EXPECT_EQ(slo_needed(99.9, 1000), 999u);
  EXPECT_EQ(slo_needed(99.9, 1001), 1000u);  // ceil(999.999)
  EXPECT_EQ(slo_needed(100, 7), 7u);
  EXPECT_EQ(slo_needed(1, 7), 1u);
  for (std::uint64_t n = 1; n < 300; ++n)
    for (const std::uint32_t p : {1u, 50u, 90u, 99u, 100u}) EXPECT_EQ(slo_needed(p, n), nearest_rank(p, n));
}

// The batched engine with both targets: the figures equal a count over the
// run's own per-request TTFT and TPOT, and met equals the nearest-rank
// percentiles against the bounds.
TEST(Slo, JointAttainmentCountsTheRequestsWithinEveryTarget) {
  Scenario s = Scenario::reference();
  s.workload.requests = 600;
  s.workload.output_tokens_min = 0;
  s.workload.output_tokens_max = 60;
  s.cluster.engine = EngineKind::Batched;
  s.workload.arrival_rate_per_s = 40;
  s.policies = {"round_robin", "affinity"};
  s.slo.ttft_ms = 150;
  s.slo.ttft_percentile = 90;
  s.slo.tpot_ms = 12;
  s.slo.tpot_percentile = 80;
  ASSERT_TRUE(validate(s).empty()) << validate(s).front().message;
  const ExperimentReport report = run_experiment(s);
  for (const PolicyOutcome& o : report.outcomes) {
    const SimulationRun& run = o.run;
    ASSERT_EQ(run.tpot_of.size(), run.ttft.size());
    std::size_t ttft_ok = 0, tpot_ok = 0, both = 0, with_tpot = 0;
    std::vector<double> ttfts, tpots;
    for (std::size_t i = 0; i < run.ttft.size(); ++i) {
      const bool a = static_cast<double>(run.ttft[i]) <= 150e6;
      const bool b = run.tpot_of[i] < 0 || run.tpot_of[i] <= 12e6;
      with_tpot += run.tpot_of[i] >= 0 ? 1 : 0;
      ttft_ok += a;
      tpot_ok += b;
      both += a && b;
      ttfts.push_back(static_cast<double>(run.ttft[i]));
      tpots.push_back(std::max(0.0, run.tpot_of[i]));
    }
    ASSERT_GT(with_tpot, 100u);  // the TPOT target has something to judge
    const double n = static_cast<double>(run.ttft.size());
    EXPECT_DOUBLE_EQ(o.summary.ttft_attainment, ttft_ok / n) << o.policy;
    EXPECT_DOUBLE_EQ(o.summary.tpot_attainment, tpot_ok / n) << o.policy;
    EXPECT_DOUBLE_EQ(o.summary.slo_attainment, both / n) << o.policy;
    EXPECT_LT(o.summary.slo_attainment, std::min(o.summary.ttft_attainment, o.summary.tpot_attainment) + 1e-12);
    EXPECT_NEAR(o.summary.goodput_per_s,
                both / (static_cast<double>(run.last_completion - run.first_arrival) / 1e9), 1e-9);
    std::sort(ttfts.begin(), ttfts.end());
    std::sort(tpots.begin(), tpots.end());
    const bool met = ttfts[nearest_rank(90, ttfts.size()) - 1] <= 150e6 && tpots[nearest_rank(80, tpots.size()) - 1] <= 12e6;
    EXPECT_EQ(o.summary.slo_met, met ? 1u : 0u) << o.policy;
  }
  // The two policies differ on this scenario, so the check saw both outcomes of met.
  EXPECT_NE(report.outcomes[0].summary.slo_attainment, report.outcomes[1].summary.slo_attainment);
}

TEST(Slo, WithoutTargetsRowsCarryNoSloKeys) {
  Scenario s = queue_by_hand();
  const Json doc = Json::parse(results_to_json(s, run_experiment(s)));
  for (const char* key : {"ttft_attainment", "tpot_attainment", "slo_attainment", "goodput_per_s", "slo_met"})
    EXPECT_FALSE(doc["results"][0].contains(key)) << key;
}

// Targets add their figures and change nothing else: every other key of a
// row is the same, and a closed client's row gains no stages.
TEST(Slo, TargetsChangeNoOtherFigure) {
  Scenario s = Scenario::reference();
  s.workload.requests = 800;
  s.client.kind = "closed";
  s.client.concurrency = 6;
  s.policies = {"round_robin", "affinity"};
  const Json plain = Json::parse(results_to_json(s, run_experiment(s)));
  s.slo.ttft_ms = 80;
  const Json with = Json::parse(results_to_json(s, run_experiment(s)));
  for (std::size_t p = 0; p < 2; ++p) {
    Json row = with["results"][p];
    EXPECT_TRUE(row.contains("slo_attainment"));
    EXPECT_FALSE(row.contains("tpot_attainment"));  // no TPOT target
    for (const char* key : {"ttft_attainment", "slo_attainment", "goodput_per_s", "slo_met"}) row.erase(key);
    EXPECT_EQ(row, plain["results"][p]);
  }
}

TEST(Slo, ReplicatedRowsGiveIntervalsAndSeedsTheirOwnFigures) {
  Scenario s = Scenario::reference();
  s.workload.requests = 500;
  s.replicates = 3;
  s.slo.ttft_ms = 100;
  s.policies = {"round_robin"};
  const Json doc = Json::parse(results_to_json(s, run_experiment(s)));
  const Json& row = doc["results"][0];
  ASSERT_TRUE(row["interval"].contains("slo_attainment"));
  ASSERT_TRUE(row["interval"].contains("goodput_per_s"));
  double sum = 0;
  for (std::size_t r = 0; r < 3; ++r) {
    Scenario one = s;
    one.replicates = 1;
    one.seed = s.seed + r;
    const RunSummary alone = run_experiment(one).outcomes[0].summary;
    EXPECT_DOUBLE_EQ(row["per_seed"][r]["slo_attainment"].get<double>(), alone.slo_attainment);
    sum += alone.slo_attainment;
  }
  EXPECT_DOUBLE_EQ(row["slo_attainment"].get<double>(), sum / 3);
}

TEST(Slo, ShardsMergeToTheOneMachineResults) {
  Scenario s = Scenario::reference();
  s.workload.requests = 500;
  s.replicates = 2;
  s.slo.ttft_ms = 100;
  s.policies = {"round_robin", "affinity"};
  const std::string whole = results_to_json(s, run_experiment(s, {}, nullptr, 1, false, false));
  std::vector<ShardInput> inputs;
  for (std::size_t k = 1; k <= 3; ++k) {
    const ShardReport part = run_experiment_shard(s, Shard{k, 3});
    inputs.push_back({"shard " + std::to_string(k), experiment_shard_to_json(s, part)});
  }
  const MergedShards merged = merge_shards(inputs);
  ASSERT_TRUE(merged.ok()) << merged.errors.front().message;
  EXPECT_EQ(results_to_json(merged.scenario, merged.report), whole);
  EXPECT_NE(whole.find("\"slo_attainment\""), std::string::npos);
}

TEST(Slo, BadValuesAreRefusedNamingTheField) {
  EXPECT_TRUE(has_error(parse_scenario("", {{"slo.ttft_ms", "-1"}}).errors, "slo.ttft_ms", {"got -1"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"slo.ttft_percentile", "0"}}).errors, "slo.ttft_percentile", {"[1, 100]"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"slo.tpot_percentile", "101"}}).errors, "slo.tpot_percentile", {"[1, 100]"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"slo.ttft_percentile", "99.9999"}}).errors, "slo.ttft_percentile",
                        {"three decimals", "99.9999"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"slo.ttft_ms", "\"fast\""}}).errors, "slo.ttft_ms"));
  EXPECT_TRUE(has_error(parse_scenario("", {{"slo.tpot_ms", "50"}}).errors, "slo.tpot_ms", {"cluster.engine = batched"}));
  EXPECT_TRUE(parse_scenario("", {{"slo.tpot_ms", "50"}, {"cluster.engine", "batched"}}).ok());
  EXPECT_TRUE(parse_scenario("", {{"slo.ttft_ms", "2000"}, {"slo.ttft_percentile", "99.9"}}).ok());
}

}  // namespace
}  // namespace prefixroute::slo_test
