// LMetric (AIBrix l-metric-local): the score on crafted router-local state,
// AIBrix's integer hit estimate, the router's own prefix table (not the
// engine's cache), pending work released at completion, seeded ties.
#include "prefixroute/policies/lmetric.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "replicas.h"
#include "tokens.h"

namespace prefixroute {
namespace {

using testsupport::cache_prefix;
using testsupport::concat;
using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::Tokens;

const PrefillModel kPrefill{1000.0};

LMetricParams block(std::uint32_t b) {
  LMetricParams p;
  p.block_size = b;
  return p;
}

TEST(LMetric, HitIsAibrixsIntegerMatchPercentOfThePrompt) {
  // 10 tokens, blocks of 4: 2 prompt blocks; 7 matched tokens = 1 block = 50 %: 5 tokens.
  EXPECT_EQ(LMetric::hit_tokens(10, 7, 4), 5u);
  // 1000 tokens, blocks of 1, 333 matched: 33 % -> 330 tokens (the percent is floored first).
  EXPECT_EQ(LMetric::hit_tokens(1000, 333, 1), 330u);
  EXPECT_EQ(LMetric::hit_tokens(3, 3, 4), 0u);  // no full block: no hit
  EXPECT_EQ(LMetric::hit_tokens(16, 16, 4), 16u);
}

TEST(LMetric, ScoreIsPendingPlusNewTokensTimesPendingRequestsPlusOne) {
  auto replicas = make_replicas(3);
  LMetric policy(block(4), 1);
  const Tokens prompt = run_of(1, 16);
  record_routed(policy, 1, 0, prompt);              // r0: table holds the prompt; pending 16 tokens, 1 request
  record_routed(policy, 2, 1, run_of(5000, 10));    // r1: pending 10 tokens, 1 request
  record_routed(policy, 3, 1, run_of(6000, 6));     //     + 6 tokens, 2 requests
  // r0: (16 + 0) x 2 = 32; r1: (16 + 16) x 3 = 96; r2: (0 + 16) x 1 = 16.
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 2u);
  EXPECT_EQ(policy.last_scores(), (std::vector<double>{32.0, 96.0, 16.0}));
  EXPECT_EQ(policy.last_new_tokens(), (std::vector<std::uint64_t>{0, 16, 16}));
}

TEST(LMetric, ACachedPrefixWinsWhenItOutweighsThePendingRequest) {
  auto replicas = make_replicas(2);
  LMetric policy(block(4), 1);
  const Tokens shared = run_of(1, 96);
  record_routed(policy, 1, 0, concat(shared, run_of(900, 4)));  // r0: pending 100 tokens, 1 request
  policy.on_completed(1, 0, 0);                                  // ... completed: nothing pending
  record_routed(policy, 2, 0, run_of(7000, 4));                  // r0: pending 4 tokens, 1 request
  const Tokens prompt = concat(shared, run_of(500, 4));          // 100 tokens, 96 in r0's table
  // r0: (4 + 4) x 2 = 16; r1: (0 + 100) x 1 = 100.
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_scores(), (std::vector<double>{16.0, 100.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 96);
}

TEST(LMetric, HitsComeFromTheRoutersOwnTableNotTheEnginesCache) {
  auto replicas = make_replicas(2);
  const Tokens prompt = run_of(1, 16);
  cache_prefix(replicas, 1, prompt, 16, kPrefill);  // the engine of r1 holds it: unseen
  LMetric policy(block(4), 1);
  record_routed(policy, 1, 0, run_of(3000, 4));     // r0 busier (pending 4 tokens, 1 request)
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_new_tokens(), (std::vector<std::uint64_t>{16, 16}));
}

TEST(LMetric, PendingWorkIsReleasedAtCompletionNotAtFirstToken) {
  LMetric policy(block(4), 1);
  record_routed(policy, 7, 1, run_of(1, 12));
  EXPECT_EQ(policy.pending_tokens(1), 12u);
  EXPECT_EQ(policy.pending_requests(1), 1u);
  policy.on_first_token(7, 1, 5);
  EXPECT_EQ(policy.pending_tokens(1), 12u);
  policy.on_completed(7, 1, 9);
  EXPECT_EQ(policy.pending_tokens(1), 0u);
  EXPECT_EQ(policy.pending_requests(1), 0u);
  policy.on_completed(7, 1, 9);  // a second report changes nothing
  EXPECT_EQ(policy.pending_requests(1), 0u);
}

TEST(LMetric, RoutedRequestsPendingTokensAreItsUncachedTokensOnTheChosenReplica) {
  auto replicas = make_replicas(2);
  LMetric policy(block(4), 1);
  const Tokens shared = run_of(1, 12);
  record_routed(policy, 1, 0, shared);
  policy.on_completed(1, 0, 0);
  const Tokens prompt = concat(shared, run_of(800, 8));  // 20 tokens, 12 in r0's table (60 %)
  const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);
  ASSERT_EQ(chosen, 0u);  // r0: 8 x 1; r1: 20 x 1
  policy.on_routed(RoutedRequest{2, chosen, prompt_of(prompt), 0, 0});
  EXPECT_EQ(policy.pending_tokens(0), 8u);
}

TEST(LMetric, TiesGoToASeededUniformDraw) {
  auto replicas = make_replicas(3);  // nothing pending, nothing in the table: all tie
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    LMetric a(block(4), seed), b(block(4), seed);
    const std::size_t r = a.choose(prompt_of(run_of(1, 8)), replicas, 0);
    EXPECT_EQ(r, b.choose(prompt_of(run_of(1, 8)), replicas, 0));
    seen.insert(r);
  }
  EXPECT_EQ(seen.size(), 3u);
}

}  // namespace
}  // namespace prefixroute
