// LMetric (AIBrix l-metric-local): the score on crafted router-local state,
// AIBrix's integer hit estimate, the router's own prefix table (not the
// engine's cache), pending work released at completion, seeded ties.
#include "prefixroute/policies/lmetric.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "replicas.h"
#include "tokens.h"

namespace prefixroute::lmetric_test {
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

// The choice recomputed the scan's way on random states: every replica's
// match in the policy's table (ApproxRadixTree::match), pending counts kept
// here, the least score, the tied in replica order and one draw from a
// generator seeded as the policy's. Prompts come from a few stems in blocks
// of 2 (holders tie, and tie with idle replicas at score L when their hit
// floors to 0), some are empty; requests complete at random, so replicas are
// idle and busy and, with few replicas, sometimes none is an idle non-holder.
void check_choice_against_scan(std::size_t n, std::uint64_t seed) {
  LMetric policy(block(2), seed);
  Rng model_rng(mix_seed(seed, 0x6c6d6574726963ULL));  // the policy's stream ("lmetric")
  auto replicas = make_replicas(n);
  std::vector<std::uint64_t> tokens(n, 0), requests(n, 0);
  std::vector<std::pair<std::uint64_t, std::size_t>> in_flight;  // (id, replica)
  std::vector<std::uint64_t> pending_of;                          // by id: new tokens
  std::vector<std::size_t> matched;
  Rng rng(seed + 100);
  for (std::uint64_t id = 0; id < 400; ++id) {
    for (std::uint64_t k = rng.uniform_int(0, 2); k > 0 && !in_flight.empty(); --k) {
      const auto at = static_cast<std::size_t>(rng.below(in_flight.size()));
      const auto [done, r] = in_flight[at];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(at));
      tokens[r] -= pending_of[done];
      --requests[r];
      policy.on_completed(done, r, 0);
    }
    Tokens prompt = run_of(static_cast<Token>(rng.uniform_int(0, 3)) * 1000, rng.uniform_int(0, 6));
    const Tokens tail = run_of(static_cast<Token>(50'000 + id * 10), rng.uniform_int(0, 3));
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    policy.table().match(prompt_of(prompt).view(), matched);
    matched.resize(std::max(matched.size(), n), 0);
    const std::uint64_t length = prompt.size();
    std::vector<std::uint64_t> fresh(n);
    std::vector<std::size_t> tied;
    double best = 0;
    for (std::size_t r = 0; r < n; ++r) {
      fresh[r] = length - LMetric::hit_tokens(length, matched[r], 2);
      const double s = static_cast<double>(tokens[r] + fresh[r]) * static_cast<double>(requests[r] + 1);
      if (tied.empty() || s < best) {
        best = s;
        tied.assign(1, r);
      } else if (s == best) {
        tied.push_back(r);
      }
    }
    const std::size_t expected = tied.size() == 1 ? tied.front() : tied[static_cast<std::size_t>(model_rng.below(tied.size()))];
    ASSERT_EQ(policy.choose(prompt_of(prompt), replicas, 0), expected) << n << " replicas, request " << id;
    ASSERT_EQ(policy.predicted_cached_tokens(), static_cast<std::int64_t>(length - fresh[expected]));
    record_routed(policy, id, expected, prompt);
    tokens[expected] += fresh[expected];
    ++requests[expected];
    pending_of.push_back(fresh[expected]);
    in_flight.emplace_back(id, expected);
  }
}

TEST(LMetric, ChoiceIsTheScansLeastScoreAndSeededDraw) {
  check_choice_against_scan(1, 1);
  check_choice_against_scan(3, 2);
  check_choice_against_scan(5, 3);
  check_choice_against_scan(70, 4);
}

}  // namespace
}  // namespace prefixroute::lmetric_test
