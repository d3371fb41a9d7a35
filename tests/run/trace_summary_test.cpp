// The trace summary (run/trace_summary.h) and its JSON: the ideal hit rate of
// a small trace counted by hand, the same JSON bytes whether the trace is
// held in memory (the module's TraceLoader) or spilled to a file (the
// command line's --trace), the results' ideal bound, and an openai log's key
// mapping in the JSON.
#include "prefixroute/run/trace_summary.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "files.h"
#include "spilled_text.h"
#include "prefixroute/io/trace_summary_json.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::trace_summary_test {
namespace {

using testsupport::spill_text;

// The summary JSON of `text` read into memory and spilled; both must agree.
std::string summary_json(const std::string& text, const TraceReadOptions& options) {
  const TraceReadResult read = read_trace(text, options);
  EXPECT_TRUE(read.ok()) << read.error_text();
  if (!read.ok()) return "";
  const InMemoryReplay memory(*read.trace);
  const std::string in_memory = trace_summary_to_json(summarize_trace("dir/t.jsonl", read, options, memory));
  SpilledTrace spilled = spill_text(text, options);
  const std::string from_file =
      trace_summary_to_json(summarize_trace("t.jsonl", spilled.read(), options, spilled));
  EXPECT_EQ(in_memory, from_file);
  return in_memory;
}

// As trace_profile_test's Mooncake trace, 4-token blocks: A [1, 2] 8 tokens,
// B [1, 3] 7, C [4] 4, D [1, 2] 6.
const std::string kMooncake =
    R"({"timestamp": 0, "input_length": 8, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 7, "output_length": 20, "hash_ids": [1, 3]}
{"timestamp": 4000, "input_length": 4, "output_length": 30, "hash_ids": [4]}
{"timestamp": 4000, "input_length": 6, "output_length": 0, "hash_ids": [1, 2]}
)";

}  // namespace

TEST(TraceSummary, AMooncakeTracesFiguresAndIdealHitRateCountedByHand) {
  TraceReadOptions o;
  o.block_size = 4;
  const auto doc = nlohmann::json::parse(summary_json(kMooncake, o));
  EXPECT_EQ(doc["schema"], "prefixroute.trace/1");
  EXPECT_EQ(doc["name"], "t.jsonl");
  EXPECT_EQ(doc["format"], "mooncake");
  EXPECT_EQ(doc["lines"], 4);
  EXPECT_EQ(doc["requests"], 4);
  EXPECT_EQ(doc["duration_s"], 4.0);
  EXPECT_EQ(doc["prompt_tokens"]["p99"], 8);
  EXPECT_TRUE(doc["sessions"].is_null());
  EXPECT_TRUE(doc["fields"].is_null());
  EXPECT_EQ(doc["shared_prefix_tokens"], 16);
  // Ideal: A none, B block 1 (4), C none, D block 1 and the 2 tokens of
  // block 2 that A holds (6): 10 of 25.
  EXPECT_DOUBLE_EQ(doc["ideal_hit_rate"].get<double>(), 10.0 / 25.0);
}

TEST(TraceSummary, TheIdealHitRateIsTheResultsIdealBound) {
  const std::optional<std::string> text = testsupport::read_file(testsupport::kMooncakeExcerpt);
  ASSERT_TRUE(text.has_value());
  ScenarioParse p = parse_scenario("", {});
  ASSERT_TRUE(p.ok());
  const TraceReadOptions options = trace_read_options(p.scenario.trace);
  const TraceReadResult read = read_trace(*text, options);
  ASSERT_TRUE(read.ok()) << read.error_text();
  const InMemoryReplay memory(*read.trace);
  const TraceSummary summary = summarize_trace("excerpt.jsonl", read, options, memory);
  ASSERT_TRUE(record_replay(p.scenario, "excerpt.jsonl", read, memory.figures().size).empty());
  const ExperimentReport report = run_experiment(p.scenario, {}, &memory);
  EXPECT_EQ(summary.ideal.hit_rate, report.ideal.hit_rate);
  EXPECT_EQ(summary.profile.requests, report.requests);
  EXPECT_EQ(summary.profile.prompt_tokens.total, report.prompt_tokens);
  EXPECT_GT(summary.profile.shared_prefix_share, summary.ideal.hit_rate);  // both requests of a shared prefix count
}

TEST(TraceSummary, AnOpenAiLogsKeyMappingIsInTheJson) {
  std::string text;
  for (int i = 0; i < 3; ++i)
    text += "{\"created\": " + std::to_string(1700000000 + i) +
            ", \"messages\": [{\"role\": \"user\", \"content\": \"Hi there\"}], \"output_tokens\": 2, \"user\": \"u" +
            std::to_string(i % 2) + "\"}\n";
  TraceReadOptions o;
  const auto doc = nlohmann::json::parse(summary_json(text, o));
  EXPECT_EQ(doc["format"], "openai");
  EXPECT_EQ(doc["fields"]["time"]["chosen"], "auto");
  EXPECT_EQ(doc["fields"]["time"]["read"]["created"], 3);
  EXPECT_EQ(doc["fields"]["time"]["present"]["timestamp"], 0);
  EXPECT_EQ(doc["fields"]["prompt"]["read"]["messages"], 3);
  EXPECT_EQ(doc["fields"]["session"]["read"]["user"], 3);
  EXPECT_EQ(doc["sessions"]["count"], 2);  // u0, u1
  EXPECT_EQ(doc["sessions"]["multi_request"], 1);
  EXPECT_EQ(doc["duration_s"], 2.0);
  o.session_field = TraceReadOptions::SessionField::None;
  const auto none = nlohmann::json::parse(summary_json(text, o));
  EXPECT_EQ(none["fields"]["session"]["chosen"], "none");
  EXPECT_EQ(none["fields"]["session"]["read"]["none"], 3);
  EXPECT_EQ(none["sessions"]["count"], 3);
}

}  // namespace prefixroute::trace_summary_test
