// A replayed trace, held in memory (InMemoryReplay) or spilled to a
// temporary file and streamed back by every run (SpilledTrace, the command
// line's --trace): the same figures, and the same results JSON byte for byte
// with any number of jobs and in shards; a file not sorted by time is
// refused, or its out-of-order lines skipped, the same way by both.
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/io/shard_json.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "files.h"
#include "spilled_text.h"
#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/run/shard.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::replayed_trace_test {
namespace {

using testsupport::spill_text;

// A scenario replaying `text` both ways, recorded under one name.
struct Replays {
  Scenario scenario;
  TraceReadResult memory_read;
  std::optional<InMemoryReplay> memory;
  SpilledTrace spilled;
};

void replay_both(const std::string& text, const std::vector<Override>& overrides, Replays& out) {
  ScenarioParse p = parse_scenario("", overrides);
  ASSERT_TRUE(p.ok()) << p.error_text();
  const TraceReadOptions options = trace_read_options(p.scenario.trace);
  out.memory_read = read_trace(text, options);
  ASSERT_TRUE(out.memory_read.ok()) << out.memory_read.error_text();
  out.memory.emplace(*out.memory_read.trace);
  out.spilled = spill_text(text, options);
  ASSERT_TRUE(out.spilled.read().ok()) << out.spilled.read().error_text();
  Scenario recorded_spilled = p.scenario;
  ASSERT_TRUE(record_replay(p.scenario, "excerpt.jsonl", out.memory_read,
                            static_cast<double>(out.memory->figures().prompt_tokens))
                  .empty());
  ASSERT_TRUE(record_replay(recorded_spilled, "excerpt.jsonl", out.spilled.read(),
                            static_cast<double>(out.spilled.figures().prompt_tokens))
                  .empty());
  ASSERT_EQ(scenario_to_json(p.scenario), scenario_to_json(recorded_spilled));
  out.scenario = p.scenario;
}

std::string excerpt() {
  const std::optional<std::string> text = testsupport::read_file(testsupport::kMooncakeExcerpt);
  EXPECT_TRUE(text.has_value()) << testsupport::kMooncakeExcerpt;
  return text.value_or("");
}

TEST(ReplayedTrace, SpillingComputesTheFiguresTheTraceInMemoryHas) {
  Replays r;
  replay_both(excerpt(), {}, r);
  const ReplayFigures& a = r.memory->figures();
  const ReplayFigures& b = r.spilled.figures();
  EXPECT_EQ(a.requests, 1000u);
  EXPECT_EQ(b.requests, a.requests);
  EXPECT_EQ(b.prompt_tokens, a.prompt_tokens);
  EXPECT_EQ(b.fingerprint, a.fingerprint);
  EXPECT_EQ(b.size.requests, a.size.requests);
  EXPECT_EQ(b.size.prompt_tokens, a.size.prompt_tokens);
  EXPECT_EQ(b.size.max_prompt_tokens, a.size.max_prompt_tokens);
  EXPECT_EQ(b.size.pieces, a.size.pieces);
  EXPECT_EQ(estimated_peak_bytes(r.scenario, &b.size), estimated_peak_bytes(r.scenario, &a.size));
  // The ideal bound from the block ids, as each reads the trace: the radix
  // cache's figure over the same requests.
  const CacheBound cache = ideal_bound(*r.memory_read.trace);
  for (const ReplayFigures* f : {&a, &b}) {
    ASSERT_TRUE(f->ideal.has_value());
    EXPECT_TRUE(f->size.ideal_from_block_ids);
    EXPECT_EQ(f->ideal->cached_tokens, cache.cached_tokens);
    EXPECT_EQ(f->ideal->prefill_tokens, cache.prefill_tokens);
    EXPECT_EQ(f->ideal->capacity_tokens, cache.capacity_tokens);
    EXPECT_EQ(f->ideal->hit_rate, cache.hit_rate);
  }
}

// A Bailian trace's partial blocks are content of their own: the block ids
// do not describe it, and its ideal bound's run serves it from a radix cache.
TEST(ReplayedTrace, ASessionsTraceLeavesTheIdealBoundToItsRun) {
  const std::string text =
      "{\"chat_id\": 1, \"parent_chat_id\": -1, \"timestamp\": 0.0, \"input_length\": 20, \"output_length\": 4, "
      "\"type\": \"text\", \"turn\": 1, \"hash_ids\": [1, 2]}\n"
      "{\"chat_id\": 2, \"parent_chat_id\": 1, \"timestamp\": 1.0, \"input_length\": 40, \"output_length\": 4, "
      "\"type\": \"text\", \"turn\": 2, \"hash_ids\": [1, 2, 3]}\n";
  Replays r;
  replay_both(text, {{"trace.block_size", "16"}}, r);
  EXPECT_FALSE(r.memory->figures().ideal.has_value());
  EXPECT_FALSE(r.spilled.figures().ideal.has_value());
  EXPECT_FALSE(r.spilled.figures().size.ideal_from_block_ids);
  const ExperimentReport report = run_experiment(r.scenario, {}, &r.spilled, 1);
  const CacheBound cache = ideal_bound(*r.memory_read.trace);
  EXPECT_EQ(report.ideal.cached_tokens, cache.cached_tokens);
  EXPECT_EQ(report.ideal.prefill_tokens, cache.prefill_tokens);
}

TEST(ReplayedTrace, TheSpilledReplayWritesTheInMemoryResultsJsonWithOneAndFourJobs) {
  Replays r;
  replay_both(excerpt(), {{"policies", "all"}}, r);
  const std::string in_memory = results_to_json(r.scenario, run_experiment(r.scenario, {}, &*r.memory, 1));
  ASSERT_NE(in_memory.find("\"fingerprint\""), std::string::npos);
  EXPECT_EQ(results_to_json(r.scenario, run_experiment(r.scenario, {}, &r.spilled, 1)), in_memory);
  EXPECT_EQ(results_to_json(r.scenario, run_experiment(r.scenario, {}, &r.spilled, 4)), in_memory);
  EXPECT_EQ(results_to_json(r.scenario, run_experiment(r.scenario, {}, &*r.memory, 4)), in_memory);
}

TEST(ReplayedTrace, ShardsOfTheSpilledReplayMergeIntoTheInMemoryResultsJson) {
  Replays r;
  replay_both(excerpt(), {{"policies", "round_robin,affinity_balanced,dynamo_kv,sglang_cache_aware"},
                          {"trace.limit", "400"}},
              r);
  const std::string in_memory = results_to_json(r.scenario, run_experiment(r.scenario, {}, &*r.memory, 1));
  std::vector<ShardInput> docs;
  for (std::size_t k = 1; k <= 3; ++k) {
    const ShardReport shard = run_experiment_shard(r.scenario, Shard{k, 3}, {}, &r.spilled, k == 2 ? 2 : 1);
    ASSERT_FALSE(shard.cancelled);
    docs.push_back({"shard" + std::to_string(k), experiment_shard_to_json(r.scenario, shard)});
  }
  const MergedShards merged = merge_shards(docs);
  ASSERT_TRUE(merged.ok()) << merged.errors[0].field << ": " << merged.errors[0].message;
  EXPECT_EQ(results_to_json(merged.scenario, merged.report), in_memory);
}

TEST(ReplayedTrace, EveryOpenIsAFreshReaderFromTheFirstRequest) {
  Replays r;
  replay_both(excerpt(), {{"trace.limit", "5"}}, r);
  for (const ReplayedTrace* replay : {static_cast<const ReplayedTrace*>(&*r.memory),
                                      static_cast<const ReplayedTrace*>(&r.spilled)}) {
    const auto a = replay->open();
    SourcedRequest request;
    ASSERT_TRUE(a->next(request));
    ASSERT_TRUE(a->next(request));
    const auto b = replay->open();
    std::size_t n = 0;
    while (b->next(request)) ++n;
    EXPECT_EQ(n, 5u);
    EXPECT_EQ(b->size(), 5u);
  }
}

// Timestamps must not decrease: the first line earlier than the previous
// request is refused, naming its line and field, whichever way the trace is
// read (nothing is sorted in memory); under on_error = skip such lines are
// skipped and counted, the same lines by both.
const std::string kUnsorted =
    "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n"
    "{\"timestamp\": 10, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [2]}\n"
    "{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [3]}\n"
    "{\"timestamp\": 10, \"input_length\": 8, \"output_length\": 1, \"hash_ids\": [2, 4]}\n"
    "{\"timestamp\": 7, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [5]}\n";

TEST(ReplayedTrace, AnOutOfOrderLineStopsBothReadingsNamingItsLine) {
  TraceReadOptions options;
  options.block_size = 4;
  const TraceReadResult memory = read_trace(kUnsorted, options);
  const SpilledTrace spilled = spill_text(kUnsorted, options);
  for (const TraceReadResult* read : {&memory, &spilled.read()}) {
    EXPECT_FALSE(read->ok());
    ASSERT_EQ(read->problems.size(), 1u);
    EXPECT_EQ(read->problems[0].text(),
              "line 3, timestamp: is 5, earlier than the previous request's; timestamps must not decrease");
  }
}

TEST(ReplayedTrace, OutOfOrderLinesAreSkippedAlikeUnderSkip) {
  Replays r;
  replay_both(kUnsorted, {{"trace.block_size", "4"}, {"trace.on_error", "skip"}, {"cluster.replicas", "2"}}, r);
  for (const TraceReadResult* read : {static_cast<const TraceReadResult*>(&r.memory_read), &r.spilled.read()}) {
    EXPECT_EQ(read->requests, 3u);
    EXPECT_EQ(read->bad_lines, 2u);
    ASSERT_EQ(read->problems.size(), 2u);
    EXPECT_EQ(read->problems[0].line, 3u);
    EXPECT_EQ(read->problems[1].line, 5u);
  }
  EXPECT_EQ(r.scenario.trace.skipped_lines, 2u);
  EXPECT_EQ(results_to_json(r.scenario, run_experiment(r.scenario, {}, &r.spilled, 2)),
            results_to_json(r.scenario, run_experiment(r.scenario, {}, &*r.memory, 1)));
}

}  // namespace
}  // namespace prefixroute::replayed_trace_test
