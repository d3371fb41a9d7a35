// SglangCacheAware and the router's approximate radix tree it keeps: one rule
// or tie-break per test, on replica states crafted through the router's own
// signals (in-flight counters) and its own past decisions.
#include "prefixroute/policies/sglang_cache_aware.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/policies/cluster_view.h"
#include "prefixroute/cluster/in_flight_order.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/base/random.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::sglang_cache_aware_test {
namespace {

using testsupport::concat;
using testsupport::run_of;
using testsupport::Tokens;
using testsupport::prompt_of;
using Rule = SglangCacheAware::Rule;

constexpr Tick kSec = kTicksPerSecond;
const PrefillModel kPrefill{1000.0};

// Replicas whose only state that matters to this policy is the router's
// in-flight counter (the policy never reads engine truth).
class Cluster {
 public:
  explicit Cluster(std::size_t n, std::size_t cache_tokens = 1'000'000)
      : replicas_(testsupport::make_replicas(n, cache_tokens)) {}

  void add_in_flight(std::size_t i, std::uint32_t k) {
    for (std::uint32_t j = 0; j < k; ++j) replicas_[i].router_dispatched();
  }
  void remove_in_flight(std::size_t i, std::uint32_t k) {
    for (std::uint32_t j = 0; j < k; ++j) replicas_[i].router_completed();
  }
  void set_in_flight(const std::vector<std::uint32_t>& counts) { testsupport::set_in_flight(replicas_, counts); }

  // Makes the router send `prompt` to replica `r`, whatever its tree says:
  // every other replica gets 1000 more in flight, which trips the imbalance
  // gate (the gate's path also records the prompt in r's share).
  void teach(SglangCacheAware& policy, const Tokens& prompt, std::size_t r, Tick now = 0) {
    for (std::size_t i = 0; i < replicas_.size(); ++i)
      if (i != r) add_in_flight(i, 1000);
    ASSERT_EQ(policy.choose(prompt_of(prompt), replicas_, now), r);
    ASSERT_EQ(policy.last_rule(), Rule::Imbalance);
    for (std::size_t i = 0; i < replicas_.size(); ++i)
      if (i != r) remove_in_flight(i, 1000);
  }

  std::vector<Replica>& replicas() { return replicas_; }

