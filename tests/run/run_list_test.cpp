// The run list and its execution: the order of runs, results that are the
// same bytes for any number of jobs (experiment, sweep, replicates, a
// replayed trace), replicates as the runs of seed .. seed + N - 1, and
// progress and cancel with several jobs.
#include "prefixroute/run/run_list.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/run/replicates.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/run/sweep.h"
#include "small_scenarios.h"

namespace prefixroute::run_list_test {
namespace {

using Json = nlohmann::json;
using testing_support::small;

TEST(RunList, IsEachReplicatesPoliciesThenItsBounds) {
  Scenario s = small({{"policies", "affinity,round_robin"}, {"replicates", "3"}});
  ASSERT_TRUE(validate(s).empty());
  ASSERT_EQ(run_count(s), 12u);
  EXPECT_EQ(run_key(s, 0).replicate, 0u);
  EXPECT_EQ(run_key(s, 0).phase, 0u);
  EXPECT_EQ(run_key(s, 3).phase, 3u);  // replicate 0's pooled bound
  EXPECT_EQ(run_key(s, 4).replicate, 1u);
  EXPECT_EQ(run_key(s, 4).phase, 0u);
  EXPECT_EQ(run_key(s, 11).replicate, 2u);
  EXPECT_EQ(run_key(s, 11).phase, 3u);
  EXPECT_EQ(replicate_scenario(s, 2).seed, s.seed + 2);
  EXPECT_EQ(replicate_scenario(s, 2).replicates, 1u);
}

TEST(RunList, ParsesShardsOneBased) {
  Shard shard;
  std::string error;
  ASSERT_TRUE(parse_shard("2/3", shard, error)) << error;
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 3u);
  EXPECT_TRUE(shard.selects(1));
  EXPECT_TRUE(shard.selects(4));
  EXPECT_FALSE(shard.selects(0));
  for (const char* bad : {"0/3", "4/3", "3", "/3", "1/", "a/b", "1/0", "-1/3", "1/3/4", "1/1000000"}) {
    EXPECT_FALSE(parse_shard(bad, shard, error)) << bad;
    EXPECT_NE(error.find("expected K/N"), std::string::npos) << bad;
  }
}

TEST(Jobs, AnExperimentIsTheSameBytesWithOneAndFourJobs) {
  const Scenario s = small();
  ASSERT_TRUE(validate(s).empty());
  const std::string one = results_to_json(s, run_experiment(s, {}, nullptr, 1));
  const std::string four = results_to_json(s, run_experiment(s, {}, nullptr, 4));
  EXPECT_EQ(one, four);
}

TEST(Jobs, ReplicatesAreTheSameBytesWithOneAndFourJobs) {
  const Scenario s = small({{"replicates", "4"}, {"policies", "round_robin,affinity,expected_ttft,dynamo_kv"}});
  ASSERT_TRUE(validate(s).empty());
  EXPECT_EQ(results_to_json(s, run_experiment(s, {}, nullptr, 1)), results_to_json(s, run_experiment(s, {}, nullptr, 4)));
}

TEST(Jobs, ASweepIsTheSameBytesWithOneAndFourJobs) {
  SweepSpec spec;
  std::string error;
  ASSERT_TRUE(parse_sweep("cluster.replicas=2:5:4", spec, error)) << error;
  const std::vector<Override> base = {{"workload.requests", "300"}, {"policies", "affinity,least_loaded,chwbl"}};
  EXPECT_EQ(sweep_to_json(spec, run_sweep("", base, spec, {}, 1)), sweep_to_json(spec, run_sweep("", base, spec, {}, 4)));
  // With replicates per point too.
  std::vector<Override> replicated = base;
  replicated.emplace_back("replicates", "3");
  const std::string one = sweep_to_json(spec, run_sweep("", replicated, spec, {}, 1));
  EXPECT_EQ(one, sweep_to_json(spec, run_sweep("", replicated, spec, {}, 4)));
  EXPECT_NE(one.find("\"interval\""), std::string::npos);
}

TEST(RunList, SweepPointsOfOneWorkloadShareItAndEachEqualsItsScenarioRunAlone) {
  // Over a policy's or the cluster's settings the points' workloads are
  // equal (one workload per replicate, shared, and each bound computed once
  // per workload and pooled cache: run_list.cpp); over the arrival rate they
  // differ. Either way each point's results are its scenario's, run alone,
  // with its own workload, fingerprint and bounds (the cache's size and
  // protection change the pooled bound).
  for (const char* sweep : {"affinity_balanced.load_slack_s=0:0.1:3", "workload.arrival_rate_per_s=50,150",
                            "cluster.cache_tokens=500,4000", "cluster.protect_after_hits=0,1"}) {
    SweepSpec spec;
    std::string error;
    ASSERT_TRUE(parse_sweep(sweep, spec, error)) << error;
    const std::vector<Override> base = {
        {"workload.requests", "300"}, {"policies", "affinity_balanced,round_robin"}, {"replicates", "2"}};
    for (const unsigned jobs : {1u, 2u}) {
      const SweepReport report = run_sweep("", base, spec, {}, jobs);
      ASSERT_TRUE(report.errors.empty());
      for (const SweepPoint& point : report.points) {
        EXPECT_EQ(results_to_json(point.scenario, point.report),
                  results_to_json(point.scenario, run_experiment(point.scenario, {}, nullptr, 1)))
            << sweep << " = " << point.value << ", " << jobs << " jobs";
      }
    }
  }
}

TEST(Jobs, AReplayedTraceIsTheSameBytesWithOneAndFourJobs) {
  std::ifstream in(std::string(PREFIXROUTE_SOURCE_DIR) + "/scenarios/traces/mooncake-conversation-first-1000.jsonl");
  std::stringstream text;
  text << in.rdbuf();
  ScenarioParse p = parse_scenario("", {{"policies", "all"}, {"trace.limit", "300"}});
  ASSERT_TRUE(p.ok());
  TraceReadResult read = read_trace(text.str(), trace_read_options(p.scenario.trace));
  ASSERT_TRUE(read.ok()) << read.error_text();
  ASSERT_TRUE(record_replay(p.scenario, "excerpt.jsonl", read, static_cast<double>(read.trace->total_prompt_tokens())).empty());
  const InMemoryReplay replay(*read.trace);
  EXPECT_EQ(results_to_json(p.scenario, run_experiment(p.scenario, {}, &replay, 1)),
            results_to_json(p.scenario, run_experiment(p.scenario, {}, &replay, 4)));
}

TEST(Replicates, OneReplicateWritesNoReplicateKeys) {
  const Scenario s = small({{"policies", "affinity"}});
  const Json doc = Json::parse(results_to_json(s, run_experiment(s)));
  EXPECT_FALSE(doc.contains("replicates"));
  EXPECT_FALSE(doc["results"][0].contains("interval"));
  EXPECT_EQ(doc["scenario"]["replicates"], 1);
}

TEST(Replicates, EachSeedIsTheRunOfThatSeedAlone) {
  const Scenario s = small({{"replicates", "3"}, {"policies", "round_robin,dynamo_kv"}, {"seed", "7"}});
  ASSERT_TRUE(validate(s).empty());
  const ExperimentReport report = run_experiment(s, {}, nullptr, 2);
  ASSERT_EQ(report.seeds.size(), 3u);
  const Json doc = Json::parse(results_to_json(s, report));
  EXPECT_EQ(doc["scenario"]["seed"], 7);  // the echo keeps the seed as given
  for (std::size_t r = 0; r < 3; ++r) {
    Scenario single = s;
    single.seed = 7 + r;
    single.replicates = 1;
    const Json alone = Json::parse(results_to_json(single, run_experiment(single)));
    EXPECT_EQ(doc["workload"]["per_seed"][r]["seed"], 7 + r);
    EXPECT_EQ(doc["workload"]["per_seed"][r]["fingerprint"], alone["workload"]["fingerprint"]);
    for (std::size_t p = 0; p < 2; ++p) {
      Json seed_row = doc["results"][p]["per_seed"][r];
      EXPECT_EQ(seed_row["seed"], 7 + r);
      seed_row.erase("seed");
      Json alone_row = alone["results"][p];
      for (const char* key : {"policy", "label", "replicas"}) alone_row.erase(key);
      EXPECT_EQ(seed_row, alone_row) << "seed " << 7 + r << " policy " << p;
    }
    Json ideal = doc["bounds"]["ideal"]["per_seed"][r];
    ideal.erase("seed");
    EXPECT_EQ(ideal, alone["bounds"]["ideal"]);
  }
}

TEST(Replicates, RowsHoldTheMeanAndTheIntervalOfTheSeeds) {
  const Scenario s = small({{"replicates", "5"}, {"policies", "round_robin,affinity"}});
  const Json doc = Json::parse(results_to_json(s, run_experiment(s, {}, nullptr, 2)));
  for (const Json& row : doc["results"]) {
    std::vector<double> values;
    for (const Json& seed : row["per_seed"]) values.push_back(seed["mean_ttft_ms"].get<double>());
    const Interval want = t_interval(values);
    EXPECT_EQ(row["mean_ttft_ms"].get<double>(), want.mean);
    EXPECT_EQ(row["interval"]["mean_ttft_ms"]["half_width"].get<double>(), want.half_width);
    EXPECT_EQ(row["interval"]["mean_ttft_ms"]["low"].get<double>(), want.low());
    EXPECT_EQ(row["interval"]["mean_ttft_ms"]["high"].get<double>(), want.high());
    EXPECT_EQ(row["replicas"].size(), 3u);
  }
  EXPECT_EQ(doc["replicates"]["count"], 5);
  EXPECT_EQ(doc["replicates"]["seeds"], Json({42, 43, 44, 45, 46}));
  EXPECT_EQ(doc["replicates"]["t"].get<double>(), student_t_975(4));
  // The N = 1 keys keep their places: every one of them comes first, in order.
  using Ordered = nlohmann::ordered_json;
  const Ordered one = Ordered::parse(results_to_json(small({{"policies", "round_robin,affinity"}}),
                                                     run_experiment(small({{"policies", "round_robin,affinity"}}))));
  const Ordered five = Ordered::parse(results_to_json(s, run_experiment(s)));
  std::vector<std::string> keys_one, keys_five;
  for (const auto& [k, v] : one.items()) keys_one.push_back(k);
  for (const auto& [k, v] : five.items()) keys_five.push_back(k);
  EXPECT_EQ(keys_five, (std::vector<std::string>{"schema", "recommended", "scenario", "workload", "bounds", "results", "replicates"}));
  EXPECT_EQ(std::vector<std::string>(keys_five.begin(), keys_five.end() - 1), keys_one);
}

// The batched engine under replicates: its row metrics get means, intervals
// and per-seed values like the others, its per-replica figures means, and
// the timeline (sampled at each seed's own period) is replicate 0's.
TEST(Replicates, BatchedRowsHoldMeansIntervalsAndTheFirstSeedsTimeline) {
  const std::vector<Override> batched = {{"cluster.engine", "batched"},
                                         {"workload.output_tokens_min", "5"},
                                         {"workload.output_tokens_max", "60"},
                                         {"policies", "round_robin,affinity"}};
  std::vector<Override> replicated = batched;
  replicated.emplace_back("replicates", "3");
  const Scenario s = small(replicated);
  ASSERT_TRUE(validate(s).empty());
  const std::string text = results_to_json(s, run_experiment(s, {}, nullptr, 2));
  EXPECT_EQ(text, results_to_json(s, run_experiment(s, {}, nullptr, 1)));
  const Json doc = Json::parse(text);
  EXPECT_TRUE(doc.contains("hardware"));
  for (std::size_t r = 0; r < 3; ++r) {
    Scenario single = s;
    single.seed = s.seed + r;
    single.replicates = 1;
    const Json alone = Json::parse(results_to_json(single, run_experiment(single)));
    for (std::size_t p = 0; p < 2; ++p) {
      const Json& row = doc["results"][p];
      Json seed_row = row["per_seed"][r];
      seed_row.erase("seed");
      Json alone_row = alone["results"][p];
      ASSERT_TRUE(alone_row.contains("timeline"));
      if (r == 0) {
        EXPECT_EQ(row["timeline"], alone_row["timeline"]);
      }
      for (const char* key : {"policy", "label", "replicas", "timeline"}) alone_row.erase(key);
      EXPECT_EQ(seed_row, alone_row) << "seed " << single.seed << " policy " << p;
    }
  }
  for (const Json& row : doc["results"]) {
    for (const char* key : {"mean_tpot_ms", "p99_tpot_ms", "output_tokens_per_s", "mean_batch", "preemptions",
                            "recomputed_tokens", "span_s"}) {
      ASSERT_TRUE(row["interval"].contains(key)) << key;
      std::vector<double> values;
      for (const Json& seed : row["per_seed"]) values.push_back(seed[key].get<double>());
      EXPECT_EQ(row[key].get<double>(), t_interval(values).mean) << key;
    }
    ASSERT_EQ(row["replicas"].size(), 3u);
    for (const char* key : {"steps", "mean_batch", "peak_batch", "output_tokens_per_s", "preemptions"})
      EXPECT_TRUE(row["replicas"][0].contains(key)) << key;
  }
}

TEST(Replicates, NotDistinguishableListsExactlyTheOverlappingPairs) {
  const Scenario s = small({{"replicates", "4"}, {"policies", "round_robin,least_loaded,affinity,affinity_balanced"}});
  const ExperimentReport report = run_experiment(s, {}, nullptr, 2);
  const ReplicateStats stats = replicate_stats(report);
  const Json doc = Json::parse(results_to_json(s, report));
  for (const std::string_view metric : kHeadlineMetrics) {
    const Json& listed = doc["replicates"]["not_distinguishable"][std::string(metric)];
    std::size_t expected = 0;
    for (std::size_t a = 0; a < 4; ++a)
      for (std::size_t b = a + 1; b < 4; ++b) {
        const Interval x = stats.policies[a].find(metric)->interval, y = stats.policies[b].find(metric)->interval;
        const bool overlap = x.low() <= y.high() && y.low() <= x.high();
        bool found = false;
        for (const Json& pair : listed)
          found = found || (pair[0] == s.policies[a] && pair[1] == s.policies[b]);
        EXPECT_EQ(found, overlap) << metric << " " << s.policies[a] << " " << s.policies[b];
        expected += overlap;
      }
    EXPECT_EQ(listed.size(), expected);
  }
}

TEST(Replicates, ATraceRefusesMoreThanOneNamingTheField) {
  const ScenarioParse p = parse_scenario(R"({"trace": {"name": "x.jsonl"}, "replicates": 3})");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.errors[0].field, "replicates");
  EXPECT_NE(p.errors[0].message.find("no seed changes them"), std::string::npos) << p.errors[0].message;
  // And when the file is given to a scenario that asked for replicates.
  ScenarioParse q = parse_scenario("", {{"replicates", "2"}});
  ASSERT_TRUE(q.ok());
  TraceReadResult read = read_trace("{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n",
                                    trace_read_options(q.scenario.trace));
  ASSERT_TRUE(read.ok());
  const auto errors = record_replay(q.scenario, "one.jsonl", read, 4);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "replicates");
}

