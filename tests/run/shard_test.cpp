// Shards: any split of the run list, merged, is the document one machine
// writes, byte for byte; a wrong set of shards is refused with an error
// naming the problem, never merged into a wrong document.
#include "prefixroute/run/shard.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/io/shard_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "small_scenarios.h"

namespace prefixroute::shard_test {
namespace {

using Json = nlohmann::ordered_json;
using testing_support::small;

std::vector<ShardInput> experiment_shards(const Scenario& s, std::size_t n, unsigned jobs = 1) {
  std::vector<ShardInput> docs;
  for (std::size_t k = 1; k <= n; ++k) {
    const ShardReport r = run_experiment_shard(s, Shard{k, n}, {}, nullptr, jobs);
    EXPECT_FALSE(r.cancelled);
    docs.push_back({"shard" + std::to_string(k) + ".json", experiment_shard_to_json(s, r)});
  }
  return docs;
}

std::string merged_results(const std::vector<ShardInput>& docs) {
  const MergedShards m = merge_shards(docs);
  EXPECT_TRUE(m.ok()) << (m.errors.empty() ? "" : m.errors[0].field + ": " + m.errors[0].message);
  EXPECT_EQ(m.kind, MergedShards::Kind::Experiment);
  return results_to_json(m.scenario, m.report);
}

std::string first_error(const std::vector<ShardInput>& docs) {
  const MergedShards m = merge_shards(docs);
  EXPECT_FALSE(m.ok());
  return m.errors.empty() ? "" : m.errors[0].field + ": " + m.errors[0].message;
}

TEST(Shards, AnySplitMergesToTheSingleRunsBytes) {
  const Scenario s = small({{"policies", "round_robin,affinity,expected_ttft,llmd_epp"}});
  const std::string single = results_to_json(s, run_experiment(s));
  for (std::size_t n : {1, 2, 3, 5, 6, 9}) {  // 6 runs: 9 shards leaves some empty
    SCOPED_TRACE(n);
    EXPECT_EQ(merged_results(experiment_shards(s, n, n % 2 == 0 ? 2 : 1)), single);
  }
}

TEST(Shards, ReplicatesMergeToTheSingleRunsBytes) {
  const Scenario s = small({{"replicates", "3"}, {"policies", "round_robin,affinity,dynamo_kv"}});
  EXPECT_EQ(merged_results(experiment_shards(s, 4)), results_to_json(s, run_experiment(s)));
}

// A client's figures (failures, waits) and its stages travel in the shard
// documents, with and without replicates.
TEST(Shards, ClientStagesMergeToTheSingleRunsBytes) {
  for (const char* replicates : {"1", "2"}) {
    SCOPED_TRACE(replicates);
    const Scenario s = small({{"replicates", replicates},
                              {"client.kind", "closed"},
                              {"client.stages", "2x0.2,4x0.2"},
                              {"client.warmup", "1x0.05"},
                              {"client.rate_per_s", "400"},
                              {"client.timeout_s", "0.05"},
                              {"policies", "round_robin,affinity_balanced"}});
    const std::string single = results_to_json(s, run_experiment(s));
    EXPECT_NE(single.find("\"stages\""), std::string::npos);
    EXPECT_EQ(merged_results(experiment_shards(s, 3)), single);
  }
}

// The batched engine's figures (TPOT, output rate, batch, preemptions, the
// replicas' step totals and replicate 0's timeline) travel in the shard
// documents: merged, they are the single run's bytes.
TEST(Shards, BatchedRunsMergeToTheSingleRunsBytes) {
  const std::vector<Override> batched = {{"cluster.engine", "batched"},
                                         {"cluster.kv_block_tokens", "32"},
                                         {"workload.output_tokens_min", "5"},
                                         {"workload.output_tokens_max", "80"},
                                         {"workload.arrival_rate_per_s", "400"},
                                         {"router.kv_event_lag_ms", "5"},
                                         {"policies", "round_robin,affinity,expected_ttft,dynamo_kv"}};
  const Scenario s = small(batched);
  ASSERT_TRUE(validate(s).empty());
  const std::string single = results_to_json(s, run_experiment(s));
  const Json doc = Json::parse(single);
  ASSERT_TRUE(doc["results"][0].contains("timeline"));
  ASSERT_TRUE(doc["results"][0].contains("mean_tpot_ms"));
  for (std::size_t n : {1, 2, 3, 7}) {
    SCOPED_TRACE(n);
    EXPECT_EQ(merged_results(experiment_shards(s, n, n % 2 == 0 ? 2 : 1)), single);
  }
  std::vector<Override> replicated = batched;
  replicated.emplace_back("replicates", "3");
  const Scenario r = small(replicated);
  ASSERT_TRUE(validate(r).empty());
  EXPECT_EQ(merged_results(experiment_shards(r, 4, 2)), results_to_json(r, run_experiment(r)));
}

TEST(Shards, OrderOfTheDocumentsDoesNotMatter) {
  const Scenario s = small({{"policies", "affinity,chwbl"}});
  std::vector<ShardInput> docs = experiment_shards(s, 3);
  std::swap(docs[0], docs[2]);
  EXPECT_EQ(merged_results(docs), results_to_json(s, run_experiment(s)));
}

// Runs `sweep` over `base` as 4 shards (2 jobs each) and expects their merge
// to be the single sweep's bytes; the shard documents are left in `docs`.
void expect_shards_merge_to_the_single_sweep(const char* sweep, const std::vector<Override>& base,
                                             std::vector<ShardInput>& docs) {
  SweepSpec spec;
  std::string error;
  ASSERT_TRUE(parse_sweep(sweep, spec, error)) << error;
  const SweepReport plan = plan_sweep("", base, spec);
  ASSERT_TRUE(plan.errors.empty());
  docs.clear();
  for (std::size_t k = 1; k <= 4; ++k)
    docs.push_back({"s" + std::to_string(k), sweep_shard_to_json(spec, plan, run_sweep_shard(plan, Shard{k, 4}, {}, 2))});
  const MergedShards m = merge_shards(docs);
  ASSERT_TRUE(m.ok()) << m.errors[0].message;
  ASSERT_EQ(m.kind, MergedShards::Kind::Sweep);
  EXPECT_EQ(sweep_to_json(m.spec, m.sweep), sweep_to_json(spec, run_sweep("", base, spec)));
}

// Over a policy's setting the points share their workload and bounds
// (run_list.cpp): a shard computes the bounds of its own runs, whichever
// point they are of.
TEST(Shards, ASweepSharingItsWorkloadMergesToTheSingleSweepsBytes) {
  std::vector<ShardInput> docs;
  expect_shards_merge_to_the_single_sweep("affinity_balanced.load_slack_s=0,0.05,0.1",
                                          {{"workload.requests", "300"}, {"policies", "affinity_balanced,least_loaded"}},
                                          docs);
}

TEST(Shards, ASweepMergesToTheSingleSweepsBytes) {
  std::vector<ShardInput> docs;
  expect_shards_merge_to_the_single_sweep("workload.arrival_rate_per_s=40,80,120",
                                          {{"workload.requests", "300"}, {"policies", "affinity,least_loaded"}}, docs);
  ASSERT_EQ(docs.size(), 4u);
  // A sweep's shards are not an experiment's.
  std::vector<ShardInput> mixed = docs;
  const Scenario s = small({{"policies", "affinity"}});
  mixed[1] = experiment_shards(s, 4)[1];
  EXPECT_NE(first_error(mixed).find("is a shard of a experiment but s1 is of a sweep"), std::string::npos);
}

TEST(Shards, AShardDocumentCarriesItsPlaceAndTheScenario) {
  const Scenario s = small({{"policies", "affinity,round_robin"}});
  const Json doc = Json::parse(experiment_shards(s, 3)[1].text);
  EXPECT_EQ(doc["schema"], "prefixroute.shard/1");
  EXPECT_EQ(doc["kind"], "experiment");
  EXPECT_EQ(doc["shard"]["index"], 2);
  EXPECT_EQ(doc["shard"]["count"], 3);
  EXPECT_EQ(doc["runs"], 4);
  EXPECT_EQ(doc["scenario"], Json::parse(scenario_to_json(s)));
  ASSERT_EQ(doc["results"].size(), 1u);  // runs 0..3: shard 2/3 has run 1
  EXPECT_EQ(doc["results"][0]["run"], 1);
  EXPECT_EQ(doc["results"][0]["policy"], "round_robin");
}

class MergeRefuses : public ::testing::Test {
 protected:
  Scenario scenario_ = small({{"policies", "affinity,round_robin,least_loaded"}});
  std::vector<ShardInput> docs_ = experiment_shards(scenario_, 3);
};

TEST_F(MergeRefuses, AMissingShard) {
  docs_.erase(docs_.begin() + 1);
  EXPECT_EQ(first_error(docs_), "(shards): missing shard 2/3: every shard 1/3 .. 3/3 must be given once");
}

TEST_F(MergeRefuses, AShardGivenTwice) {
  docs_[2] = docs_[0];
  docs_[2].name = "copy.json";
  const MergedShards m = merge_shards(docs_);
  ASSERT_EQ(m.errors.size(), 2u);
  EXPECT_EQ(m.errors[0].message, "shard 1/3 is given twice: shard1.json and copy.json");
  EXPECT_EQ(m.errors[1].message, "missing shard 3/3: every shard 1/3 .. 3/3 must be given once");
}

TEST_F(MergeRefuses, AShardOfAnotherScenarioNamingTheField) {
  Scenario other = scenario_;
  other.cluster.replicas = 5;
  docs_[1] = experiment_shards(other, 3)[1];
  EXPECT_EQ(first_error(docs_), "(shard shard2.json): runs another scenario than shard1.json: cluster.replicas is 5 here "
                                "and 3 there");
}

TEST_F(MergeRefuses, AShardOfAnotherSplit) {
  docs_[2] = experiment_shards(scenario_, 4)[2];
  EXPECT_NE(first_error(docs_).find("is shard 3/4 but shard1.json is one of 3"), std::string::npos);
}

TEST_F(MergeRefuses, TextThatIsNotAShardDocument) {
  docs_[0].text = results_to_json(scenario_, run_experiment(scenario_));
  EXPECT_NE(first_error(docs_).find("(shard shard1.json): not a shard document"), std::string::npos);
  docs_[0].text = "{ not json";
  EXPECT_NE(first_error(docs_).find("(shard shard1.json): not JSON"), std::string::npos);
  EXPECT_EQ(first_error({}), "(shards): no shard documents given; give all N shards of one run");
}

TEST_F(MergeRefuses, ARunInTheWrongShardOrMissing) {
  Json doc = Json::parse(docs_[0].text);
  doc["results"][0]["run"] = 1;  // run 1 is shard 2/3's
  docs_[0].text = doc.dump();
  EXPECT_NE(first_error(docs_).find("run 1: belongs to shard 2/3, not 1/3"), std::string::npos);
  doc = Json::parse(experiment_shards(scenario_, 3)[0].text);
  doc["results"].erase(1);  // drop run 3
  docs_[0].text = doc.dump();
  EXPECT_NE(first_error(docs_).find("run 3 is missing (shard 1/3 runs it)"), std::string::npos);
}

TEST_F(MergeRefuses, RunsOfOneSeedOnDifferentWorkloads) {
  Json doc = Json::parse(docs_[1].text);
  doc["results"][0]["workload"]["fingerprint"] = "0123456789abcdef";
  docs_[1].text = doc.dump();
  EXPECT_NE(first_error(docs_).find("ran on different workloads"), std::string::npos);
}

TEST_F(MergeRefuses, AMalformedRun) {
  Json doc = Json::parse(docs_[1].text);
  doc["results"][0]["summary"].erase("p99_ttft_ms");
  docs_[1].text = doc.dump();
  EXPECT_EQ(first_error(docs_), "(shard shard2.json): run 1: p99_ttft_ms must be a number");
}

}  // namespace
}  // namespace prefixroute::shard_test
