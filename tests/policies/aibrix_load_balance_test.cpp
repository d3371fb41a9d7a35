// AibrixLoadBalance and its shared state AibrixLoad: the imbalance gate, the
// score (running / capacity x KV penalty), the KV guardrail, the tie-break,
// and the output-rate EWMA behind the capacity. One rule per test.
#include "prefixroute/policies/aibrix_load_balance.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "prefixroute/base/deterministic_math.h"
#include "prefixroute/policies/cluster_view.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::aibrix_load_balance_test {
namespace {

using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::run_of;
using testsupport::set_in_flight;

const PrefillModel kPrefill{1000.0};
constexpr Tick kSec = kTicksPerSecond;

// Replicas with caches of 1000 tokens, `used[i]` tokens cached on each
// (scraped KV usage used[i] / 1000), scraped at 0.
std::vector<Replica> with_usage(const std::vector<std::size_t>& used) {
  auto replicas = make_replicas(used.size(), 1000);
  Token next = 100'000;
  for (std::size_t i = 0; i < used.size(); ++i) {
    if (used[i] > 0) replicas[i].admit(run_of(next, used[i]), 0, kPrefill);
    next += 10'000;
    replicas[i].scrape(0, 0);
  }
  return replicas;
}

std::vector<std::size_t> gate(const AibrixLoadParams& p, const std::vector<Replica>& replicas) {
  AibrixLoad load(p);
  std::vector<std::size_t> out;
  load.gate(replicas, out);
  return out;
}

TEST(AibrixGate, KeepsOnlyTheLeastLoadedWhenTheGapAndTheFactorHold) {
  auto replicas = make_replicas(3);
  // gap 10 >= 8; others' mean (0 + 1) / 2 = 0.5: 10 > 2 x 1.5.
  set_in_flight(replicas, {10, 0, 1});
  EXPECT_EQ(gate({}, replicas), (std::vector<std::size_t>{1}));
}

TEST(AibrixGate, AGapWithoutTheFactorLeavesEveryReplica) {
  auto replicas = make_replicas(3);
  set_in_flight(replicas, {20, 12, 12});  // gap 8, but 20 <= 2 x (12 + 1)
  EXPECT_EQ(gate({}, replicas), (std::vector<std::size_t>{0, 1, 2}));
  set_in_flight(replicas, {19, 12, 12});  // gap 7 < 8
  EXPECT_EQ(gate({}, replicas), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(AibrixGate, TheFactorComparesTheBusiestWithTheMeanOfTheOthers) {
  auto replicas = make_replicas(3);
  // Others' mean 3: 12 > 2 x 4 fires. (The mean of all three, 6, would not: 12 < 2 x 7.)
  set_in_flight(replicas, {12, 3, 3});
  EXPECT_EQ(gate({}, replicas), (std::vector<std::size_t>{1, 2}));
}

TEST(AibrixGate, TwoReplicasNeedOnlyTheGap) {
  auto replicas = make_replicas(2);
  set_in_flight(replicas, {8, 0});
  EXPECT_EQ(gate({}, replicas), (std::vector<std::size_t>{1}));
  set_in_flight(replicas, {7, 0});
  EXPECT_EQ(gate({}, replicas), (std::vector<std::size_t>{0, 1}));
}

TEST(AibrixGate, TheOlderVersionFiresOnAGapAboveTwo) {
  // imbalance_pods_filter.go: max - min > 2, modelled as min gap 3, factor 0.
  AibrixLoadParams older;
  older.gate_min_gap = 3;
  older.gate_factor = 0;
  auto replicas = make_replicas(3);
  set_in_flight(replicas, {3, 0, 0});
  EXPECT_EQ(gate(older, replicas), (std::vector<std::size_t>{1, 2}));
  set_in_flight(replicas, {2, 0, 0});
  EXPECT_EQ(gate(older, replicas), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(AibrixLoadBalance, ScoreIsRunningOverCapacityTimesTheKvPenalty) {
  // No completed output tokens anywhere: every capacity is 1.
  auto replicas = with_usage({500, 200, 0});
  set_in_flight(replicas, {2, 3, 4});
  AibrixLoadBalance policy({}, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  // 2 x (1 + 2 x 0.5^2) = 3; 3 x (1 + 2 x 0.2^2) = 3.24; 4 x 1 = 4.
  const double used1 = 1.0 - (1.0 - 0.2);
  EXPECT_EQ(policy.last_scores(), (std::vector<double>{3.0, 3.0 * (1.0 + 2.0 * used1 * used1), 4.0}));
}

TEST(AibrixLoadBalance, AReplicaBelowTheCriticalFreeKvScoresInfinity) {
  auto replicas = with_usage({950, 0});  // 5 % free
  set_in_flight(replicas, {0, 6});
  AibrixLoadBalance policy({}, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_EQ(policy.last_scores()[0], AibrixLoad::kInfinity);
}

TEST(AibrixLoadBalance, ExactlyAtTheCriticalFreeKvIsStillUsable) {
  auto replicas = with_usage({750, 0});  // 25 % free, exactly representable
  set_in_flight(replicas, {0, 6});
  AibrixLoadParams p;
  p.kv_critical_free = 0.25;
  AibrixLoadBalance policy(p, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);  // score 0, not +inf
}

TEST(AibrixLoadBalance, EveryReplicaPastTheGuardrailFallsBackToTheLeastKvUsage) {
  auto replicas = with_usage({990, 960, 980});
  set_in_flight(replicas, {0, 5, 1});  // below the gate's gap
  AibrixLoadBalance policy({}, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
}

TEST(AibrixLoadBalance, TiesGoToTheLeastKvUsageThenASeededDraw) {
  auto replicas = with_usage({0, 0, 100});
  // All idle: every score is 0. Replica 2 uses more KV: only 0 and 1 remain.
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    AibrixLoadBalance a({}, seed), b({}, seed);
    const std::size_t r = a.choose(prompt_of(run_of(1, 8)), replicas, 0);
    EXPECT_EQ(r, b.choose(prompt_of(run_of(1, 8)), replicas, 0));
    seen.insert(r);
  }
  EXPECT_EQ(seen, (std::set<std::size_t>{0, 1}));
}

TEST(AibrixLoadBalance, QueuedWeightAddsScrapedWaitingRequests) {
  auto replicas = make_replicas(2, 100'000);
  for (Token k = 0; k < 4; ++k) replicas[0].admit(run_of(10'000 + 100 * k, 10), 0, kPrefill);  // 3 waiting
  replicas[0].scrape(0, 0);
  replicas[1].scrape(0, 0);
  set_in_flight(replicas, {1, 2});
  AibrixLoadParams p;
  AibrixLoadBalance plain(p, 1);
  EXPECT_EQ(plain.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);  // lambda 0: 1 < 2
  p.queued_weight = 0.5;
  AibrixLoadBalance queued(p, 1);
  EXPECT_EQ(queued.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);  // 1 + 1.5 > 2
}

TEST(AibrixLoadBalance, TheGateNarrowsTheCandidatesBeforeScoring) {
  auto replicas = with_usage({0, 900, 0});
  set_in_flight(replicas, {12, 0, 1});  // imbalanced: only replica 1 remains, though its KV is critical
  AibrixLoadBalance policy({}, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_TRUE(policy.last_gated());
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::size_t>{1}));
}

// Routes request `id` to `replica` with `output` tokens at 0 and completes it at `at`.
void complete(AibrixLoad& load, std::uint64_t id, std::size_t replica, std::uint64_t output, Tick at) {
  const auto prompt = prompt_of(run_of(1, 4));
  load.on_routed(RoutedRequest{id, replica, prompt, output, 0});
  load.on_completed(id, replica, at);
}

TEST(AibrixLoad, CapacityIsTheEwmaOfCompletedOutputTokensPerSecond) {
  AibrixLoad load({});
  complete(load, 1, 0, 600, kSec / 2);
  load.advance(9 * kSec);
  EXPECT_EQ(load.rate_estimate(0), 0.0);  // no rate before a 10 s window
  load.advance(10 * kSec);
  EXPECT_EQ(load.rate_estimate(0), 60.0);  // 600 tokens over the first 10 s: the first estimate
  load.advance(11 * kSec);
  const double alpha = 1.0 - dmath::exp(-0.1);
  EXPECT_DOUBLE_EQ(load.rate_estimate(0), 60.0 + alpha * (600.0 / 11.0 - 60.0));
}

TEST(AibrixLoad, AWindowWithoutCompletedTokensKeepsTheEstimate) {
  AibrixLoad load({});
  complete(load, 1, 0, 600, kSec / 2);
  load.advance(10 * kSec);
  const double first = load.rate_estimate(0);
  load.advance(3600 * kSec);  // an hour idle: the window empties, the estimate stays
  EXPECT_GT(load.rate_estimate(0), 0.0);
  EXPECT_LE(load.rate_estimate(0), first);
  const double kept = load.rate_estimate(0);
  load.advance(7200 * kSec);
  EXPECT_EQ(load.rate_estimate(0), kept);
}

TEST(AibrixLoad, ASampleSeesOnlyCompletionsBeforeIt) {
  AibrixLoad load({});
  complete(load, 1, 0, 500, 10 * kSec);  // completes exactly at the 10 s sample
  load.advance(10 * kSec);
  EXPECT_EQ(load.rate_estimate(0), 0.0);
  load.advance(11 * kSec);
  EXPECT_DOUBLE_EQ(load.rate_estimate(0), 500.0 / 11.0);
}

TEST(AibrixLoad, AReplicaWithoutAnEstimateTakesTheMeanOfTheKnownOnes) {
  AibrixLoad load({});
  complete(load, 1, 0, 300, kSec / 2);
  complete(load, 2, 1, 900, kSec / 2);
  load.advance(10 * kSec);
  auto replicas = make_replicas(3);
  std::vector<double> out;
  load.scores(replicas, {0, 1, 2}, out);  // sizes the state to 3 replicas
  EXPECT_EQ(load.capacity(0), 30.0);
  EXPECT_EQ(load.capacity(1), 90.0);
  EXPECT_EQ(load.capacity(2), 60.0);
}

TEST(AibrixLoad, WithNoEstimateAnywhereEveryCapacityIsOne) {
  AibrixLoad load({});
  load.advance(100 * kSec);
  EXPECT_EQ(load.capacity(0), 1.0);
  EXPECT_EQ(load.capacity(5), 1.0);
}

// The choice from the order structures (a view that counts scrapes and
// announces in-flight changes) in lockstep with the scan (a view of the
// replicas alone), two policies of the same seed told the same hooks, on
// random states: counts that move with routed and completed requests (so
// the gate fires and does not), scrapes of few queue and usage values (ties,
// and usages past the KV guardrail: every score +inf), completions with
// output tokens over many seconds (the capacity estimates, and the fallback
// for replicas without one).
void check_order_against_scan(std::size_t n, std::uint64_t seed, double queued_weight) {
  AibrixLoadParams p;
  p.queued_weight = queued_weight;
  p.gate_min_gap = 2;
  p.gate_factor = 1.5;
  AibrixLoadBalance ordered(p, seed, /*order_from_replicas=*/1), scanning(p, seed);
  auto replicas = make_replicas(n);
  std::uint64_t scrapes = 0;
  ClusterView announced(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  announced.set_scrape_count(&scrapes);
  announced.set_in_flight_announced(true);
  const ClusterView plain(replicas);
  std::vector<std::pair<std::uint64_t, std::size_t>> in_flight;  // (id, replica)
  Rng rng(seed + 100);
  Tick now = 0;
  const PromptPieces prompt = prompt_of(run_of(1, 4));
  for (std::uint64_t id = 0; id < 500; ++id) {
    now += static_cast<Tick>(rng.uniform_int(0, 400)) * kTicksPerMillisecond;
    if (id % 6 == 0) {
      for (Replica& r : replicas) {
        EngineMetrics m;
        m.queue_length = static_cast<std::uint32_t>(rng.uniform_int(0, 2));
        m.kv_usage = rng.uniform_int(0, 5) == 0 ? 0.95 : static_cast<double>(rng.uniform_int(0, 2)) / 2;
        r.set_scraped(m);
      }
      ++scrapes;
    }
    // Completions: a few of the requests in flight, taken at random.
    for (std::uint64_t k = rng.uniform_int(0, 2); k > 0 && !in_flight.empty(); --k) {
      const auto at = static_cast<std::size_t>(rng.below(in_flight.size()));
      const auto [done, replica] = in_flight[at];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(at));
      replicas[replica].router_completed();
      ordered.on_completed(done, replica, now);
      scanning.on_completed(done, replica, now);
    }
    const RouteRequest request(prompt, id, 0, 0, 0);
    const std::size_t chosen = ordered.choose(request, announced, now);
    ASSERT_EQ(chosen, scanning.choose(request, plain, now)) << n << " replicas, request " << id;
    ASSERT_EQ(ordered.last_gated(), scanning.last_gated()) << n << " replicas, request " << id;
    const std::uint64_t output = rng.uniform_int(0, 3) * 100;
    ordered.on_routed(RoutedRequest{id, chosen, prompt, output, now});
    scanning.on_routed(RoutedRequest{id, chosen, prompt, output, now});
    replicas[chosen].router_dispatched();
    in_flight.emplace_back(id, chosen);
  }
}

TEST(AibrixLoadBalance, TheOrderStructuresChooseAsTheScan) {
  check_order_against_scan(1, 1, 0);
  check_order_against_scan(3, 2, 0);
  check_order_against_scan(5, 3, 1);
  check_order_against_scan(70, 4, 0);
  check_order_against_scan(70, 5, 0.5);
}

}  // namespace
}  // namespace prefixroute::aibrix_load_balance_test