 private:
  std::vector<Replica> replicas_;
};

SglangCacheAwareParams params_with(double balance_abs, double balance_rel) {
  SglangCacheAwareParams p;
  p.balance_abs = balance_abs;
  p.balance_rel = balance_rel;
  return p;
}

// Prompt X is in replica 1's share only; replica 0 has `r0` in flight and
// replica 1 has `r1`. Gate thresholds: absolute 4, relative 1.5.
std::size_t route_cached_prompt_with_in_flight(std::uint32_t r0, std::uint32_t r1, Rule* rule) {
  Cluster c(2);
  SglangCacheAware policy(params_with(4, 1.5));
  const Tokens x = run_of(100, 100);
  c.teach(policy, x, 1);
  c.set_in_flight({r0, r1});
  const std::size_t chosen = policy.choose(prompt_of(x), c.replicas(), 0);
  *rule = policy.last_rule();
  return chosen;
}

// ---------------------------------------------------------------------------
// The imbalance gate

TEST(SglangCacheAware, ImbalanceGateSendsToTheLeastLoadedWhenBothThresholdsAreExceeded) {
  Rule rule;
  // 10 - 5 = 5 > 4 and 10 > 1.5 x 5 = 7.5: the gate overrides the cache.
  EXPECT_EQ(route_cached_prompt_with_in_flight(5, 10, &rule), 0u);
  EXPECT_EQ(rule, Rule::Imbalance);
  // 20 - 13 = 7 > 4 and 20 > 19.5.
  EXPECT_EQ(route_cached_prompt_with_in_flight(13, 20, &rule), 0u);
  EXPECT_EQ(rule, Rule::Imbalance);
}

TEST(SglangCacheAware, ImbalanceGateNeedsTheAbsoluteThreshold) {
  Rule rule;
  // 10 > 1.5 x 6 = 9 (relative holds) but 10 - 6 = 4 is not > 4: cache routing.
  EXPECT_EQ(route_cached_prompt_with_in_flight(6, 10, &rule), 1u);
  EXPECT_EQ(rule, Rule::CacheMatch);
}

TEST(SglangCacheAware, ImbalanceGateNeedsTheRelativeThreshold) {
  Rule rule;
  // 20 - 14 = 6 > 4 (absolute holds) but 20 is not > 1.5 x 14 = 21: cache routing.
  EXPECT_EQ(route_cached_prompt_with_in_flight(14, 20, &rule), 1u);
  EXPECT_EQ(rule, Rule::CacheMatch);
}

TEST(SglangCacheAware, ImbalanceGateTiesGoToTheLowestIndex) {
  Cluster c(4);
  SglangCacheAware policy(params_with(4, 1.5));
  c.set_in_flight({10, 2, 9, 2});
  EXPECT_EQ(policy.choose(prompt_of(run_of(100, 10)), c.replicas(), 0), 1u);
  EXPECT_EQ(policy.last_rule(), Rule::Imbalance);
}

// ---------------------------------------------------------------------------
// The per-request gate (gate = per_request)

SglangCacheAwareParams per_request(double balance_abs, double balance_rel) {
  SglangCacheAwareParams p = params_with(balance_abs, balance_rel);
  p.gate = SglangGate::PerRequest;
  return p;
}

// Prompt X in replica `holder`'s share only (taught by a miss to the least
// loaded replica), then the given in-flight counts; returns the choice for X.
std::size_t route_x_per_request(std::size_t holder, const std::vector<std::uint32_t>& in_flight, Rule* rule,
                                SglangCacheAwareParams p = per_request(4, 1.5)) {
  Cluster c(in_flight.size());
  SglangCacheAware policy(p);
  const Tokens x = run_of(100, 100);
  std::vector<std::uint32_t> teach(in_flight.size(), 1000);
  teach[holder] = 0;
  c.set_in_flight(teach);
  EXPECT_EQ(policy.choose(prompt_of(x), c.replicas(), 0), holder);
  c.set_in_flight(in_flight);
  const std::size_t chosen = policy.choose(prompt_of(x), c.replicas(), 0);
  *rule = policy.last_rule();
  return chosen;
}

TEST(SglangCacheAware, TheFleetGateIsTheDefault) {
  EXPECT_EQ(SglangCacheAwareParams{}.gate, SglangGate::Fleet);
  Rule rule;
  // The fleet test fires on replica 0's load though the match is on replica 2.
  SglangCacheAwareParams fleet = params_with(4, 1.5);
  EXPECT_EQ(route_x_per_request(2, {100, 1, 2}, &rule, fleet), 1u);
  EXPECT_EQ(rule, Rule::Imbalance);
}

TEST(SglangCacheAware, PerRequestGateIgnoresAHotReplicaTheRequestDoesNotGoTo) {
  Rule rule;
  // Mean 103/3; the chosen replica 2 has 2 in flight: not above it.
  EXPECT_EQ(route_x_per_request(2, {100, 1, 2}, &rule), 2u);
  EXPECT_EQ(rule, Rule::CacheMatch);
}

TEST(SglangCacheAware, PerRequestGateSpillsWhenTheChosenReplicaIsAboveTheMeanByBothMargins) {
  Rule rule;
  // Mean 8: 20 > 8 + 4 and 20 > 1.5 x 8 = 12 -> the least loaded (replica 1).
  EXPECT_EQ(route_x_per_request(0, {20, 2, 2}, &rule), 1u);
  EXPECT_EQ(rule, Rule::Imbalance);
}

TEST(SglangCacheAware, PerRequestGateNeedsBothMargins) {
  Rule rule;
  // Mean 7: 11 > 10.5 (relative) but not > 7 + 4 (absolute): stays.
  EXPECT_EQ(route_x_per_request(0, {11, 5, 5}, &rule), 0u);
  EXPECT_EQ(rule, Rule::CacheMatch);
  // Mean 33: 40 > 33 + 4 (absolute) but not > 1.5 x 33 (relative): stays.
  EXPECT_EQ(route_x_per_request(0, {40, 30, 29}, &rule), 0u);
  EXPECT_EQ(rule, Rule::CacheMatch);
}

TEST(SglangCacheAware, ImbalancedRouteStillRecordsThePromptInTheTree) {
  Cluster c(2);
  SglangCacheAware policy(params_with(4, 1.5));
  const Tokens x = run_of(100, 50);
  c.set_in_flight({0, 10});
  ASSERT_EQ(policy.choose(prompt_of(x), c.replicas(), 0), 0u);
  std::vector<std::size_t> per_replica;
  EXPECT_EQ(policy.tree().match(prompt_of(x), per_replica), 50u);
  EXPECT_EQ(per_replica, (std::vector<std::size_t>{50, 0}));
}

// ---------------------------------------------------------------------------
// The cache threshold

// Replica 1 holds the first `k` of a 100-token prompt; replica 0 is the least
// loaded (0 vs 1 in flight, far inside the gate).
Rule threshold_case(std::size_t k, std::size_t* chosen) {
  Cluster c(2);
  SglangCacheAware policy(SglangCacheAwareParams{});  // cache_threshold 0.3
  const Tokens x = run_of(100, 100);
  c.teach(policy, Tokens(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(k)), 1);
  c.set_in_flight({0, 1});
  *chosen = policy.choose(prompt_of(x), c.replicas(), 0);
  return policy.last_rule();
}

TEST(SglangCacheAware, MatchAtExactlyTheThresholdIsNotEnough) {
  std::size_t chosen = 9;
  EXPECT_EQ(threshold_case(30, &chosen), Rule::LeastLoaded);  // 30 / 100 = 0.3, not > 0.3
  EXPECT_EQ(chosen, 0u);
}

TEST(SglangCacheAware, MatchJustAboveTheThresholdRoutesToTheHolder) {
  std::size_t chosen = 9;
  EXPECT_EQ(threshold_case(31, &chosen), Rule::CacheMatch);  // 0.31 > 0.3
  EXPECT_EQ(chosen, 1u);
}

TEST(SglangCacheAware, ThresholdZeroRoutesAnyMatchToTheHolder) {
  Cluster c(2);
  SglangCacheAwareParams p;
  p.cache_threshold = 0;
  SglangCacheAware policy(p);
  const Tokens x = run_of(100, 100);
  c.teach(policy, run_of(100, 1), 1);
  c.set_in_flight({0, 1});
  EXPECT_EQ(policy.choose(prompt_of(x), c.replicas(), 0), 1u);
  EXPECT_EQ(policy.last_rule(), Rule::CacheMatch);
  // Nothing matched at all is never a hit, even at threshold 0.
  EXPECT_EQ(policy.choose(prompt_of(run_of(5000, 10)), c.replicas(), 0), 0u);
  EXPECT_EQ(policy.last_rule(), Rule::LeastLoaded);
}

// ---------------------------------------------------------------------------
// The deepest matched node and its ties

TEST(SglangCacheAware, RoutesToAHolderOfTheDeepestMatchedNodeNotALighterShallowOne) {
  Cluster c(4);
  SglangCacheAware policy(SglangCacheAwareParams{});
  const Tokens x = run_of(100, 100);
  c.teach(policy, run_of(100, 40), 0);
  c.teach(policy, run_of(100, 80), 1);
  c.teach(policy, run_of(100, 80), 2);
  // Replicas 0 and 3 are lighter, but only 1 and 2 hold the 80-token node;
  // of those, 2 has fewer in flight.
  c.set_in_flight({0, 3, 2, 0});
  EXPECT_EQ(policy.choose(prompt_of(x), c.replicas(), 0), 2u);
  EXPECT_EQ(policy.last_rule(), Rule::CacheMatch);
  EXPECT_EQ(policy.predicted_cached_tokens(), 80);
}

TEST(SglangCacheAware, DeepestNodeTiesGoToTheLowestIndex) {
  Cluster c(4);
  SglangCacheAware policy(SglangCacheAwareParams{});
  const Tokens x = run_of(100, 100);
  c.teach(policy, run_of(100, 80), 3);
  c.teach(policy, run_of(100, 80), 1);
  c.set_in_flight({0, 2, 0, 2});
  EXPECT_EQ(policy.choose(prompt_of(x), c.replicas(), 0), 1u);
}

TEST(SglangCacheAware, APartialEdgeCountsAsMatched) {
  // Replica 1 was sent X's first 60 tokens followed by something else: the
  // match of X runs 60 tokens into that node's edge.
  Cluster c(2);
  SglangCacheAware policy(SglangCacheAwareParams{});
  const Tokens x = run_of(100, 100);
  c.teach(policy, concat(run_of(100, 60), run_of(9000, 40)), 1);
  c.set_in_flight({0, 1});
  EXPECT_EQ(policy.choose(prompt_of(x), c.replicas(), 0), 1u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 60);
}

// ---------------------------------------------------------------------------
// Below the threshold: the fallbacks

TEST(SglangCacheAware, MissGoesToTheFewestInFlightTiesLowestIndex) {
  Cluster c(3);
  SglangCacheAware policy(SglangCacheAwareParams{});
  c.set_in_flight({2, 1, 1});
  EXPECT_EQ(policy.choose(prompt_of(run_of(100, 10)), c.replicas(), 0), 1u);
  EXPECT_EQ(policy.last_rule(), Rule::LeastLoaded);
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

TEST(SglangCacheAware, OlderRuleSendsAMissToTheSmallestTree) {
  Cluster c(3);
  SglangCacheAwareParams p;
  p.smallest_tree_fallback = 1;
  SglangCacheAware policy(p);
  c.teach(policy, run_of(1000, 50), 0);
  c.teach(policy, run_of(2000, 200), 1);
  c.teach(policy, run_of(3000, 100), 2);
  // Replica 0 is the busiest (inside the gate) but holds the smallest tree.
  c.set_in_flight({3, 0, 1});
  EXPECT_EQ(policy.choose(prompt_of(run_of(5000, 10)), c.replicas(), 0), 0u);
  EXPECT_EQ(policy.last_rule(), Rule::SmallestTree);
}

TEST(SglangCacheAware, SmallestTreeTiesGoToTheLowestIndex) {
  Cluster c(3);
  SglangCacheAwareParams p;
  p.smallest_tree_fallback = 1;
  SglangCacheAware policy(p);
  c.teach(policy, run_of(1000, 50), 0);
  c.set_in_flight({0, 3, 3});
  EXPECT_EQ(policy.choose(prompt_of(run_of(5000, 10)), c.replicas(), 0), 1u);
}

// ---------------------------------------------------------------------------
// The periodic trim

TEST(SglangCacheAware, TrimsEachShareToMaxTreeTokensEveryIntervalLeastRecentlyRoutedFirst) {
  Cluster c(2);
  SglangCacheAwareParams p;
  p.eviction_interval_s = 10;
  p.max_tree_tokens = 250;
  SglangCacheAware policy(p);
  const Tokens a = run_of(1000, 100), b = run_of(2000, 100), d = run_of(3000, 100);
  c.teach(policy, a, 0, 1 * kSec);
  c.teach(policy, b, 0, 2 * kSec);
  c.teach(policy, d, 0, 3 * kSec);
  c.teach(policy, a, 0, 4 * kSec);  // a is routed again: b is now the least recent
  c.teach(policy, run_of(4000, 10), 1, 9 * kSec);
  EXPECT_EQ(policy.tree().replica_tokens(0), 300u);  // no trim before the interval
  EXPECT_EQ(policy.next_trim(), 10 * kSec);

  c.teach(policy, run_of(5000, 10), 1, 10 * kSec);  // trims, then routes
  EXPECT_LE(policy.tree().replica_tokens(0), 250u);
  std::vector<std::size_t> per_replica;
  policy.tree().match(prompt_of(b), per_replica);
  EXPECT_EQ(per_replica[0], 0u);
  policy.tree().match(prompt_of(a), per_replica);
  EXPECT_EQ(per_replica[0], 100u);
  policy.tree().match(prompt_of(d), per_replica);
  EXPECT_EQ(per_replica[0], 100u);
  EXPECT_EQ(policy.tree().replica_tokens(1), 20u);  // within budget: untouched
  EXPECT_EQ(policy.next_trim(), 20 * kSec);
  EXPECT_EQ(policy.tree().check_invariants(), "");
}

TEST(SglangCacheAware, TrimTakesLeavesBeforeTheirSharedPrefix) {
  Cluster c(1);
  SglangCacheAwareParams p;
  p.eviction_interval_s = 1;
  p.max_tree_tokens = 60;
  SglangCacheAware policy(p);
  const Tokens prefix = run_of(1000, 50);
  const Tokens pa = concat(prefix, run_of(2000, 50)), pb = concat(prefix, run_of(3000, 50));
  policy.choose(prompt_of(pa), c.replicas(), 0);
  policy.choose(prompt_of(pb), c.replicas(), 0);  // the prefix is now newer than pa's tail
  ASSERT_EQ(policy.tree().replica_tokens(0), 150u);
  policy.choose(prompt_of(run_of(9000, 5)), c.replicas(), 1 * kSec);
  // Both tails (leaves) went; the shared prefix stayed; then the new prompt joined.
  EXPECT_EQ(policy.tree().replica_tokens(0), 55u);
  std::vector<std::size_t> per_replica;
  EXPECT_EQ(policy.tree().match(prompt_of(pa), per_replica), 50u);
}

TEST(SglangCacheAware, ArrivalsAfterSeveralIdleIntervalsTrimOnceAndRealignTheSchedule) {
  Cluster c(1);
  SglangCacheAwareParams p;
  p.eviction_interval_s = 10;
  SglangCacheAware policy(p);
  policy.choose(prompt_of(run_of(1, 5)), c.replicas(), 35 * kSec);
  EXPECT_EQ(policy.next_trim(), 40 * kSec);
}

// ---------------------------------------------------------------------------
// The tree is the router's belief, not the engines' caches

TEST(SglangCacheAware, TheTreeDoesNotLearnOfEngineEvictions) {
  // One replica with a 150-token engine cache. A, then B, evicts A in the
  // engine; the router's tree still has A, so it predicts a hit it won't get.
  Cluster c(1, 150);
  SglangCacheAware policy(SglangCacheAwareParams{});
  const Tokens a = run_of(1000, 100), b = run_of(2000, 100);
  Replica& engine = c.replicas()[0];
  for (const Tokens* prompt : {&a, &b}) {
    ASSERT_EQ(policy.choose(prompt_of(*prompt), c.replicas(), 0), 0u);
    engine.admit(*prompt, 0, kPrefill);
  }
  ASSERT_EQ(policy.choose(prompt_of(a), c.replicas(), 0), 0u);
  const Replica::Admission actual = engine.admit(a, 0, kPrefill);
  EXPECT_EQ(policy.predicted_cached_tokens(), 100);
  EXPECT_EQ(actual.cached_tokens, 0u);
}

TEST(SglangCacheAware, InASimulationPredictionsExceedActualHitsOnceEnginesEvict) {
  // Two tenants alternate on one replica whose cache holds one prompt.
  std::vector<Tokens> prefixes = {run_of(1000, 100), run_of(2000, 100)};
  std::vector<Request> requests;
  for (std::uint32_t i = 0; i < 6; ++i)
    requests.push_back(Request{static_cast<Tick>(i) * kSec, i % 2, 10, 100 + i, 0});
  const Workload trace(std::move(prefixes), std::move(requests), 1'000'000'000);
  ClusterConfig cluster;
  cluster.replicas = 1;
  cluster.cache_tokens = 150;
  cluster.protect_after_hits = 0;
  cluster.prefill.tokens_per_s = 1000;
  SglangCacheAware policy(SglangCacheAwareParams{});
  const SimulationRun run = simulate(trace, cluster, policy);
  EXPECT_EQ(run.predicted_actual_cached_tokens, 0u);
  EXPECT_EQ(run.predicted_cached_tokens, 4u * 100u);  // requests 2..5 believed their prefix cached
}

// ---------------------------------------------------------------------------
// Registry

TEST(SglangCacheAware, RegistryBuildsItFromTheScenario) {
  Scenario s = Scenario::reference();
  set_number(s, "sglang_cache_aware.cache_threshold", 0.7);
  const auto policy = make_policy("sglang_cache_aware", s.policy_params, policy_context(s));
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->name(), "sglang_cache_aware");
  EXPECT_EQ(dynamic_cast<const SglangCacheAware&>(*policy).params().cache_threshold, 0.7);
  EXPECT_TRUE(is_known_policy("sglang_cache_aware"));
}

TEST(SglangCacheAware, SameScenarioGivesTheSameRun) {
  const Scenario s = Scenario::reference();
  WorkloadConfig w = s.workload;
  w.requests = 500;
  const Workload trace = generate_workload(w, s.seed);
  SglangCacheAware p1(SglangCacheAwareParams{}), p2(SglangCacheAwareParams{});
  const SimulationRun r1 = simulate(trace, s.cluster, p1), r2 = simulate(trace, s.cluster, p2);
  EXPECT_EQ(r1.replica_of, r2.replica_of);
  EXPECT_EQ(r1.ttft, r2.ttft);
}

// ---------------------------------------------------------------------------
// ApproxRadixTree

TEST(ApproxRadixTree, MatchReportsEveryReplicasOwnDepthInOneWalk) {
  ApproxRadixTree tree;
  tree.insert(prompt_of(Tokens{1, 2, 3, 4}), 0);
  tree.insert(prompt_of(Tokens{1, 2, 9}), 1);
  std::vector<std::size_t> per_replica;
  EXPECT_EQ(tree.match(prompt_of(Tokens{1, 2, 3, 7}), per_replica), 3u);
  EXPECT_EQ(per_replica, (std::vector<std::size_t>{3, 2}));
  EXPECT_EQ(tree.size(), 5u);
  EXPECT_EQ(tree.replica_tokens(0), 4u);
  EXPECT_EQ(tree.replica_tokens(1), 3u);
  EXPECT_EQ(tree.check_invariants(), "");
}

TEST(ApproxRadixTree, TrimRemovesNodesNoReplicaHoldsAnyMore) {
  ApproxRadixTree tree;
  tree.insert(prompt_of(Tokens{1, 2, 3, 4}), 0);
  tree.insert(prompt_of(Tokens{1, 2, 9}), 1);
  tree.trim(0, 0);
  EXPECT_EQ(tree.replica_tokens(0), 0u);
  EXPECT_EQ(tree.size(), 3u);  // [3 4] went; [1 2] is still replica 1's
  EXPECT_EQ(tree.node_count(), 2u);
  EXPECT_EQ(tree.check_invariants(), "");
}

// The brute-force model of a replica's match: the longest prefix of `probe`
// among the prompts routed to it.
std::size_t longest_sent_prefix(const std::vector<Tokens>& sent, const Tokens& probe) {
  std::size_t best = 0;
  for (const Tokens& t : sent) {
    std::size_t k = 0;
    while (k < t.size() && k < probe.size() && t[k] == probe[k]) ++k;
    best = std::max(best, k);
  }
  return best;
}

// match_held lists exactly the replicas match() gives a non-zero length, in
// replica order, with that length, and the same overall match.
bool holders_agree(const ApproxRadixTree& tree, const Tokens& probe) {
  std::vector<std::size_t> per_replica;
  std::vector<ApproxRadixTree::Held> held;
  const std::size_t overall = tree.match(prompt_of(probe), per_replica);
  if (tree.match_held(prompt_of(probe), held) != overall) return false;
  std::size_t next = 0;
  for (std::size_t r = 0; r < per_replica.size(); ++r) {
    if (per_replica[r] == 0) continue;
    if (next == held.size() || held[next].replica != r || held[next].matched != per_replica[r]) return false;
    ++next;
  }
  return next == held.size();
}

// A model of what each replica was sent (no trims): per-replica match is the
// longest common prefix with any prompt it was sent.
TEST(ApproxRadixTree, AgreesWithABruteForceModelAndKeepsItsInvariantsUnderRandomTrims) {
  Rng rng(7);
  constexpr std::size_t kReplicas = 4;
  const int steps = PREFIXROUTE_TESTS_SANITIZED ? 300 : 2000;
  ApproxRadixTree tree;
  std::vector<std::vector<Tokens>> sent(kReplicas);
  auto random_prompt = [&rng] {
    Tokens t(rng.uniform_int(0, 12));
    for (Token& x : t) x = static_cast<Token>(rng.uniform_int(0, 2));
    return t;
  };
  for (int step = 0; step < steps; ++step) {
    const Tokens prompt = random_prompt();
    const auto r = static_cast<std::size_t>(rng.uniform_int(0, kReplicas - 1));
    tree.insert(prompt_of(prompt), r);
    sent[r].push_back(prompt);
    const Tokens probe = random_prompt();
    std::vector<std::size_t> per_replica;
    const std::size_t overall = tree.match(prompt_of(probe), per_replica);
    std::size_t expected_overall = 0;
    for (std::size_t i = 0; i < kReplicas; ++i) {
      const std::size_t best = longest_sent_prefix(sent[i], probe);
      ASSERT_EQ(per_replica.size() > i ? per_replica[i] : 0, best) << "step " << step;
      expected_overall = std::max(expected_overall, best);
    }
    ASSERT_EQ(overall, expected_overall);
    ASSERT_TRUE(holders_agree(tree, probe)) << "step " << step;
    ASSERT_EQ(tree.check_invariants(), "") << "step " << step;
  }
  // Random trims keep every invariant and honour each budget.
  for (int step = 0; step < steps; ++step) {
    const auto r = static_cast<std::size_t>(rng.uniform_int(0, kReplicas - 1));
    if (rng.uniform_int(0, 1) == 0) {
      tree.insert(prompt_of(random_prompt()), r);
    } else {
      const std::uint64_t budget = rng.uniform_int(0, 20);
      tree.trim(r, budget);
      ASSERT_LE(tree.replica_tokens(r), budget);
    }
    ASSERT_TRUE(holders_agree(tree, random_prompt())) << "step " << step;
    ASSERT_EQ(tree.check_invariants(), "") << "step " << step;
  }
}

// The choice recomputed the scan's way on random states, with the fewest and
// most in flight read from an InFlightOrder kept beside the replicas' counts
// (as the simulator keeps it): the gate over every replica's count, every
// replica's match in the policy's tree (ApproxRadixTree::match), the deepest
// holders' fewest in flight (lowest index), the per-request gate against the
// mean. Counts take few values (ties for the least, the gate both ways);
// prompts come from a few stems (hits and misses).
void check_choice_against_scan(std::size_t n, SglangGate gate) {
  SglangCacheAwareParams p;
  p.balance_abs = 2;
  p.gate = gate;
  SglangCacheAware policy(p);
  auto replicas = testsupport::make_replicas(n);
  InFlightOrder order(n);
  ClusterView view(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  view.set_in_flight_order(&order);
  std::vector<std::size_t> matched;
  Rng rng(n);
  for (int step = 0; step < 300; ++step) {
    for (std::uint64_t k = rng.uniform_int(1, 3); k > 0; --k) {  // a few counts move
      const auto r = static_cast<std::size_t>(rng.below(n));
      std::vector<std::uint32_t> counts(n);
      for (std::size_t i = 0; i < n; ++i) counts[i] = replicas[i].in_flight();
      counts[r] = static_cast<std::uint32_t>(rng.uniform_int(0, 6));
      testsupport::set_in_flight(replicas, counts);
      order.set(r, counts[r]);
    }
    Tokens prompt = run_of(static_cast<Token>(rng.uniform_int(0, 3)) * 1000, rng.uniform_int(0, 8));
    const Tokens tail = run_of(static_cast<Token>(50'000 + step * 10), rng.uniform_int(0, 4));
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    const std::size_t deepest = policy.tree().match(prompt_of(prompt).view(), matched);
    matched.resize(std::max(matched.size(), n), 0);
    std::size_t least = 0;
    std::uint32_t most = 0;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (replicas[i].in_flight() < replicas[least].in_flight()) least = i;
      most = std::max(most, replicas[i].in_flight());
      total += replicas[i].in_flight();
    }
    const double min = replicas[least].in_flight();
    std::size_t expected = least;
    const bool hit = !prompt.empty() && static_cast<double>(deepest) / static_cast<double>(prompt.size()) > 0.3;
    if (gate == SglangGate::Fleet && most - min > 2 && most > 1.5 * min) {
      expected = least;
    } else if (hit) {
      std::size_t best = n;
      for (std::size_t i = 0; i < n; ++i)
        if (matched[i] == deepest && (best == n || replicas[i].in_flight() < replicas[best].in_flight())) best = i;
      expected = best;
      const double mean = static_cast<double>(total) / static_cast<double>(n);
      const double load = replicas[expected].in_flight();
      if (gate == SglangGate::PerRequest && load > mean + 2 && load > 1.5 * mean) expected = least;
    }
    ASSERT_EQ(policy.choose(prompt_of(prompt), view, 0), expected) << n << " replicas, step " << step;
    ASSERT_EQ(policy.predicted_cached_tokens(), static_cast<std::int64_t>(matched[expected]));
  }
}

TEST(SglangCacheAware, ChoiceIsTheScansWithTheKeptFewestAndMostInFlight) {
  for (const SglangGate gate : {SglangGate::Fleet, SglangGate::PerRequest}) {
    check_choice_against_scan(1, gate);
    check_choice_against_scan(3, gate);
    check_choice_against_scan(5, gate);
    check_choice_against_scan(70, gate);
  }
}

// Nodes with more than 64 children (their links in the tree's hash map):
// short prompts over 200 tokens, under one shared stem or none, inserted,
// matched against the model and trimmed away again.
TEST(ApproxRadixTree, WideNodesAgreeWithTheModelUnderInsertsAndTrims) {
  Rng rng(11);
  constexpr std::size_t kReplicas = 6;
  ApproxRadixTree tree;
  std::vector<std::vector<Tokens>> sent(kReplicas);
  auto random_prompt = [&rng] {
    Tokens t(rng.uniform_int(1, 4));
    for (Token& x : t) x = static_cast<Token>(rng.uniform_int(0, 199));
    if (rng.uniform_int(0, 1) == 0) t.insert(t.begin(), 1000);
    return t;
  };
  std::size_t most_wide = 0;
  for (int step = 0; step < 600; ++step) {
    const Tokens prompt = random_prompt();
    const auto r = static_cast<std::size_t>(rng.uniform_int(0, kReplicas - 1));
    tree.insert(prompt_of(prompt), r);
    sent[r].push_back(prompt);
    const Tokens probe = random_prompt();
    std::vector<std::size_t> per_replica;
    tree.match(prompt_of(probe), per_replica);
    for (std::size_t i = 0; i < kReplicas; ++i) {
      ASSERT_EQ(per_replica.size() > i ? per_replica[i] : 0, longest_sent_prefix(sent[i], probe)) << "step " << step;
    }
    ASSERT_TRUE(holders_agree(tree, probe)) << "step " << step;
    if (step % 20 == 0) {
      ASSERT_EQ(tree.check_invariants(), "") << "step " << step;
    }
    most_wide = std::max(most_wide, tree.wide_node_count());
  }
  EXPECT_GT(most_wide, 0u);
  for (int step = 0; step < 300; ++step) {
    const auto r = static_cast<std::size_t>(rng.uniform_int(0, kReplicas - 1));
    tree.trim(r, rng.uniform_int(0, 200));
    ASSERT_TRUE(holders_agree(tree, random_prompt())) << "step " << step;
    if (step % 10 == 0) {
      ASSERT_EQ(tree.check_invariants(), "") << "step " << step;
    }
  }
  for (std::size_t r = 0; r < kReplicas; ++r) tree.trim(r, 0);
  EXPECT_EQ(tree.node_count(), 0u);
  EXPECT_EQ(tree.check_invariants(), "");
}

}  // namespace
}  // namespace prefixroute::sglang_cache_aware_test
