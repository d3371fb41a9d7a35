// TraceProfile (workload/trace_profile.h): the figures of a request stream,
// checked on small traces whose every figure is counted by hand in the
// comments: duration and rate, nearest-rank lengths, sessions, and the prompt
// tokens in prefixes another request shares, partial last blocks included
// (a Mooncake partial block is the first tokens of its id's run; a Sessions
// kind's is content of its own).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prefixroute/workload/block_trace.h"
#include "prefixroute/workload/request_source.h"
#include "prefixroute/workload/trace_profile.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::trace_profile_test {

namespace {

TraceProfile profile_of(const RequestTrace& trace) {
  TraceSource source(trace);
  return profile_requests(source);
}

// Mooncake, 4-token blocks (timestamps in ms):
//   A t=0 s  [1, 2]  8 tokens  output 10
//   B t=1 s  [1, 3]  7 tokens  output 20   (block 3: 3 tokens)
//   C t=4 s  [4]     4 tokens  output 30
//   D t=4 s  [1, 2]  6 tokens  output 0    (block 2: its first 2 tokens)
const std::string kMooncake =
    R"({"timestamp": 0, "input_length": 8, "output_length": 10, "hash_ids": [1, 2]}
{"timestamp": 1000, "input_length": 7, "output_length": 20, "hash_ids": [1, 3]}
{"timestamp": 4000, "input_length": 4, "output_length": 30, "hash_ids": [4]}
{"timestamp": 4000, "input_length": 6, "output_length": 0, "hash_ids": [1, 2]}
)";

TraceReadOptions blocks_of_4() {
  TraceReadOptions o;
  o.block_size = 4;
  return o;
}

}  // namespace

TEST(TraceProfile, CountsDurationRateAndNearestRankLengths) {
  const auto read = read_trace(kMooncake, blocks_of_4());
  ASSERT_TRUE(read.ok()) << read.error_text();
  const TraceProfile p = profile_of(*read.trace);
  EXPECT_EQ(p.requests, 4u);
  EXPECT_DOUBLE_EQ(p.duration_s, 4.0);          // 0 s to 4 s
  EXPECT_DOUBLE_EQ(p.request_rate_per_s, 1.0);  // 4 requests / 4 s
  // Prompts sorted 4, 6, 7, 8: p50 is rank ceil(0.5 x 4) = 2, p99 rank ceil(0.99 x 4) = 4.
  EXPECT_EQ(p.prompt_tokens.total, 25u);
  EXPECT_DOUBLE_EQ(p.prompt_tokens.mean, 6.25);
  EXPECT_EQ(p.prompt_tokens.p50, 6u);
  EXPECT_EQ(p.prompt_tokens.p99, 8u);
  EXPECT_EQ(p.prompt_tokens.max, 8u);
  // Outputs sorted 0, 10, 20, 30.
  EXPECT_EQ(p.output_tokens.total, 60u);
  EXPECT_DOUBLE_EQ(p.output_tokens.mean, 15.0);
  EXPECT_EQ(p.output_tokens.p50, 10u);
  EXPECT_EQ(p.output_tokens.p99, 30u);
  EXPECT_EQ(p.output_tokens.max, 30u);
}

TEST(TraceProfile, AMooncakeTraceHasNoSessions) {
  const auto read = read_trace(kMooncake, blocks_of_4());
  ASSERT_TRUE(read.ok()) << read.error_text();
  const TraceProfile p = profile_of(*read.trace);
  EXPECT_FALSE(p.has_sessions);
  EXPECT_EQ(p.sessions, 0u);
  EXPECT_EQ(p.multi_request_sessions, 0u);
}