TEST(Replicates, TheLastSeedMustStayAnExactInteger) {
  const ScenarioParse p = parse_scenario("", {{"seed", "9007199254740990"}, {"replicates", "3"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.errors[0].field, "replicates");
  EXPECT_TRUE(parse_scenario("", {{"seed", "9007199254740989"}, {"replicates", "3"}}).ok());
  EXPECT_FALSE(parse_scenario("", {{"replicates", "0"}}).ok());
  EXPECT_FALSE(parse_scenario("", {{"replicates", "1001"}}).ok());
}

TEST(Progress, SeveralJobsNeverCallAtOnceAndSeeEveryRun) {
  const Scenario s = small({{"replicates", "2"}, {"workload.requests", "9000"}, {"policies", "round_robin,affinity"}});
  ASSERT_TRUE(validate(s).empty());
  std::atomic<int> inside{0};
  bool overlapped = false;
  std::vector<bool> started(run_count(s), false);
  const ExperimentReport report = run_experiment(
      s,
      [&](std::size_t run, std::uint64_t done, std::uint64_t total) {
        overlapped = overlapped || ++inside > 1;
        if (done == 0) started.at(run) = true;
        EXPECT_LE(done, total);
        --inside;
        return true;
      },
      nullptr, 4);
  EXPECT_FALSE(report.cancelled);
  EXPECT_FALSE(overlapped);
  for (std::size_t i = 0; i < started.size(); ++i) EXPECT_TRUE(started[i]) << i;
}

TEST(Progress, CancellingWithSeveralJobsStopsEveryRunAndCallsNoMore) {
  const Scenario s = small({{"replicates", "3"}, {"workload.requests", "20000"}, {"workload.prefix_tokens_max", "60"}});
  ASSERT_TRUE(validate(s).empty());
  std::mutex m;
  int calls_after = 0;
  bool cancelled = false;
  const ExperimentReport report = run_experiment(
      s,
      [&](std::size_t, std::uint64_t done, std::uint64_t) {
        const std::lock_guard<std::mutex> lock(m);
        if (cancelled) ++calls_after;
        cancelled = cancelled || done > 0;
        return !cancelled;
      },
      nullptr, 4);
  EXPECT_TRUE(report.cancelled);
  EXPECT_EQ(calls_after, 0);
  EXPECT_TRUE(report.seeds.empty());
  EXPECT_LT(report.outcomes.size(), s.policies.size());
}

// The fingerprint is a task of its own beside the runs: a report cancelled
// at any point still names its workload's fingerprint whenever it names the
// workload (cancelled at the k-th progress call, k = 1..5, with 1, 2 and 4
// jobs).
TEST(Progress, ACancelledReportNamesItsWorkloadsFingerprint) {
  const Scenario s = small({{"workload.requests", "3000"}, {"policies", "round_robin,affinity,least_loaded"}});
  ASSERT_TRUE(validate(s).empty());
  const ExperimentReport whole = run_experiment(s, nullptr, nullptr, 1);
  ASSERT_NE(whole.fingerprint, 0u);
  for (const unsigned jobs : {1u, 2u, 4u})
    for (int cancel_at = 1; cancel_at <= 5; ++cancel_at) {
      std::mutex m;
      int calls = 0;
      const ExperimentReport report = run_experiment(
          s,
          [&](std::size_t, std::uint64_t, std::uint64_t) {
            const std::lock_guard<std::mutex> lock(m);
            return ++calls < cancel_at;
          },
          nullptr, jobs);
      ASSERT_TRUE(report.cancelled) << jobs << " jobs, cancelled at " << cancel_at;
      if (report.requests != 0) {
        EXPECT_EQ(report.fingerprint, whole.fingerprint) << jobs << " jobs, cancelled at " << cancel_at;
      }
    }
}

}  // namespace
}  // namespace prefixroute::run_list_test
