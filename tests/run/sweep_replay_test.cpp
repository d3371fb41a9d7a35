// A sweep of a replayed trace (sweep_replay.h), as a specification: every
// point replays the trace as a single replay of its scenario would, the base
// scenario names the trace, shards merge into the whole sweep's bytes, and a
// key the trace makes meaningless (trace.*, workload.*) or a point the trace
// refuses is refused by name.
#include "prefixroute/run/sweep_replay.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/io/shard_json.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/run/shard.h"
#include "files.h"

namespace prefixroute::sweep_replay_test {
namespace {

// The excerpt's first 150 lines: a small trace of long prompts.
std::string excerpt_head() {
  const std::optional<std::string> text = testsupport::read_file(testsupport::kMooncakeExcerpt);
  if (!text) {
    ADD_FAILURE() << "cannot read " << testsupport::kMooncakeExcerpt;
    return {};
  }
  std::size_t at = 0;
  for (int line = 0; line < 150 && at != std::string::npos; ++line) at = text->find('\n', at + 1);
  return text->substr(0, at + 1);
}

const std::vector<Override> kBase = {{"policies", "round_robin,affinity_balanced"}, {"cluster.cache_tokens", "100000"}};

struct Read {
  TraceReadOptions options;
  TraceReadResult result;
};

Read read_for(const SweepReport& plan) {
  Read r;
  r.options = trace_read_options(plan.points.front().scenario.trace);
  r.result = read_trace(excerpt_head(), r.options);
  EXPECT_TRUE(r.result.ok()) << r.result.error_text();
  return r;
}

SweepSpec spec_of(const std::string& text) {
  SweepSpec spec;
  std::string error;
  EXPECT_TRUE(parse_sweep(text, spec, error)) << error;
  return spec;
}

}  // namespace

TEST(SweepReplay, EveryPointIsASingleReplayOfItsScenarioAndTheBaseScenarioNamesTheTrace) {
  const SweepSpec spec = spec_of("cluster.replicas=2,4");
  SweepReport plan = plan_sweep("", kBase, spec);
  ASSERT_TRUE(plan.errors.empty());
  const Read read = read_for(plan);
  const InMemoryReplay replay(*read.result.trace);
  ASSERT_TRUE(record_sweep_replay(plan, spec, read.options, "trace/head.jsonl", read.result, replay.figures().size).empty());
  const SweepReport sweep = run_planned_sweep(plan, {}, 2, &replay);
  ASSERT_EQ(sweep.points.size(), 2u);
  for (const SweepPoint& point : sweep.points) {
    std::vector<Override> overrides = kBase;
    overrides.emplace_back(spec.key, point.value);
    ScenarioParse single = parse_scenario("", overrides);
    ASSERT_TRUE(single.ok());
    ASSERT_TRUE(record_replay(single.scenario, "head.jsonl", read.result, replay.figures().size).empty());
    EXPECT_EQ(scenario_to_json(point.scenario), scenario_to_json(single.scenario));
    const ExperimentReport alone = run_experiment(single.scenario, {}, &replay, 1);
    ASSERT_EQ(point.report.outcomes.size(), alone.outcomes.size());
    for (std::size_t i = 0; i < alone.outcomes.size(); ++i) {
      SCOPED_TRACE(point.value + " " + alone.outcomes[i].policy);
      EXPECT_EQ(point.report.outcomes[i].summary.p99_ttft_ms, alone.outcomes[i].summary.p99_ttft_ms);
      EXPECT_EQ(point.report.outcomes[i].summary.hit_rate, alone.outcomes[i].summary.hit_rate);
      EXPECT_EQ(point.report.outcomes[i].summary.prefill_tokens, alone.outcomes[i].summary.prefill_tokens);
    }
  }
  const auto doc = nlohmann::json::parse(sweep_to_json(spec, sweep));
  EXPECT_EQ(doc["base_scenario"]["trace"]["name"], "head.jsonl");
  EXPECT_EQ(doc["base_scenario"]["trace"]["lines"], 150);
  EXPECT_EQ(doc["base_scenario"]["trace"]["content_hash"].get<std::string>().size(), 16u);
}

TEST(SweepReplay, ShardsMergeIntoTheWholeSweepsBytes) {
  const SweepSpec spec = spec_of("affinity_balanced.load_slack_s=0,0.1");
  SweepReport plan = plan_sweep("", kBase, spec);
  const Read read = read_for(plan);
  const InMemoryReplay replay(*read.result.trace);
  ASSERT_TRUE(record_sweep_replay(plan, spec, read.options, "head.jsonl", read.result, replay.figures().size).empty());
  const std::string whole = sweep_to_json(spec, run_planned_sweep(plan, {}, 1, &replay));
  std::vector<ShardInput> shards;
  for (std::uint32_t k = 1; k <= 3; ++k)
    shards.push_back({"shard " + std::to_string(k), sweep_shard_to_json(spec, plan, run_sweep_shard(plan, {k, 3}, {}, 1, &replay))});
  const MergedShards merged = merge_shards(shards);
  ASSERT_TRUE(merged.ok()) << (merged.errors.empty() ? "" : merged.errors[0].message);
  EXPECT_EQ(sweep_to_json(merged.spec, merged.sweep), whole);
}

TEST(SweepReplay, RefusesTheTracesOwnKeysAndTheSyntheticWorkloadsByName) {
  for (const char* text : {"trace.limit=10,20", "workload.arrival_rate_per_s=50,100"}) {
    const SweepSpec spec = spec_of(text);
    const auto errors = sweep_replay_key_errors(spec);
    ASSERT_EQ(errors.size(), 1u) << text;
    EXPECT_EQ(errors[0].field, "(sweep)");
    EXPECT_NE(errors[0].message.find(spec.key), std::string::npos) << errors[0].message;
    SweepReport plan = plan_sweep("", kBase, spec);
    ASSERT_TRUE(plan.errors.empty());
    const Read read = read_for(plan);
    EXPECT_EQ(record_sweep_replay(plan, spec, read.options, "head.jsonl", read.result, ReplaySize{}).size(), 1u);
  }
  EXPECT_TRUE(sweep_replay_key_errors(spec_of("cluster.replicas=1,2")).empty());
  EXPECT_TRUE(sweep_replay_key_errors(spec_of("seed=1,2")).empty());
}

TEST(SweepReplay, APointTheTraceRefusesIsNamedWithItsValueAndNothingIsRecorded) {
  // A trace has one replicate: replicates = 2 is refused for that point only.
  const SweepSpec spec = spec_of("replicates=1,2");
  SweepReport plan = plan_sweep("", kBase, spec);
  ASSERT_TRUE(plan.errors.empty());
  const Read read = read_for(plan);
  const InMemoryReplay replay(*read.result.trace);
  const auto errors = record_sweep_replay(plan, spec, read.options, "head.jsonl", read.result, replay.figures().size);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].field, "replicates");
  EXPECT_NE(errors[0].message.find("(sweep value \"2\")"), std::string::npos) << errors[0].message;
  for (const SweepPoint& point : plan.points) EXPECT_EQ(point.scenario.trace.name, "");
}

}  // namespace prefixroute::sweep_replay_test
