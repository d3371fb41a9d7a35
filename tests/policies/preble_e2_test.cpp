// PrebleE2: exploit / explore over the router's global tree, its windowed
// load, the rebalance trigger and the eviction mirror; one rule per test.
// The policy reads nothing of the replicas but their number: its load and its
// tree come from its own decisions and the lifecycle hooks, driven here as the
// simulator drives them (choose, then on_routed; on_completed at the end).
#include "prefixroute/policies/preble_e2.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::preble_e2_test {
namespace {

using testsupport::concat;
using testsupport::run_of;
using testsupport::Tokens;
using testsupport::prompt_of;
using Rule = PrebleE2::Rule;

constexpr Tick kMs = kTicksPerMillisecond;
constexpr Tick kSec = kTicksPerSecond;
// Prefill at 1000 tokens/s: one uncached token is one millisecond of load.
const PrefillModel kPrefill{1000.0};

PrebleE2Params params(double window_s = 180, double rebalance_ratio = 1.5) {
  PrebleE2Params p;
  p.window_s = window_s;
  p.rebalance_ratio = rebalance_ratio;
  return p;
}

class Driver {
 public:
  Driver(std::size_t replicas, PrebleE2Params p, Tick tick_per_output_token = 0,
         std::uint64_t cache_tokens = 1'000'000)
      : policy(p, kPrefill, tick_per_output_token, cache_tokens),
        replicas_(testsupport::make_replicas(replicas, cache_tokens)) {}

  std::size_t route(const Tokens& prompt, Tick now, std::uint64_t output_tokens = 0) {
    const std::size_t chosen = policy.choose(prompt_of(prompt), replicas_, now);
    policy.on_routed(RoutedRequest{next_id_++, chosen, prompt_of(prompt), output_tokens, now});
    return chosen;
  }

  std::vector<Tick> loads_ms(Tick now) const {
    std::vector<Tick> out;
    for (std::size_t i = 0; i < replicas_.size(); ++i) out.push_back(policy.load(i, now) / kMs);
    return out;
  }

  PrebleE2 policy;

