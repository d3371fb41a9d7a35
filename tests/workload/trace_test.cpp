// Trace replay: the Mooncake JSONL reader, block-id -> token mapping, and the
// ideal cache bound checked against a direct count of repeated leading blocks.
#include <gtest/gtest.h>

#include <map>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/trace_reader.h"
#include "files.h"

namespace prefixroute::trace_test {

namespace {

using testsupport::kMooncakeExcerpt;
using testsupport::read_file;

const std::string kFullTrace = testsupport::source_path("../shared/traces/mooncake_conversation_trace.jsonl");

TraceReadOptions with_block(std::uint32_t block_size) {
  TraceReadOptions o;
  o.block_size = block_size;
  return o;
}

// Cached tokens of an unbounded prefix cache, counted from block ids alone: a
// request reuses block j if an earlier request had the same chain of ids up to
// and including j; it reuses as many of block j's tokens as both requests have.
std::uint64_t direct_count_of_reused_tokens(const BlockTrace& trace) {
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint64_t> chain_id;  // (parent chain, id) -> chain
  std::map<std::uint64_t, std::uint64_t> tokens_seen;                         // chain -> most tokens of its last block
  std::uint64_t reused = 0;
  const std::uint64_t bs = trace.block_size();
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const std::uint64_t length = trace.prompt_tokens(i);
    const auto blocks = trace.blocks_of(i);
    std::uint64_t parent = 0;
    bool matching = true;
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const std::uint64_t in_block = std::min<std::uint64_t>(bs, length - j * bs);
      auto [it, fresh] = chain_id.try_emplace({parent, blocks[j]}, chain_id.size() + 1);
      const std::uint64_t chain = it->second;
      std::uint64_t& seen = tokens_seen[chain];  // 0 when fresh
      if (matching) {
        const std::uint64_t m = std::min(seen, in_block);
        reused += m;
        matching = m == in_block;
      }
      seen = std::max(seen, in_block);
      parent = chain;
    }
  }
  return reused;
}

}  // namespace

TEST(TraceReader, ReadsRequestsWithScaledArrivals) {
  TraceReadOptions o = with_block(4);
  o.time_scale = 2.0;
  const auto r = read_trace(
      "{\"timestamp\": 0, \"input_length\": 6, \"output_length\": 3, \"hash_ids\": [7, 8]}\n"
      "{\"timestamp\": 1.5, \"input_length\": 4, \"output_length\": 0, \"hash_ids\": [7]}\n",
      o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.lines, 2u);
  EXPECT_EQ(r.trace->arrival(1), 3 * kTicksPerMillisecond);
  EXPECT_EQ(r.trace->prompt_tokens(0), 6u);
  EXPECT_EQ(r.trace->output_tokens(0), 3u);
}

TEST(BlockTrace, EqualIdsGiveEqualTokensAndThePartialBlockIsAPrefixOfItsRun) {
  const auto r = read_trace(
      "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 1, \"hash_ids\": [5, 6]}\n"
      "{\"timestamp\": 0, \"input_length\": 6, \"output_length\": 1, \"hash_ids\": [5, 6]}\n"
      "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 1, \"hash_ids\": [5, 9]}\n",
      with_block(4));
  ASSERT_TRUE(r.ok()) << r.error_text();
  std::vector<Token> a, b, c;
  r.trace->materialize(0, a);
  r.trace->materialize(1, b);
  r.trace->materialize(2, c);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin()));  // partial block: first tokens of the run
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + 4, c.begin()));
  EXPECT_NE(a[4], c[4]);  // different ids differ at the block's first token
  EXPECT_EQ(a[4], 6u);
}

