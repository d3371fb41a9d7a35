// ExpectedTtft: minimum expected time to first token from router-side signals.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/expected_ttft.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::expected_ttft_test {

namespace {

constexpr double kRate = 1000.0;  // tokens/s: 1 ms per token
const PrefillModel kPrefill{kRate};

using testsupport::record_routed;
using testsupport::Tokens;
using testsupport::run_of;
using testsupport::prompt_of;

// `n` replicas with 100000-token caches and no protection.
std::vector<Replica> cluster(std::size_t n) { return testsupport::make_replicas(n, 100000, 0); }

// Routes through the policy and the replica as the simulator does.
std::size_t route(ExpectedTtft& policy, std::vector<Replica>& replicas, std::uint64_t id,
                  const std::vector<Token>& tokens, Tick now) {
  const std::size_t r = policy.choose(prompt_of(tokens), replicas, now);
  policy.on_routed(RoutedRequest{id, r, prompt_of(tokens), 0, now});
  replicas[r].admit(tokens, now, kPrefill);
  replicas[r].router_dispatched();
  return r;
}

}  // namespace

TEST(ExpectedTtft, PrefersTheCachedReplicaWhenQueuesAreEqual) {
  auto replicas = cluster(2);
  replicas[1].admit(run_of(100, 50), 0, kPrefill);  // replica 1 holds the prefix, busy 50 ms
  ExpectedTtft policy({0.0, 0}, kRate);
  // The router never saw that admission, so its wait estimates are 0 for both:
  // cost 0: 60 ms; cost 1: 10 ms.
  const auto tokens = run_of(100, 60);
  EXPECT_EQ(policy.choose(prompt_of(tokens), replicas, seconds_to_ticks(1.0)), 1u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 50);
}

// Tells the policy that `tokens` went to replica r (as if another router had
// sent it there): it then assumes nothing was cached.
void dispatched_elsewhere(ExpectedTtft& policy, std::vector<Replica>& replicas, std::uint64_t id,
                          const std::vector<Token>& tokens, std::size_t r) {
  record_routed(policy, id, r, tokens);
  replicas[r].admit(tokens, 0, kPrefill);
}

TEST(ExpectedTtft, LeavesTheCachedReplicaWhenItsQueueCostsMoreThanThePrefill) {
  auto replicas = cluster(2);
  ExpectedTtft policy({0.0, 0}, kRate);
  dispatched_elsewhere(policy, replicas, 0, run_of(100, 50), 0);  // replica 0: 50 ms queued
  ASSERT_EQ(policy.estimated_wait(0, 0), seconds_to_ticks(0.05));
  // Same prefix plus 10 tokens at t = 0: replica 0 costs 50 ms wait + 10 ms; replica 1 costs 60 ms.
  // Equal: the tie goes to the longer cached prefix (replica 0).
  EXPECT_EQ(policy.choose(prompt_of(run_of(100, 60)), replicas, 0), 0u);
  // With 20 more tokens of queued work on replica 0, replica 1 is cheaper.
  dispatched_elsewhere(policy, replicas, 1, run_of(500, 20), 0);
  EXPECT_EQ(policy.choose(prompt_of(run_of(100, 60)), replicas, 0), 1u);
}

TEST(ExpectedTtft, CacheCreditPullsTowardsTheCachedReplica) {
  auto replicas = cluster(2);
  ExpectedTtft plain({0.0, 0}, kRate);
  ExpectedTtft credited({1.0, 0}, kRate);
  for (ExpectedTtft* p : {&plain, &credited}) {
    record_routed(*p, 0, 0, run_of(100, 50));  // 50 ms queued on replica 0 ...
    record_routed(*p, 1, 0, run_of(900, 20));  // ... and 20 ms more
  }
  replicas[0].admit(run_of(100, 50), 0, kPrefill);
  // Replica 0: wait 70 ms + 10 ms uncached = 80 ms; replica 1: 60 ms. A credit
  // of 1 per cached token subtracts 50 ms from replica 0's cost: 30 ms.
  EXPECT_EQ(plain.choose(prompt_of(run_of(100, 60)), replicas, 0), 1u);
  EXPECT_EQ(credited.choose(prompt_of(run_of(100, 60)), replicas, 0), 0u);
}