 private:
  std::vector<Replica> replicas_;
  std::uint64_t next_id_ = 0;
};

// A 60-token shared prefix; prompts differ after it.
const Tokens kPrefix = run_of(1000, 60);
Token next_turn = 100'000;
Tokens with_turn(std::size_t turn_tokens) {
  const Tokens turn = run_of(next_turn, turn_tokens);
  next_turn += 10'000;
  return concat(kPrefix, turn);
}

// Two replicas in a known state: replica 0 holds kPrefix (a 100-token prompt,
// 100 ms of load), replica 1 an unrelated 100-token prompt (100 ms).
Driver two_replicas_loaded_100_100(PrebleE2Params p = params()) {
  Driver d(2, p);
  EXPECT_EQ(d.route(with_turn(40), 0), 0u);  // idle cluster: explore, lowest index
  EXPECT_EQ(d.policy.last_rule(), Rule::Explore);
  EXPECT_EQ(d.route(run_of(50'000, 100), 1 * kSec), 1u);  // 100 vs 0 -> lightest
  EXPECT_EQ(d.policy.last_rule(), Rule::Rebalance);
  EXPECT_EQ(d.loads_ms(1 * kSec), (std::vector<Tick>{100, 100}));
  return d;
}

// ---------------------------------------------------------------------------
// Exploit vs explore

TEST(PrebleE2, ExploitsWhenTheCachedPartIsLongerThanTheUncachedPart) {
  Driver d = two_replicas_loaded_100_100();
  // 60 cached > 59 uncached: exploit, to the holder of the prefix.
  EXPECT_EQ(d.route(with_turn(59), 2 * kSec), 0u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Exploit);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 60);
  // Its load is the uncached part only.
  EXPECT_EQ(d.loads_ms(2 * kSec), (std::vector<Tick>{159, 100}));
}

TEST(PrebleE2, CachedEqualToUncachedExplores) {
  Driver d = two_replicas_loaded_100_100();
  ASSERT_EQ(d.route(with_turn(10), 2 * kSec), 0u);  // exploit: loads 110 / 100
  // 60 cached == 60 uncached: explore, to the lightest (replica 1).
  EXPECT_EQ(d.route(with_turn(60), 3 * kSec), 1u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Explore);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 0);  // replica 1 holds none of it
}

TEST(PrebleE2, ExploitGoesToTheHolderEvenWhenAnotherReplicaIsLighter) {
  Driver d(3, params(180, 1e6));
  // Warm-up: every replica gets a different unrelated prompt (loads 50, 30, 40).
  ASSERT_EQ(d.route(run_of(10'000, 50), 0), 0u);
  ASSERT_EQ(d.route(run_of(20'000, 30), 0), 1u);
  ASSERT_EQ(d.route(run_of(30'000, 40), 0), 2u);
  // kPrefix + x lands on the lightest (1); explore, since nothing matches.
  const Tokens first = with_turn(30);
  ASSERT_EQ(d.route(first, 0), 1u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Explore);
  // Loads now 50, 120, 40. Exploit goes to the one holder, replica 1, not the lighter 2.
  EXPECT_EQ(d.route(with_turn(20), 0), 1u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Exploit);
}

TEST(PrebleE2, ExploitAmongSeveralHoldersTakesTheLightestTiesLowestIndex) {
  Driver d(2, params());
  const Tokens x = run_of(500, 100);
  ASSERT_EQ(d.route(x, 0), 0u);  // idle: explore
  ASSERT_EQ(d.route(x, 0), 1u);  // 100 vs 0: rebalance; replica 1 believed nothing cached
  ASSERT_EQ(d.loads_ms(0), (std::vector<Tick>{100, 100}));
  // Both hold all of x. Equal loads: the lowest index.
  EXPECT_EQ(d.route(concat(x, run_of(9000, 10)), 0), 0u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Exploit);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 100);
  // Loads 110 / 100: the lighter holder.
  EXPECT_EQ(d.route(concat(x, run_of(9100, 10)), 0), 1u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Exploit);
}

TEST(PrebleE2, ExploitIgnoresHoldersOfAShallowerPrefix) {
  Driver d(2, params());
  const Tokens x = run_of(500, 100);
  ASSERT_EQ(d.route(x, 0), 0u);
  // Replica 1 gets only x's first 70 tokens (then something else).
  ASSERT_EQ(d.route(concat(run_of(500, 70), run_of(9000, 30)), 0), 1u);
  ASSERT_EQ(d.loads_ms(0), (std::vector<Tick>{100, 100}));
  ASSERT_EQ(d.route(run_of(20'000, 10), 0), 0u);  // explore, tie -> 0; loads 110 / 100
  // Replica 1 is lighter and holds 70 of x, but only replica 0 holds all 100.
  EXPECT_EQ(d.route(x, 0), 0u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Exploit);
}

// ---------------------------------------------------------------------------
// Load: the window and decode work

TEST(PrebleE2, ARequestOlderThanTheWindowNoLongerCounts) {
  Driver d(2, params(/*window_s=*/10));
  ASSERT_EQ(d.route(run_of(10'000, 200), 0), 0u);
  ASSERT_EQ(d.route(run_of(20'000, 150), 5 * kSec), 1u);
  EXPECT_EQ(d.loads_ms(10 * kSec), (std::vector<Tick>{200, 150}));      // age exactly 10 s: counts
  EXPECT_EQ(d.loads_ms(10 * kSec + 1), (std::vector<Tick>{0, 150}));   // older: gone
  // At exactly the window's age replica 0 is still heavier (200 vs 150, no
  // rebalance at 1.5)...
  EXPECT_EQ(d.route(run_of(30'000, 1), 10 * kSec), 1u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Explore);
  // ...after it, replica 0's request has left its load.
  EXPECT_EQ(d.route(run_of(40'000, 1), 10 * kSec + 1), 0u);
}

TEST(PrebleE2, DecodeWorkCountsWhileInFlight) {
  Driver d(2, params(180, 1e6), /*tick_per_output_token=*/kMs);
  ASSERT_EQ(d.route(run_of(10'000, 10), 0, /*output_tokens=*/500), 0u);
  EXPECT_EQ(d.loads_ms(0), (std::vector<Tick>{510, 0}));
  ASSERT_EQ(d.route(run_of(20'000, 10), 0, 100), 1u);
  EXPECT_EQ(d.loads_ms(0), (std::vector<Tick>{510, 110}));
  d.policy.on_completed(0, 0, 600 * kMs);
  EXPECT_EQ(d.loads_ms(600 * kMs), (std::vector<Tick>{10, 110}));
  EXPECT_EQ(d.route(run_of(30'000, 10), 600 * kMs), 0u);
}

TEST(PrebleE2, LoadChargesTheUncachedPartAsEstimatedForTheChosenReplica) {
  Driver d(1, params());
  const Tokens x = run_of(100, 100);
  d.route(x, 0);
  d.route(concat(run_of(100, 70), run_of(5000, 30)), 0);  // 70 believed cached
  EXPECT_EQ(d.loads_ms(0), (std::vector<Tick>{130}));
}

// ---------------------------------------------------------------------------
// Rebalance

TEST(PrebleE2, RebalancesToTheLightestWhenTheHeaviestExceedsRatioTimesIt) {
  Driver d = two_replicas_loaded_100_100();
  // Exploit to replica 0 while its load stays <= 1.5 x 100.
  ASSERT_EQ(d.route(with_turn(40), 2 * kSec), 0u);  // 140
  ASSERT_EQ(d.route(with_turn(10), 2 * kSec), 0u);  // 150: not > 150
  ASSERT_EQ(d.route(with_turn(10), 2 * kSec), 0u);  // 160
  EXPECT_EQ(d.policy.last_rule(), Rule::Exploit);
  ASSERT_EQ(d.loads_ms(2 * kSec), (std::vector<Tick>{160, 100}));
  // 160 > 150: the cached prompt goes to the lightest anyway.
  EXPECT_EQ(d.route(with_turn(10), 2 * kSec), 1u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Rebalance);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 0);
}

TEST(PrebleE2, AnIdleReplicaBesideALoadedOneTriggersRebalance) {
  Driver d(3, params());
  EXPECT_EQ(d.route(run_of(10'000, 10), 0), 0u);
  EXPECT_EQ(d.policy.last_rule(), Rule::Explore);  // all idle: 0 > 1.5 x 0 is false
  EXPECT_EQ(d.route(run_of(10'000, 10), 0), 1u);  // would exploit replica 0
  EXPECT_EQ(d.policy.last_rule(), Rule::Rebalance);
  EXPECT_EQ(d.route(run_of(10'000, 10), 0), 2u);
}

// ---------------------------------------------------------------------------
// The eviction mirror

TEST(PrebleE2, MirrorsEvictionsWithTheEnginesCapacity) {
  Driver d(1, params(), 0, /*cache_tokens=*/150);
  const Tokens a = run_of(1000, 100), b = run_of(2000, 100);
  d.route(a, 0);
  d.route(b, 0);
  EXPECT_EQ(d.policy.tree().replica_tokens(0), 100u);  // a, least recent, went
  d.route(a, 0);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 0);
  EXPECT_EQ(d.policy.tree().check_invariants(), "");
}

TEST(PrebleE2, APromptLongerThanTheCacheIsKeptUpToTheCapacity) {
  Driver d(1, params(), 0, /*cache_tokens=*/150);
  const Tokens x = run_of(1000, 200);
  d.route(x, 0);
  EXPECT_EQ(d.policy.tree().replica_tokens(0), 150u);
  d.route(x, 0);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 150);
}

TEST(PrebleE2, ZeroCapacityCachesNothing) {
  Driver d(1, params(), 0, /*cache_tokens=*/0);
  const Tokens x = run_of(1000, 20);
  d.route(x, 0);
  d.route(x, 0);
  EXPECT_EQ(d.policy.predicted_cached_tokens(), 0);
  EXPECT_EQ(d.policy.tree().size(), 0u);
}

// ---------------------------------------------------------------------------
// Registry and simulation

TEST(PrebleE2, RegistryBuildsItFromTheScenario) {
  EXPECT_TRUE(is_known_policy("preble_e2"));
  const auto policy = make_policy("preble_e2", Scenario::reference().policy_params, policy_context(Scenario::reference()));
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->name(), "preble_e2");
}

TEST(PrebleE2, InASimulationEveryDecodingRequestLeavesTheLoadOnCompletion) {
  const Scenario s = Scenario::reference();
  WorkloadConfig w = s.workload;
  w.requests = 400;
  w.output_tokens_min = 10;
  w.output_tokens_max = 50;
  const Workload trace = generate_workload(w, s.seed);
  ClusterConfig cluster = s.cluster;
  cluster.decode_ms_per_token = 5;
  PrebleE2 policy(PrebleE2Params{}, cluster.prefill, seconds_to_ticks(0.005), cluster.cache_tokens);
  const SimulationRun run = simulate(trace, cluster, policy);
  ASSERT_EQ(run.ttft.size(), 400u);
  const Tick end = 10'000 * kSec;  // past every completion and the window
  for (std::size_t r = 0; r < cluster.replicas; ++r) EXPECT_EQ(policy.load(r, end), 0) << r;
  EXPECT_EQ(policy.tree().check_invariants(), "");
}

}  // namespace
}  // namespace prefixroute::preble_e2_test