TEST(TraceReader, ChunkedFeedingEqualsReadingWhole) {
  const std::string text = read_file(kMooncakeExcerpt).value_or("");
  ASSERT_FALSE(text.empty()) << kMooncakeExcerpt;
  const auto whole = read_trace(text, TraceReadOptions{});
  ASSERT_TRUE(whole.ok()) << whole.error_text();
  EXPECT_EQ(whole.trace->size(), 1000u);
  for (const std::size_t chunk : {1u, 7u, 4096u, 65536u}) {
    TraceReader reader{TraceReadOptions{}};
    for (std::size_t pos = 0; pos < text.size(); pos += chunk) reader.feed(std::string_view(text).substr(pos, chunk));
    const auto chunked = reader.finish();
    ASSERT_TRUE(chunked.ok()) << chunked.error_text();
    EXPECT_EQ(chunked.trace->fingerprint(), whole.trace->fingerprint()) << "chunk " << chunk;
    EXPECT_EQ(chunked.content_hash, whole.content_hash);
  }
}

TEST(TraceReader, LimitKeepsTheFirstRequests) {
  TraceReadOptions o;
  o.limit = 10;
  const auto r = read_trace(read_file(kMooncakeExcerpt).value_or(""), o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.trace->size(), 10u);
}

// Four Mooncake requests at 0, 1, 2 and 3 s (timestamps in ms).
const char* const kFourSeconds =
    "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n"
    "{\"timestamp\": 1000, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [2]}\n"
    "{\"timestamp\": 2000, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [3]}\n"
    "{\"timestamp\": 3000, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [4]}\n";

TEST(TraceReader, AWindowKeepsItsRequestsWithArrivalsFromItsStart) {
  TraceReadOptions o = with_block(4);
  o.start_s = 1;
  o.end_s = 3;
  o.time_scale = 2;
  TraceReader reader(o);
  reader.feed(kFourSeconds);
  EXPECT_TRUE(reader.done());  // the request at 3 s ended the window
  const auto r = reader.finish();
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 2u);  // 1 s and 2 s; 3 s is the window's end, excluded
  EXPECT_EQ(r.trace->arrival(0), 0);  // (1 - 1) s x 2
  EXPECT_EQ(r.trace->arrival(1), 2000 * kTicksPerMillisecond);  // (2 - 1) s x 2
  std::vector<Token> first;
  r.trace->materialize(0, first);
  EXPECT_EQ(first[0], 2u);  // the request at 1 s (block id 2)
  EXPECT_EQ(r.lines, 4u);
}

TEST(TraceReader, AWindowWithoutEndAndTheLimitCountFromTheWindowsStart) {
  TraceReadOptions o = with_block(4);
  o.start_s = 1.5;
  o.limit = 1;
  const auto r = read_trace(kFourSeconds, o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 1u);
  EXPECT_EQ(r.trace->arrival(0), 500 * kTicksPerMillisecond);  // 2 s - 1.5 s
}

TEST(TraceReader, AnEmptyWindowSaysSo) {
  TraceReadOptions o = with_block(4);
  o.start_s = 10;
  const auto r = read_trace(kFourSeconds, o);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].message, "no request is in the window trace.start_s = 10.0 s to trace.end_s = the end (4 requests before it)");
}

TEST(TraceReader, LinesBeforeTheWindowAreStillChecked) {
  TraceReadOptions o = with_block(4);
  o.start_s = 2;
  const auto r = read_trace(
      "{\"timestamp\": 1000, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n"
      "{\"timestamp\": 500, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [2]}\n",
      o);
  ASSERT_FALSE(r.ok());
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].line, 2u);
  EXPECT_EQ(r.problems[0].field, "timestamp");
}