TEST(TraceProfile, SharedPrefixTokensCountWhatAnotherRequestAlsoHasAtThatPlace) {
  const auto read = read_trace(kMooncake, blocks_of_4());
  ASSERT_TRUE(read.ok()) << read.error_text();
  const TraceProfile p = profile_of(*read.trace);
  // Block 1 first: A, B and D each hold its 4 tokens (12). Then block 2 after
  // 1: A holds 4 tokens, D its first 2, so each shares 2 (4). B's block 3 and
  // C's block 4 are nobody else's. 16 of 25 prompt tokens.
  EXPECT_EQ(p.shared_prefix_tokens, 16u);
  EXPECT_DOUBLE_EQ(p.shared_prefix_share, 16.0 / 25.0);
}

TEST(TraceProfile, SessionsAndPartialBlocksOfASessionsTrace) {
  // 16-token blocks, Sessions kind:
  //   r0 t=0 s session 5  [0, 1]     32 tokens
  //   r1 t=2 s session 5  [0, 1, 2]  40 tokens (block 2: 8, partial)
  //   r2 t=2 s session 9  [0]        10 tokens (partial: its own content)
  //   r3 t=5 s session 11 [0]        12 tokens (partial)
  std::vector<BlockTrace::Entry> entries(4);
  const Tick s = kTicksPerSecond;
  entries[0] = {0, 32, 1, 0, 2, 0, 5};
  entries[1] = {2 * s, 40, 2, 2, 3, 1, 5};
  entries[2] = {2 * s, 10, 3, 5, 1, 0, 9};
  entries[3] = {5 * s, 12, 4, 6, 1, 0, 11};
  const BlockTrace trace(16, entries, {0, 1, 0, 1, 2, 0, 0}, BlockTrace::Kind::Sessions);
  const TraceProfile p = profile_of(trace);
  EXPECT_TRUE(p.has_sessions);
  EXPECT_EQ(p.sessions, 3u);                // 5, 9, 11
  EXPECT_EQ(p.multi_request_sessions, 1u);  // 5
  EXPECT_DOUBLE_EQ(p.duration_s, 5.0);
  EXPECT_DOUBLE_EQ(p.request_rate_per_s, 0.8);
  // Full blocks 0 and 1: r0 and r1 hold 16 + 16 each (64). r1's partial
  // block 2 is its own. The partial blocks 0 of r2 (10) and r3 (12) share
  // their first 10 tokens with each other, not with full block 0 (20).
  EXPECT_EQ(p.shared_prefix_tokens, 84u);
  EXPECT_EQ(p.prompt_tokens.total, 94u);
  EXPECT_DOUBLE_EQ(p.shared_prefix_share, 84.0 / 94.0);
  EXPECT_EQ(p.prompt_tokens.p50, 12u);  // sorted 10, 12, 32, 40
  EXPECT_EQ(p.prompt_tokens.p99, 40u);
}

TEST(TraceProfile, OneRequestHasNoDurationRateOrSharedTokens) {
  const auto read = read_trace(R"({"timestamp": 7, "input_length": 5, "output_length": 2, "hash_ids": [1, 2]})" "\n",
                               blocks_of_4());
  ASSERT_TRUE(read.ok()) << read.error_text();
  const TraceProfile p = profile_of(*read.trace);
  EXPECT_EQ(p.requests, 1u);
  EXPECT_EQ(p.duration_s, 0.0);
  EXPECT_EQ(p.request_rate_per_s, 0.0);
  EXPECT_EQ(p.shared_prefix_tokens, 0u);
  EXPECT_EQ(p.prompt_tokens.p50, 5u);
  EXPECT_EQ(p.prompt_tokens.p99, 5u);
}

TEST(TraceProfile, TimeScaleStretchesTheDurationAsReplayed) {
  TraceReadOptions o = blocks_of_4();
  o.time_scale = 2;
  const auto read = read_trace(kMooncake, o);
  ASSERT_TRUE(read.ok()) << read.error_text();
  const TraceProfile p = profile_of(*read.trace);
  EXPECT_DOUBLE_EQ(p.duration_s, 8.0);
  EXPECT_DOUBLE_EQ(p.request_rate_per_s, 0.5);
}

}  // namespace prefixroute::trace_profile_test
