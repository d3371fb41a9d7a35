// ReplicatingTtft: expected TTFT, plus copies of a hot prefix to an idle
// replica with room, and its own decisions counted as cached while events lag.
#include "prefixroute/policies/replicating_ttft.h"

#include <gtest/gtest.h>

#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/policies/expected_ttft.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::replicating_ttft_test {
namespace {

constexpr double kRate = 1000.0;  // tokens/s: 1 ms per token
const PrefillModel kPrefill{kRate};

using testsupport::concat;
using testsupport::prompt_of;
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::Tokens;

// A 100-token prefix (longer than the 64-token key) and request k's own 10 tokens.
const Tokens kPrefix = run_of(100, 100);
Tokens request(std::size_t k) { return concat(kPrefix, run_of(static_cast<Token>(10000 + 100 * k), 10)); }

// Routes through the policy and, when `admit`, the replica's cache, as the simulator does.
template <class Policy>
std::size_t route(Policy& policy, std::vector<Replica>& replicas, std::uint64_t id, const Tokens& tokens, Tick now,
                  bool admit = true) {
  const std::size_t r = policy.choose(prompt_of(tokens), replicas, now);
  policy.on_routed(RoutedRequest{id, r, prompt_of(tokens), 0, now});
  if (admit) replicas[r].admit(tokens, now, kPrefill);
  replicas[r].router_dispatched();
  return r;
}

ReplicatingTtft policy_with_lag(Tick lag) { return ReplicatingTtft(ReplicatingTtftParams{}, kRate, lag); }

}  // namespace