TEST(TraceWindow, TheScenarioRefusesAnEndNotAfterTheStart) {
  const ScenarioParse p = parse_scenario("", {{"trace.start_s", "5"}, {"trace.end_s", "5"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.errors[0].field, "trace.end_s");
  EXPECT_NE(p.errors[0].message.find("must be 0 (to the end) or > trace.start_s (5)"), std::string::npos) << p.errors[0].message;
  EXPECT_TRUE(parse_scenario("", {{"trace.start_s", "5"}, {"trace.end_s", "0"}}).ok());
  const TraceReadOptions o = trace_read_options(parse_scenario("", {{"trace.start_s", "5"}, {"trace.end_s", "9"}}).scenario.trace);
  EXPECT_EQ(o.start_s, 5);
  EXPECT_EQ(o.end_s, 9);
}

struct BadLineCase {
  const char* line;
  const char* field;
  const char* message_part;
};

class TraceReaderBadLine : public ::testing::TestWithParam<BadLineCase> {};

TEST_P(TraceReaderBadLine, StopsWithLineNumberAndField) {
  const std::string text =
      std::string("{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n") +
      GetParam().line + "\n" +
      "{\"timestamp\": 9, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n";
  const auto r = read_trace(text, with_block(4));
  EXPECT_FALSE(r.ok());
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].line, 2u);
  EXPECT_EQ(r.problems[0].field, GetParam().field);
  EXPECT_NE(r.problems[0].message.find(GetParam().message_part), std::string::npos) << r.problems[0].message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TraceReaderBadLine,
    ::testing::Values(
        BadLineCase{"{\"timestamp\": 6, \"input_length\": 4,", "", "not valid JSON"},
        BadLineCase{"[1, 2]", "", "not a JSON object"},
        BadLineCase{"{\"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}", "timestamp", "missing"},
        BadLineCase{"{\"timestamp\": 6, \"input_length\": -4, \"output_length\": 1, \"hash_ids\": [1]}",
                    "input_length", "must be an integer in [1, 10000000]"},
        BadLineCase{"{\"timestamp\": 6, \"input_length\": 4.5, \"output_length\": 1, \"hash_ids\": [1]}",
                    "input_length", "must be an integer"},
        BadLineCase{"{\"timestamp\": 6, \"input_length\": 4, \"output_length\": \"x\", \"hash_ids\": [1]}",
                    "output_length", "must be an integer"},
        BadLineCase{"{\"timestamp\": 1, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}",
                    "timestamp", "earlier than the previous"},
        BadLineCase{"{\"timestamp\": 6, \"input_length\": 9, \"output_length\": 1, \"hash_ids\": [1, 2]}",
                    "hash_ids", "needs 3 blocks"},
        BadLineCase{"{\"timestamp\": 6, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [-1]}",
                    "hash_ids", "[0, 4294967295]"},
        BadLineCase{"{\"timestamp\": 6, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": 3}",
                    "hash_ids", "must be an array"},
        BadLineCase{"{\"timestamp\": \"soon\", \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}",
                    "timestamp", "must be a number >= 0"}));

TEST(TraceReader, SkipModeKeepsGoodLinesAndCountsBadOnes) {
  TraceReadOptions o = with_block(4);
  o.on_error = TraceReadOptions::OnError::Skip;
  const auto r = read_trace(
      "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n"
      "garbage\n"
      "\n"
      "{\"timestamp\": 2, \"input_length\": 4, \"output_length\": 1}\n"
      "{\"timestamp\": 3, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [2]}",  // no final newline
      o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.bad_lines, 2u);
  EXPECT_EQ(r.lines, 5u);
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_EQ(r.problems[0].line, 2u);
  EXPECT_EQ(r.problems[0].field, "");  // "garbage": the line as a whole
  EXPECT_EQ(r.problems[0].message, "not valid JSON");
  EXPECT_EQ(r.problems[1].line, 4u);
  EXPECT_EQ(r.problems[1].field, "hash_ids");
  EXPECT_EQ(r.problems[1].message, "missing (the prompt's block ids)");
}

TEST(TraceReader, EmptyInputIsAnError) {
  const auto r = read_trace("\n\n", TraceReadOptions{});
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].message.find("no requests"), std::string::npos);
  EXPECT_EQ(r.problems[0].line, 0u);  // the trace as a whole, no line of it
  EXPECT_EQ(r.problems[0].field, "");
}

