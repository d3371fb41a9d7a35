// The capacity search (run/capacity_search.h): its answers against an
// exhaustive sweep run through ordinary experiments, against the M/D/1
// queue's closed form, determinism, and the scenarios it refuses.
#include "prefixroute/run/capacity_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/io/capacity_json.h"
#include "prefixroute/io/capacity_shard_json.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"
#include "field_errors.h"

namespace prefixroute::capacity_search_test {
namespace {

using testsupport::has_error;

// A small scenario whose p90 TTFT bound is met at a few replicas and a
// moderate rate, by cache-aware and cache-blind policies alike.
Scenario small() {
  Scenario s = Scenario::reference();
  s.seed = 5;
  s.workload.requests = 300;
  s.workload.tenants = 6;
  s.workload.arrival_rate_per_s = 60;
  s.cluster.replicas = 4;
  s.policies = {"round_robin", "affinity"};
  s.slo.ttft_ms = 120;
  s.slo.ttft_percentile = 90;
  s.capacity.max_replicas = 12;
  return s;
}

// Whether the SLO holds in the ordinary experiment of `s` (one policy).
bool met_by_experiment(const Scenario& s) {
  const ExperimentReport report = run_experiment(s);
  return report.outcomes.at(0).summary.slo_met != 0;
}

TEST(CapacitySearch, FewestReplicasEqualsAnExhaustiveSweep) {
  const Scenario s = small();
  const CapacityReport report = run_capacity_search(s);
  ASSERT_EQ(report.policies.size(), 2u);
  for (std::size_t p = 0; p < 2; ++p) {
    // Every replica count from 1 to the limit, each an experiment of its own.
    std::vector<bool> met;
    for (std::uint32_t r = 1; r <= s.capacity.max_replicas; ++r)
      met.push_back(met_by_experiment(capacity_step(s, report.axis, p, 0, report.axis.base, r)));
    std::uint32_t fewest = 0;
    for (std::uint32_t r = 1; r <= met.size() && fewest == 0; ++r)
      if (met[r - 1]) fewest = r;
    ASSERT_GT(fewest, 0u) << "the sweep meets the SLO somewhere";
    for (std::uint32_t r = fewest; r <= met.size(); ++r) EXPECT_TRUE(met[r - 1]) << "monotone on this scenario: " << r;
    const SeedCapacity& seed = report.policies[p].seeds.at(0);
    ASSERT_TRUE(seed.replicas.found) << s.policies[p];
    EXPECT_EQ(seed.replicas.value, fewest) << s.policies[p];
    // Each step the search ran is the experiment of that scenario.
    for (const CapacityStep& step : seed.replicas.steps)
      EXPECT_EQ(step.met, met[static_cast<std::size_t>(step.value) - 1]) << s.policies[p] << " at " << step.value;
  }
  // The policies need different numbers, so the comparison is not trivially 1 or the limit.
  EXPECT_NE(report.policies[0].seeds[0].replicas.value, report.policies[1].seeds[0].replicas.value);
}

TEST(CapacitySearch, HighestConcurrencyEqualsAnExhaustiveSweep) {
  Scenario s = small();
  s.client.kind = "closed";
  s.client.concurrency = 4;
  const CapacityReport report = run_capacity_search(s);
  EXPECT_EQ(report.axis.key, "client.concurrency");
  EXPECT_TRUE(report.axis.integer);
  for (std::size_t p = 0; p < 2; ++p) {
    const SeedCapacity& seed = report.policies.at(p).seeds.at(0);
    ASSERT_TRUE(seed.load.found);
    const auto c = static_cast<std::uint32_t>(seed.load.value);
    ASSERT_GE(c, 1u);
    // Exhaustive from 1 to twice the answer: met up to c, not at c + 1 (and beyond, on this scenario).
    for (std::uint32_t k = 1; k <= 2 * c + 2; ++k)
      EXPECT_EQ(met_by_experiment(capacity_step(s, report.axis, p, 0, k, s.cluster.replicas)), k <= c)
          << s.policies[p] << " at concurrency " << k;
  }
}

// A continuous axis: the answer is within the resolution of the highest
// rate of a fine exhaustive grid that meets the SLO.
TEST(CapacitySearch, HighestRateIsWithinTheResolutionOfAFineSweep) {
  Scenario s = small();
  s.policies = {"least_loaded"};
  s.capacity.resolution = 0.02;
  const CapacityReport report = run_capacity_search(s);
  EXPECT_EQ(report.axis.key, "workload.arrival_rate_per_s");
  const SearchOutcome& load = report.policies.at(0).seeds.at(0).load;
  ASSERT_TRUE(load.found);
  EXPECT_TRUE(met_by_experiment(capacity_step(s, report.axis, 0, 0, load.value, s.cluster.replicas)));
  // Grid: 1 % steps from a quarter to four times the scenario's rate.
  double highest = 0;
  for (double rate = 15; rate <= 240; rate *= 1.01)
    if (met_by_experiment(capacity_step(s, report.axis, 0, 0, rate, s.cluster.replicas))) highest = rate;
  ASSERT_GT(highest, 0);
  EXPECT_NEAR(load.value, highest, 0.03 * highest);
  // The search's last failing value is within the resolution above its answer.
  double failing = 1e300;
  for (const CapacityStep& step : load.steps)
    if (!step.met && step.value > load.value) failing = std::min(failing, step.value);
  EXPECT_LE(failing, load.value * 1.02 + 1e-9);
}

// M/D/1: one replica without a cache, Poisson arrivals at rate lambda, every
// prompt 100 unique tokens at 10,000 tokens/s, so a fixed service time D =
// 10 ms. An arrival finds the server idle with probability 1 - rho (PASTA;
// rho = lambda D), and then its TTFT is exactly D; otherwise it waits. So
// "p50 TTFT <= D" holds exactly while 1 - lambda D >= 0.5: the highest load
// is lambda* = 0.5 / D = 50 requests/s. (The bound is D + 1 us: a request
// that waits less than a microsecond counts as not waiting.) Five seeds of
// 20,000 requests: the mean answer must lie within its 95 % interval plus
// the search's resolution of lambda*.
TEST(CapacitySearch, MD1HighestLoadMatchesTheClosedForm) {
  Scenario s = Scenario::reference();
  s.workload.requests = 20000;
  s.workload.tenants = 1;
  s.workload.prefix_tokens_min = 0;
  s.workload.prefix_tokens_max = 0;
  s.workload.turn_tokens_min = 100;
  s.workload.turn_tokens_max = 100;
  s.workload.arrival_rate_per_s = 30;
  s.cluster.replicas = 1;
  s.cluster.cache_tokens = 0;
  s.cluster.prefill.tokens_per_s = 10000;
  s.policies = {"round_robin"};
  s.slo.ttft_ms = 10.001;
  s.slo.ttft_percentile = 50;
  s.capacity.resolution = 0.01;
  s.capacity.max_replicas = 1;
  s.replicates = 5;
  ASSERT_TRUE(validate(s).empty());
  const CapacityReport report = run_capacity_search(s, nullptr, 2);
  const PolicyCapacity& p = report.policies.at(0);
  ASSERT_TRUE(p.max_load.has_value());
  const double expected = 0.5 / 0.010;
  EXPECT_NEAR(p.max_load->mean, expected, p.max_load->half_width + 0.01 * expected)
      << "half-width " << p.max_load->half_width;
  EXPECT_LT(p.max_load->half_width, 0.05 * expected);  // the seeds agree: the test has power
}

// The same queue's mean TTFT against the M/D/1 mean wait
// W = rho / (2 mu (1 - rho)) (Pollaczek-Khinchine): at rho = 0.5 and D =
// 10 ms, mean TTFT = D + W = 15 ms. The queue model the search evaluates.
TEST(CapacitySearch, MD1MeanTtftMatchesPollaczekKhinchine) {
  Scenario s = Scenario::reference();
  s.workload.requests = 100000;
  s.workload.tenants = 1;
  s.workload.prefix_tokens_min = 0;
  s.workload.prefix_tokens_max = 0;
  s.workload.turn_tokens_min = 100;
  s.workload.turn_tokens_max = 100;
  s.workload.arrival_rate_per_s = 50;
  s.cluster.replicas = 1;
  s.cluster.cache_tokens = 0;
  s.cluster.prefill.tokens_per_s = 10000;
  s.policies = {"round_robin"};
  s.replicates = 4;
  const ExperimentReport report = run_experiment(s, {}, nullptr, 2, false, false);
  std::vector<double> means;
  for (const SeedReport& seed : report.seeds) means.push_back(seed.outcomes[0].summary.mean_ttft_ms);
  const Interval mean = t_interval(means);
  const double rho = 0.5, service_ms = 10;
  const double expected = service_ms + rho * service_ms / (2 * (1 - rho));
  EXPECT_NEAR(mean.mean, expected, mean.half_width + 0.01 * expected) << "half-width " << mean.half_width;
}

TEST(CapacitySearch, SameBytesForAnyNumberOfJobs) {
  Scenario s = small();
  s.replicates = 2;
  s.capacity.gpu_hour_price = 2.5;
  const std::string one = capacity_to_json(s, run_capacity_search(s, nullptr, 1));
  EXPECT_EQ(capacity_to_json(s, run_capacity_search(s, nullptr, 2)), one);
  EXPECT_EQ(capacity_to_json(s, run_capacity_search(s, nullptr, 3)), one);
  const nlohmann::json doc = nlohmann::json::parse(one);
  EXPECT_EQ(doc["schema"], "prefixroute.capacity/1");
  const nlohmann::json& row = doc["results"][0];
  EXPECT_TRUE(row["interval"].contains("replicas"));
  EXPECT_DOUBLE_EQ(row["cost_per_month"].get<double>(), row["gpus"].get<double>() * 2.5 * 730);
}

TEST(CapacitySearch, ShardsMergeToTheOneMachineBytes) {
  Scenario s = small();
  s.replicates = 2;
  s.capacity.gpu_hour_price = 3;
  const std::string whole = capacity_to_json(s, run_capacity_search(s));
  std::vector<ShardInput> inputs;
  for (std::size_t k = 3; k >= 1; --k) {  // any order
    const CapacityShardReport part = run_capacity_shard(s, Shard{k, 3});
    EXPECT_EQ(part.total, 4u);
    inputs.push_back({"shard " + std::to_string(k), capacity_shard_to_json(s, part)});
  }
  const MergedCapacity merged = merge_capacity_shards(inputs);
  ASSERT_TRUE(merged.ok()) << merged.errors.front().message;
  EXPECT_EQ(capacity_to_json(merged.scenario, merged.report), whole);
  // One missing, one twice, another scenario: refused naming the document.
  const std::vector<ShardInput> two(inputs.begin(), inputs.begin() + 2);
  EXPECT_TRUE(has_error(merge_capacity_shards(two).errors, "(shards)", {"missing"}));
  std::vector<ShardInput> twice = inputs;
  twice.push_back(inputs.front());
  EXPECT_FALSE(merge_capacity_shards(twice).ok());
  Scenario other = s;
  other.slo.ttft_ms = 100;
  std::vector<ShardInput> mixed = inputs;
  mixed[1].text = capacity_shard_to_json(other, run_capacity_shard(other, Shard{2, 3}));
  EXPECT_TRUE(has_error(merge_capacity_shards(mixed).errors, "(shard shard 2)", {"another scenario"}));
}

TEST(CapacitySearch, ReplicatesSearchEachSeedAsItsOwnScenario) {
  Scenario s = small();
  s.replicates = 3;
  const CapacityReport report = run_capacity_search(s);
  for (std::size_t r = 0; r < 3; ++r) {
    Scenario one = s;
    one.seed = s.seed + r;
    one.replicates = 1;
    const CapacityReport alone = run_capacity_search(one);
    for (std::size_t p = 0; p < 2; ++p) {
      EXPECT_EQ(report.policies[p].seeds[r].load.value, alone.policies[p].seeds[0].load.value);
      EXPECT_EQ(report.policies[p].seeds[r].replicas.value, alone.policies[p].seeds[0].replicas.value);
    }
  }
}

TEST(CapacitySearch, CancelKeepsTheFinishedPolicies) {
  const Scenario s = small();
  std::size_t calls = 0;
  const CapacityReport report = run_capacity_search(s, nullptr, 1, [&](std::size_t, std::size_t searches, std::size_t) {
    ++calls;
    return searches == 0;  // stop once the first search is done
  });
  EXPECT_TRUE(report.cancelled);
  EXPECT_EQ(report.policies.size(), 1u);
  EXPECT_GT(calls, 2u);
}

TEST(CapacitySearch, RefusesWhatItCannotSearchNamingTheField) {
  Scenario s = small();
  s.slo.ttft_ms = 0;
  EXPECT_TRUE(has_error(check_capacity(s), "slo.ttft_ms", {"needs an SLO"}));
  s = small();
  s.client.kind = "burst";
  EXPECT_TRUE(has_error(check_capacity(s), "client.kind", {"burst"}));
  s = small();
  s.client.kind = "constant";
  s.client.stages = "10x5,20x5";
  EXPECT_TRUE(has_error(check_capacity(s), "client.stages"));
  EXPECT_TRUE(check_capacity(small()).empty());
}

TEST(CapacitySearch, LoadAxisFollowsTheClientAndTheWorkload) {
  std::vector<FieldError> errors;
  Scenario s = small();
  EXPECT_EQ(load_axis(s, errors).key, "workload.arrival_rate_per_s");
  s.client.kind = "constant";
  s.client.rate_per_s = 30;
  EXPECT_EQ(load_axis(s, errors).key, "client.rate_per_s");
  EXPECT_EQ(load_axis(s, errors).base, 30);
  s = small();
  s.workload.kind = "sessions";
  EXPECT_EQ(load_axis(s, errors).key, "workload.session_rate_per_s");
  s = small();
  s.trace.name = "x.jsonl";
  s.trace.time_scale = 4;
  EXPECT_EQ(load_axis(s, errors).key, "trace.time_scale");
  EXPECT_EQ(load_axis(s, errors).base, 0.25);
  EXPECT_TRUE(errors.empty());
}

}  // namespace
}  // namespace prefixroute::capacity_search_test