TEST(ExpectedTtft, EstimatedWaitDrainsInRealTimeAndResyncsAtTheLastFirstToken) {
  auto replicas = cluster(1);
  ExpectedTtft policy({0.5, 0}, kRate);
  route(policy, replicas, 7, run_of(1, 100), 0);
  EXPECT_EQ(policy.estimated_wait(0, seconds_to_ticks(0.04)), seconds_to_ticks(0.06));
  // A wrong rate belief would leave the estimate off; the first token of the
  // last queued request says the queue is empty now.
  policy.on_first_token(7, 0, seconds_to_ticks(0.03));
  EXPECT_EQ(policy.estimated_wait(0, seconds_to_ticks(0.03)), 0);
}

TEST(ExpectedTtft, WithAnExactViewItsEstimateEqualsTheEnginesWait) {
  // Drive a whole simulation and compare, at every arrival, the policy's
  // estimate with the engine's projected wait through a wrapper.
  struct Checking final : RoutingPolicy {
    ExpectedTtft inner{{0.5, 0}, 11000.0};
    int mismatches = 0;
    std::size_t choose(const RouteRequest& t, const ClusterView& rs, Tick now) override {
      for (std::size_t r = 0; r < rs.size(); ++r)
        if (inner.estimated_wait(r, now) != rs[r].projected_wait(now)) ++mismatches;
      return inner.choose(t, rs, now);
    }
    std::string_view name() const override { return "checking"; }
    std::int64_t predicted_cached_tokens() const override { return inner.predicted_cached_tokens(); }
    void on_routed(const RoutedRequest& r) override { inner.on_routed(r); }
    void on_first_token(std::uint64_t id, std::size_t r, Tick now) override { inner.on_first_token(id, r, now); }
  };
  WorkloadConfig w;
  w.requests = 2000;
  w.arrival_rate_per_s = 150;
  const Workload workload = generate_workload(w, 3);
  ClusterConfig c;
  c.prefill.tokens_per_s = 11000;
  Checking policy;
  const SimulationRun run = simulate(workload, c, policy);
  EXPECT_EQ(policy.mismatches, 0);
  EXPECT_EQ(run.predicted_cached_tokens, run.predicted_actual_cached_tokens);
}

// A full miss (no replica holds any of the prompt) breaks the cost tie in
// favour of the replica the prompt's key last went to; without homes the
// rotation would pick the next replica.
TEST(ExpectedTtft, AFullMissGoesBackToTheKeysHomeOnATie) {
  for (const std::uint32_t key_tokens : {64u, 0u}) {
    SCOPED_TRACE(key_tokens);
    ExpectedTtftParams params;
    params.cache_credit = 0.5;
    params.home_key_tokens = key_tokens;
    ExpectedTtft policy(params, kRate);
    auto replicas = cluster(3);
    const auto tokens = run_of(100, 60);
    const std::size_t first = route(policy, replicas, 0, tokens, 0);
    // Every replica forgets the prompt (evicted everywhere): a fresh cluster.
    auto cold = cluster(3);
    const std::size_t again = policy.choose(prompt_of(tokens), cold, seconds_to_ticks(1.0));
    EXPECT_EQ(policy.predicted_cached_tokens(), 0);
    if (key_tokens > 0) EXPECT_EQ(again, first);
    else EXPECT_EQ(again, (first + 1) % 3);  // the rotation
  }
}

// A home only breaks ties: a home whose queue is longer loses to a replica
// that can start at once.
TEST(ExpectedTtft, AHomeWithALongerQueueDoesNotTakeTheRequest) {
  ExpectedTtft policy(ExpectedTtftParams{}, kRate);
  auto replicas = cluster(2);
  const auto tokens = run_of(100, 60);
  const std::size_t home = route(policy, replicas, 0, tokens, 0);
  auto cold = cluster(2);
  // The router still believes the home busy (60 ms of prefill queued at t = 0).
  const std::size_t chosen = policy.choose(prompt_of(tokens), cold, seconds_to_ticks(0.010));
  EXPECT_NE(chosen, home);
}