TEST(TraceReader, OverlongLineIsRefusedWithoutBufferingIt) {
  TraceReader reader{TraceReadOptions{}};
  const std::string chunk(1 << 20, ' ');
  bool going = true;
  for (int i = 0; i < 20 && going; ++i) going = reader.feed(chunk);
  EXPECT_FALSE(going);
  const auto r = reader.finish();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error_text().find("longer than"), std::string::npos);
  ASSERT_EQ(r.problems.size(), 1u) << r.error_text();
  EXPECT_EQ(r.problems[0].line, 1u);
  EXPECT_EQ(r.problems[0].field, "");
  EXPECT_EQ(r.problems[0].message, "line is longer than 16777216 bytes");
}

TEST(IdealBound, EqualsDirectCountOfRepeatedLeadingBlocksOnTheExcerpt) {
  const auto r = read_trace(read_file(kMooncakeExcerpt).value_or(""), TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  const CacheBound ideal = ideal_bound(*r.trace);
  const std::uint64_t direct = direct_count_of_reused_tokens(*r.trace);
  EXPECT_GT(direct, 0u);
  EXPECT_EQ(ideal.cached_tokens, direct);
  EXPECT_EQ(ideal.cached_tokens + ideal.prefill_tokens, r.trace->total_prompt_tokens());
}

TEST(IdealBound, EqualsDirectCountOnTheWholeConversationTrace) {
  if (PREFIXROUTE_TESTS_SANITIZED) GTEST_SKIP() << "145 M tokens: release build only (the excerpt test runs here)";
  const std::string text = read_file(kFullTrace).value_or("");
  if (text.empty()) GTEST_SKIP() << "shared trace not found at " << kFullTrace;
  const auto r = read_trace(text, TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->size(), 12031u);
  const CacheBound ideal = ideal_bound(*r.trace);
  EXPECT_EQ(ideal.cached_tokens, direct_count_of_reused_tokens(*r.trace));
}

// Simulated time is int64 nanoseconds: a trace whose whole prefill work at the
// cluster's rate exceeds kMaxPrefillSeconds is refused before it runs (it would
// overflow a Tick in a replica's queue), naming the field to change.
// 101 requests of 10^7 tokens (10 blocks of 2^20) are 1.01e9 prompt tokens.
std::unique_ptr<BlockTrace> billion_token_trace() {
  std::string text;
  for (int i = 0; i < 101; ++i) {
    text += "{\"timestamp\": " + std::to_string(i) + ", \"input_length\": 10000000, \"output_length\": 1, \"hash_ids\": [";
    for (int b = 0; b < 10; ++b) text += (b ? ", " : "") + std::to_string(i * 10 + b);
    text += "]}\n";
  }
  auto r = read_trace(text, with_block(1u << 20));
  EXPECT_TRUE(r.ok()) << r.error_text();
  return std::move(r.trace);
}

TEST(CheckReplay, RefusesATraceWhosePrefillWorkExceedsTheTimeBound) {
  const auto trace = billion_token_trace();
  ASSERT_NE(trace, nullptr);
  ScenarioParse slow = parse_scenario("", {{"cluster.prefill_tokens_per_s", "1"}});
  ASSERT_TRUE(slow.ok()) << slow.error_text();
  const std::vector<FieldError> errors = check_replay(slow.scenario, static_cast<double>(trace->total_prompt_tokens()));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "cluster.prefill_tokens_per_s");
  EXPECT_NE(errors[0].message.find("total prompt tokens (1010000000)"), std::string::npos) << errors[0].message;
  EXPECT_NE(errors[0].message.find("must be at most 1e+09 s"), std::string::npos) << errors[0].message;
}

TEST(CheckReplay, AcceptsTheSameTraceAtARateThatFits) {
  const auto trace = billion_token_trace();
  ASSERT_NE(trace, nullptr);
  ScenarioParse fits = parse_scenario("", {{"cluster.prefill_tokens_per_s", "2"}});
  ASSERT_TRUE(fits.ok()) << fits.error_text();
  EXPECT_TRUE(check_replay(fits.scenario, static_cast<double>(trace->total_prompt_tokens())).empty());
  EXPECT_TRUE(check_replay(Scenario::reference(), static_cast<double>(trace->total_prompt_tokens())).empty());
}

}  // namespace prefixroute::trace_test