TEST(ReplicatingTtft, CopiesAHotPrefixFromItsBusyHolderToAnIdleReplicaWithRoom) {
  auto replicas = testsupport::make_replicas(2, 1000, 0);
  auto greedy_replicas = testsupport::make_replicas(2, 1000, 0);
  ReplicatingTtft policy = policy_with_lag(0);
  ExpectedTtft greedy(ExpectedTtftParams{}, kRate);
  ASSERT_EQ(route(policy, replicas, 0, request(0), 0), 0u);  // replica 0: 110 ms queued, the prefix cached
  ASSERT_EQ(route(greedy, greedy_replicas, 0, request(0), 0), 0u);
  // Request 1 at t = 0: on replica 0 it waits 110 ms and prefills 10 tokens
  // (cost 110 + 10 - 0.5 x 100 = 70 ms), on replica 1 it prefills 110 (110 ms):
  // ExpectedTtft stays; the queue is longer than its own 10 ms and holds a
  // request of the same prefix, replica 1 is idle with room: the prefix is copied.
  EXPECT_EQ(greedy.choose(prompt_of(request(1)), greedy_replicas, 0), 0u);
  EXPECT_EQ(policy.choose(prompt_of(request(1)), replicas, 0), 1u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

TEST(ReplicatingTtft, DoesNotCopyAPrefixWhoseHolderIsBusyWithOthers) {
  auto replicas = testsupport::make_replicas(2, 1000, 0);
  ReplicatingTtft policy = policy_with_lag(0);
  testsupport::cache_prefix(replicas, 0, request(0), 100, kPrefill);  // replica 0 holds the prefix ...
  record_routed(policy, 0, 0, run_of(50000, 100));                   // ... and 100 ms of another prefix
  // Replica 0: 100 + 10 - 50 = 60 ms; replica 1: 110 ms. No request of this prefix is queued on 0.
  EXPECT_EQ(policy.choose(prompt_of(request(1)), replicas, 0), 0u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 100);
}

TEST(ReplicatingTtft, DoesNotCopyWhenTheCopyWouldEvict) {
  auto replicas = testsupport::make_replicas(2, 150, 0);
  testsupport::cache_prefix(replicas, 1, run_of(60000, 100), 100, kPrefill);  // replica 1: 100 of 150 tokens used
  ReplicatingTtft policy = policy_with_lag(0);
  ASSERT_EQ(route(policy, replicas, 0, request(0), 0), 0u);
  // Replica 1's estimated queue is empty (the router never sent it anything),
  // but 100 used + 110 uncached > 150: no room, the holder keeps the request.
  EXPECT_EQ(policy.choose(prompt_of(request(1)), replicas, 0), 0u);
}

TEST(ReplicatingTtft, DoesNotCopyWhileTheHoldersQueueIsShorterThanTheRequestsOwnPrefill) {
  auto replicas = testsupport::make_replicas(2, 1000, 0);
  ReplicatingTtft policy = policy_with_lag(0);
  ASSERT_EQ(route(policy, replicas, 0, request(0), 0), 0u);
  // At 105 ms: 5 ms left on replica 0, less than request 1's own 10 ms there.
  EXPECT_EQ(policy.choose(prompt_of(request(1)), replicas, seconds_to_ticks(0.105)), 0u);
  // At 95 ms: 15 ms left, more than 10 ms: copied.
  EXPECT_EQ(policy.choose(prompt_of(request(1)), replicas, seconds_to_ticks(0.095)), 1u);
}

TEST(ReplicatingTtft, TheFirstTokenEndsARequestsPartInTheHotCount) {
  auto replicas = testsupport::make_replicas(2, 1000, 0);
  ReplicatingTtft policy = policy_with_lag(0);
  ASSERT_EQ(route(policy, replicas, 0, request(0), 0), 0u);
  record_routed(policy, 1, 0, run_of(50000, 50));  // 50 ms more of another prefix on replica 0
  // At 110 ms, 50 ms queued on replica 0: cost 50 + 10 - 50 there, 110 on
  // replica 1. While request 0 waits for its first token the prefix counts as
  // hot on replica 0 and is copied; once it has it, the queue is the other
  // prefix's alone and the holder keeps the request.
  EXPECT_EQ(policy.choose(prompt_of(request(2)), replicas, seconds_to_ticks(0.110)), 1u);
  policy.on_first_token(0, 0, seconds_to_ticks(0.110));
  EXPECT_EQ(policy.choose(prompt_of(request(2)), replicas, seconds_to_ticks(0.110)), 0u);
}

TEST(ReplicatingTtft, AFullMissGoesBackToTheKeysHome) {
  auto replicas = testsupport::make_replicas(3, 1000, 0);
  ReplicatingTtft policy = policy_with_lag(0);
  const std::size_t first = route(policy, replicas, 0, request(0), 0);
  policy.on_first_token(0, first, seconds_to_ticks(0.110));
  auto cold = testsupport::make_replicas(3, 1000, 0);  // evicted everywhere
  EXPECT_EQ(policy.choose(prompt_of(request(1)), cold, seconds_to_ticks(1.0)), first);
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

TEST(ReplicatingTtft, WhileEventsLagItsOwnDecisionsCountAsCachedForTheLag) {
  // The requests are never admitted: the precise view stays empty, as when
  // the KV events of these prefills have not arrived.
  auto replicas = testsupport::make_replicas(2, 1000, 0);
  auto unlagged_replicas = testsupport::make_replicas(2, 1000, 0);
  ReplicatingTtft lagged = policy_with_lag(seconds_to_ticks(1.0));
  ReplicatingTtft unlagged = policy_with_lag(0);
  ASSERT_EQ(route(lagged, replicas, 0, request(0), 0, /*admit=*/false), 0u);
  ASSERT_EQ(route(unlagged, unlagged_replicas, 0, request(0), 0, /*admit=*/false), 0u);
  // At 105 ms, 5 ms queued on replica 0. With the side index request 1 costs
  // 5 + 10 - 50 there, against 110 on replica 1; without it 5 + 110.
  EXPECT_EQ(lagged.choose(prompt_of(request(1)), replicas, seconds_to_ticks(0.105)), 0u);
  EXPECT_EQ(lagged.predicted_cached_tokens(), 100);
  EXPECT_EQ(unlagged.choose(prompt_of(request(1)), unlagged_replicas, seconds_to_ticks(0.105)), 1u);
  // Past the lag the decision has left the side index (its KV event would be in the view).
  lagged.choose(prompt_of(request(1)), replicas, seconds_to_ticks(1.5));
  EXPECT_EQ(lagged.predicted_cached_tokens(), 0);
}

TEST(ReplicatingTtft, TheSameRequestsGiveTheSameChoices) {
  auto a_replicas = testsupport::make_replicas(4, 1000, 0);
  auto b_replicas = testsupport::make_replicas(4, 1000, 0);
  ReplicatingTtft a = policy_with_lag(0), b = policy_with_lag(0);
  for (std::uint64_t k = 0; k < 40; ++k) {
    const Tick now = seconds_to_ticks(0.01 * static_cast<double>(k));
    EXPECT_EQ(route(a, a_replicas, k, request(k % 3), now), route(b, b_replicas, k, request(k % 3), now));
  }
}

}  // namespace prefixroute::replicating_ttft_test