TEST(ExpectedTtft, TiesGoToTheLongerMatchThenFewerInFlightThenRotation) {
  // A 20-token prompt (20 ms of prefill); replica 4 holds its first 10 tokens.
  auto replicas = cluster(6);
  const auto tokens = run_of(100, 20);
  testsupport::cache_prefix(replicas, 4, tokens, 10, kPrefill);
  ExpectedTtft policy({0.0, 0, 0}, kRate);
  record_routed(policy, 1, 4, run_of(500, 10));  // replica 4: 10 ms queued, so it costs 10 + 10 = 20 ms
  record_routed(policy, 2, 0, run_of(600, 40));  // replica 0: 40 ms queued
  testsupport::set_in_flight(replicas, {0, 2, 1, 1, 0, 3});
  // The idle replicas without the prefix also cost 20 ms: the holder wins on its match.
  EXPECT_EQ(policy.choose(prompt_of(tokens), replicas, 0), 4u);
  // Replica 4 now costs 30 ms. Among the idle ones (1, 2, 3, 5) the fewest in
  // flight are 2 and 3; the rotated order starts one past the last choice (5).
  record_routed(policy, 3, 4, run_of(700, 10));
  EXPECT_EQ(policy.choose(prompt_of(tokens), replicas, 0), 2u);
  EXPECT_EQ(policy.choose(prompt_of(tokens), replicas, 0), 3u);  // it starts at 3 now
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

namespace {

// The choice recomputed the scan's way on random states: every replica's
// precise-view match (ClusterView::match_all), its cost (estimated wait plus
// uncached prefill minus the credit for the cached), and the least (cost,
// -matched, in flight, position in the order rotated one past the last
// choice). Prompts come from a few stems of whole milliseconds of prefill
// and time moves mostly in whole milliseconds, so holders tie with each other
// and with replicas holding nothing, and sometimes off that grid, so costs
// differ by less than a token's prefill; small caches evict; some requests are
// routed around the policy and some first tokens resynchronise its queues.
void check_choice_against_scan(std::size_t n, double credit, std::uint64_t seed) {
  ExpectedTtft policy({credit, 0, 0}, kRate);
  auto replicas = testsupport::make_replicas(n, 120, 0);
  std::vector<std::size_t> matched;
  std::vector<std::pair<std::uint64_t, std::size_t>> routed;  // (id, replica)
  Rng rng(seed);
  std::size_t start = 0;
  Tick now = 0;
  for (std::uint64_t id = 0; id < 300; ++id) {
    now += static_cast<Tick>(rng.uniform_int(0, 12)) * kTicksPerMillisecond;
    if (rng.below(3) == 0) now += static_cast<Tick>(rng.below(kTicksPerMillisecond));  // waits off the grid too
    for (std::size_t r = 0; r < n; ++r) {
      if (rng.below(4) == 0 && replicas[r].in_flight() > 0) replicas[r].router_completed();
      if (rng.below(6) == 0) replicas[r].router_dispatched();
    }
    if (!routed.empty() && rng.below(2) == 0) {
      const auto [done, r] = routed[static_cast<std::size_t>(rng.below(routed.size()))];
      policy.on_first_token(done, r, now);
    }
    Tokens prompt = run_of(static_cast<Token>(rng.uniform_int(0, 3)) * 1000, rng.uniform_int(0, 40));
    const Tokens tail = run_of(static_cast<Token>(50'000 + id * 100), rng.uniform_int(0, 10));
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    if (rng.below(8) == 0) {  // routed around the policy
      const auto r = static_cast<std::size_t>(rng.below(n));
      policy.on_routed(RoutedRequest{id, r, prompt_of(prompt), 0, now});
      replicas[r].admit(prompt, now, kPrefill);
      routed.emplace_back(id, r);
      continue;
    }
    ClusterView(replicas).match_all(prompt_of(prompt), CacheView::Precise, matched);
    std::size_t best = n, best_match = 0;
    double best_cost = 0;
    std::uint32_t best_in_flight = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (start + k) % n;
      const double cost = static_cast<double>(policy.estimated_wait(i, now) +
                                              kPrefill.prefill_ticks(prompt.size() - matched[i])) -
                          credit * static_cast<double>(kPrefill.prefill_ticks(matched[i]));
      const std::uint32_t in_flight = replicas[i].in_flight();
      if (best == n || cost < best_cost ||
          (cost == best_cost && (matched[i] > best_match || (matched[i] == best_match && in_flight < best_in_flight)))) {
        best = i;
        best_cost = cost;
        best_match = matched[i];
        best_in_flight = in_flight;
      }
    }
    ASSERT_EQ(route(policy, replicas, id, prompt, now), best) << n << " replicas, credit " << credit << ", request " << id;
    ASSERT_EQ(policy.predicted_cached_tokens(), static_cast<std::int64_t>(best_match));
    routed.emplace_back(id, best);
    start = best + 1;
  }
}

}  // namespace

TEST(ExpectedTtft, ChoiceIsTheScansLeastCostThenMatchThenInFlightThenRotation) {
  check_choice_against_scan(1, 0.5, 1);
  check_choice_against_scan(3, 0.0, 2);
  check_choice_against_scan(5, 0.5, 3);
  check_choice_against_scan(70, 0.5, 4);
  check_choice_against_scan(70, 2.0, 5);
}

}  // namespace prefixroute::expected_ttft_test
