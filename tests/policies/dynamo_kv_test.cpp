// DynamoKv: the cost formula on crafted replicas (expected costs worked out by
// hand), the router's active-work bookkeeping through the lifecycle hooks,
// the tie-breaks and temperature sampling. One rule per test.
#include "prefixroute/policies/dynamo_kv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::dynamo_kv_test {
namespace {

using testsupport::cache_prefix;
using testsupport::make_replicas;
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::Tokens;
using testsupport::prompt_of;

const PrefillModel kPrefill{1000.0};
constexpr std::size_t kCacheTokens = 100'000;  // per replica: nothing is ever evicted

DynamoKvParams params(std::uint32_t block, double weight, double temperature = 0) {
  DynamoKvParams p;
  p.block_size = block;
  p.overlap_weight = weight;
  p.temperature = temperature;
  return p;
}

/// Dynamo's tie rule before its seeded draw: the replicas of the lowest
/// cost, narrowed to those whose precise view uses the least cache.
std::vector<std::size_t> lowest_cost_least_used(const std::vector<double>& costs, const std::vector<Replica>& replicas) {
  const double lowest = *std::min_element(costs.begin(), costs.end());
  std::vector<std::size_t> survivors;
  std::size_t least_used = 0;
  for (std::size_t r = 0; r < costs.size(); ++r) {
    if (costs[r] != lowest) continue;
    const std::size_t used = replicas[r].precise_view().used();
    if (survivors.empty() || used < least_used) survivors.clear(), least_used = used;
    if (used == least_used) survivors.push_back(r);
  }
  return survivors;
}

TEST(DynamoKv, CostIsWeightedPrefillBlocksPlusActiveAndNewBlocks) {
  // B = 4, overlap_weight = 2, an 18-token prompt: ceil(18/4) = 5 prompt blocks.
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens prompt = run_of(1, 18);
  cache_prefix(replicas, 0, prompt, 10, kPrefill);  // 10 cached tokens: floor(10/4) = 2 blocks overlap
  cache_prefix(replicas, 1, prompt, 3, kPrefill);   // 3 cached tokens: no full block
  DynamoKv policy(params(4, 2.0), 42);
  // Replica 2 has an earlier 8-token request with 4 outputs in flight:
  // 8 active prefill tokens, ceil((8 + 4)/4) = 3 active decode blocks.
  record_routed(policy, 100, 2, run_of(5000, 8), 4);

  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  // r0: 2 x (0 + 18 - 2x4)/4 + 0 + (5 - 2) = 5 + 3  = 8
  // r1: 2 x (0 + 18 - 0)/4   + 0 + 5       = 9 + 5  = 14
  // r2: 2 x (8 + 18 - 0)/4   + 3 + 5       = 13 + 8 = 21
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{8.0, 14.0, 21.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 8);  // overlap x B on the chosen replica
}

TEST(DynamoKv, OverlapCountsOnlyFullBlocks) {
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 16);
  cache_prefix(replicas, 0, prompt, 7, kPrefill);  // 7 tokens = 1 full block of 4
  DynamoKv policy(params(4, 1.0), 42);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 4);
  // r0: (16 - 4)/4 + (4 - 1) = 6; r1: 16/4 + 4 = 8.
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{6.0, 8.0}));
}

TEST(DynamoKv, ZeroOverlapWeightRoutesOnBlocksAlone) {
  // With weight 0 the prefill term vanishes: only active + new blocks count.
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 16);
  cache_prefix(replicas, 0, prompt, 16, kPrefill);
  DynamoKv policy(params(4, 0.0), 42);
  record_routed(policy, 1, 0, run_of(9000, 40), 0);  // 10 active decode blocks on r0
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  // r0: 10 + 0 new = 10; r1: 0 + 4 new = 4.
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{10.0, 4.0}));
}

TEST(DynamoKv, ReadsThePreciseViewNotEngineTruth) {
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 16);
  cache_prefix(replicas, 0, prompt, 16, kPrefill);  // the engine holds it ...
  RadixCache lagging(100'000);            // ... but the router's KV events have not arrived yet
  replicas[0].set_lagged_view(&lagging);
  RadixCache ahead(100'000);
  ahead.insert(prompt);
  replicas[1].set_lagged_view(&ahead);  // and show replica 1 holding it
  DynamoKv policy(params(4, 1.0), 42);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 16);
}

TEST(DynamoKv, RoutingAddsUncachedPrefillTokensAndDecodeBlocks) {
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 18);
  cache_prefix(replicas, 1, prompt, 9, kPrefill);  // 2 blocks of 4 overlap on replica 1
  DynamoKv policy(params(4, 1.0), 42);
  const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);
  ASSERT_EQ(chosen, 1u);
  policy.on_routed(RoutedRequest{7, chosen, prompt_of(prompt), 5, 0});
  EXPECT_EQ(policy.active_prefill_tokens(1), 18u - 8u);       // prompt - overlap x B
  EXPECT_EQ(policy.active_decode_blocks(1), 6u);              // ceil((18 + 5)/4)
  EXPECT_EQ(policy.active_prefill_tokens(0), 0u);
  EXPECT_EQ(policy.active_decode_blocks(0), 0u);
}

TEST(DynamoKv, ActivePrefillDropsAtFirstTokenAndDecodeBlocksAtCompletion) {
  auto replicas = make_replicas(2, kCacheTokens);
  DynamoKv policy(params(4, 1.0), 42);
  record_routed(policy, 1, 0, run_of(1, 12), 8);  // 12 prefill tokens, ceil(20/4) = 5 blocks
  record_routed(policy, 2, 0, run_of(100, 4), 0); // 4 prefill tokens, 1 block
  EXPECT_EQ(policy.active_prefill_tokens(0), 16u);
  EXPECT_EQ(policy.active_decode_blocks(0), 6u);

  policy.on_first_token(1, 0, 10);
  EXPECT_EQ(policy.active_prefill_tokens(0), 4u);
  EXPECT_EQ(policy.active_decode_blocks(0), 6u);  // still decoding: its blocks stay

  policy.on_completed(1, 0, 20);
  EXPECT_EQ(policy.active_prefill_tokens(0), 4u);
  EXPECT_EQ(policy.active_decode_blocks(0), 1u);

  // A completion without a reported first token ends the prefill too.
  policy.on_completed(2, 0, 30);
  EXPECT_EQ(policy.active_prefill_tokens(0), 0u);
  EXPECT_EQ(policy.active_decode_blocks(0), 0u);
}

TEST(DynamoKv, ActiveWorkRaisesTheCostOfItsReplica) {
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 8);
  DynamoKv policy(params(4, 1.0), 42);
  record_routed(policy, 1, 0, run_of(500, 8), 0);  // r0: 8 prefill tokens, 2 blocks
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  // r0: (8 + 8)/4 + 2 + 2 = 8; r1: 8/4 + 2 = 4.
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{8.0, 4.0}));
  policy.on_first_token(1, 0, 0);
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{6.0, 4.0}));  // prefill term gone
  policy.on_completed(1, 0, 0);
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{4.0, 4.0}));  // all gone
}

TEST(DynamoKv, BookkeepingIsBalancedAfterASimulation) {
  // Every request routed is eventually past first token and completed.
  Tokens prefix = run_of(10'000, 64);
  std::vector<Request> requests;
  for (std::uint32_t i = 0; i < 40; ++i)
    requests.push_back(Request{static_cast<Tick>(i) * kTicksPerMillisecond, 0, 20, 1000 + i, 30});
  const Workload workload({prefix}, requests, 32000);
  ClusterConfig cluster;
  cluster.replicas = 3;
  cluster.cache_tokens = 10'000;
  cluster.prefill = kPrefill;
  cluster.decode_ms_per_token = 1.0;
  DynamoKv policy(params(16, 1.0), 42);
  const SimulationRun run = simulate(workload, cluster, policy);
  ASSERT_EQ(run.ttft.size(), requests.size());
  for (std::size_t r = 0; r < cluster.replicas; ++r) {
    EXPECT_EQ(policy.active_prefill_tokens(r), 0u) << "replica " << r;
    EXPECT_EQ(policy.active_decode_blocks(r), 0u) << "replica " << r;
  }
  EXPECT_GT(run.predicted_cached_tokens, 0u);  // the shared prefix was seen as overlap
}

TEST(DynamoKv, EqualCostGoesToTheSmallerCacheUsage) {
  auto replicas = make_replicas(3, kCacheTokens);
  replicas[0].admit(run_of(5000, 30), 0, kPrefill);  // unrelated content: only usage differs
  replicas[1].admit(run_of(6000, 10), 0, kPrefill);
  replicas[2].admit(run_of(7000, 20), 0, kPrefill);
  DynamoKv policy(params(4, 1.0), 42);
  const Tokens prompt = run_of(1, 16);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_costs()[0], policy.last_costs()[1]);
}

TEST(DynamoKv, RemainingTiesAreASeededDraw) {
  auto replicas = make_replicas(4, kCacheTokens);
  replicas[0].admit(run_of(5000, 30), 0, kPrefill);  // more usage: never among the tied
  const Tokens prompt = run_of(1, 16);
  auto picks = [&](std::uint64_t seed) {
    DynamoKv policy(params(4, 1.0), seed);
    std::vector<std::size_t> out;
    for (int k = 0; k < 60; ++k) out.push_back(policy.choose(prompt_of(prompt), replicas, 0));
    return out;
  };
  const auto a = picks(7);
  EXPECT_EQ(a, picks(7));  // same seed, same draws
  EXPECT_NE(a, picks(8));
  std::vector<int> counts(4, 0);
  for (std::size_t c : a) ++counts[c];
  EXPECT_EQ(counts[0], 0);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_GT(counts[i], 0) << "replica " << i;
}

TEST(DynamoKv, ANonHolderTyingTheBestHolderJoinsTheTieInReplicaOrder) {
  // B = 4, an 8-token prompt (2 blocks). Replica 2 holds its first block and
  // is loaded (8 prefill tokens, 2 decode blocks): (8 + 8 - 4)/4 + 2 + 1 = 6.
  // Replica 1 holds nothing, with 4 prefill tokens and 1 block: (4 + 8)/4 + 1 + 2 = 6.
  // Replicas 0 and 3 are loaded more. Both at 6 tie; replica 1 uses less cache.
  auto replicas = make_replicas(4, kCacheTokens);
  const Tokens prompt = run_of(1, 8);
  cache_prefix(replicas, 2, prompt, 4, kPrefill);
  DynamoKv policy(params(4, 1.0), 42);
  record_routed(policy, 100, 2, run_of(5000, 8));
  record_routed(policy, 101, 1, run_of(6000, 4));
  record_routed(policy, 102, 0, run_of(7000, 40));
  record_routed(policy, 103, 3, run_of(8000, 40));
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_costs(), (std::vector<double>{24.0, 6.0, 6.0, 24.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
  // The same usage on replica 1 (unrelated content): both stay tied and draw lots.
  // The lots are drawn over {1, 2} in replica order (the holder listed
  // after the non-holder), with the policy's stream.
  replicas[1].admit(run_of(9000, 4), 0, kPrefill);
  Rng mirror(mix_seed(42, 0x64796e616d6fULL));  // the policy's stream ("dynamo")
  std::vector<int> counts(4, 0);
  for (int k = 0; k < 40; ++k) {
    const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);
    ASSERT_EQ(chosen, mirror.uniform_int(0, 1) == 0 ? 1u : 2u) << "draw " << k;
    ++counts[chosen];
  }
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[2], 0);
}

TEST(DynamoKv, LowestCostMatchesEveryReplicasCostOnRandomStates) {
  // choose() at temperature 0 visits only the holders and the replicas whose
  // load may reach the lowest cost. Against the rule applied to every
  // replica's cost (last_costs()), with a mirror of the policy's draws:
  // lowest cost, then least usage, then a draw among the survivors in
  // replica order, drawn only when more than one survives. On 1, 3, 5, 40
  // and 70 replicas (idle ones tie at the lowest cost, holders join them).
  for (const std::size_t kReplicas : {1u, 3u, 5u, 40u, 70u}) {
  constexpr std::uint64_t kSeed = 11;
  auto replicas = make_replicas(kReplicas, kCacheTokens);
  Rng state(3 + kReplicas);
  std::vector<Tokens> prefixes;
  for (std::uint32_t t = 0; t < 5; ++t) prefixes.push_back(run_of(1000 * (t + 1), 64));
  for (std::size_t r = 0; r < kReplicas; ++r)
    if (state.uniform_int(0, 2) == 0)
      cache_prefix(replicas, r, prefixes[state.uniform_int(0, 4)], 4 * state.uniform_int(0, 16), kPrefill);
  const double weights[] = {1.0, 0.3, 2.5};
  for (const double weight : weights) {
    DynamoKv policy(params(4, weight), kSeed);
    Rng mirror(mix_seed(kSeed, 0x64796e616d6fULL));  // the policy's stream ("dynamo")
    std::uint64_t id = 0;
    for (int k = 0; k < 300; ++k) {
      const Tokens& prefix = prefixes[state.uniform_int(0, 4)];
      const Tokens prompt(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(state.uniform_int(1, 64)));
      const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);
      const std::vector<std::size_t> survivors = lowest_cost_least_used(policy.last_costs(), replicas);
      const std::size_t expected =
          survivors.size() == 1 ? survivors[0] : survivors[mirror.uniform_int(0, survivors.size() - 1)];
      ASSERT_EQ(chosen, expected) << kReplicas << " replicas, weight " << weight << ", request " << k;
      policy.on_routed(RoutedRequest{++id, chosen, prompt_of(prompt), state.uniform_int(0, 40), 0});
      if (id > 3 && state.uniform_int(0, 1) == 0) policy.on_first_token(id - 3, 0, 0);
      if (id > 8 && state.uniform_int(0, 1) == 0) policy.on_completed(id - 8, 0, 0);
    }
  }
  }
}

TEST(DynamoKv, LowestCostFollowsTheRuleOverEveryReplicaAmidManyTies) {
  // choose() at temperature 0 takes the idle replicas (no active work) that
  // hold none of the prompt as one group and costs the idle holders of one
  // matched length once. Against the rule recomputed from scratch before
  // each choice: every replica's cost from the policy's bookkeeping and its
  // precise view's match, the lowest, then the least usage, then a draw
  // (mirrored) among the survivors in replica order. Most replicas are idle
  // with equal caches (ties and survivors by the dozen): either a third
  // are empty, or every replica holds 2 tokens or more, so that holders at
  // overlap 0 (a 2-token cut of the prompt) and non-holders tie at equal
  // usage. Holders share matched lengths, usage changes between choices on
  // idle and busy replicas (reservations), and work ends in any order, so
  // replicas go idle again. Each case runs with a view that scans the
  // replicas and with the simulator's kind of view, whose PrefixIndex
  // reports the holders grouped by matched length (match_groups).
  constexpr std::uint32_t kBlock = 4;
  constexpr std::uint64_t kSeed = 5;
  for (const bool indexed : {false, true}) {
  for (const std::size_t kReplicas : {1u, 3u, 70u, 256u}) {
  for (const bool some_empty : {true, false}) {
    for (const double weight : {1.0, 0.0}) {  // 0: prefill ignored, busy replicas tie at equal decode blocks
      std::vector<Replica> replicas;
      replicas.reserve(kReplicas);  // one content for every cache, as an index needs
      for (std::size_t r = 0; r < kReplicas; ++r)
        replicas.emplace_back(RadixCache(kCacheTokens, RadixCache::kDefaultProtectAfterHits, &testsupport::test_store()));
      PrefixIndex index(kReplicas);
      if (indexed)
        for (std::size_t r = 0; r < kReplicas; ++r) replicas[r].cache().attach_index(&index, static_cast<std::uint32_t>(r));
      const ClusterView view =
          indexed ? ClusterView(replicas, &index, CacheView::Precise, true, nullptr) : ClusterView(replicas);
      Rng state(17 + kReplicas);
      std::vector<Tokens> prefixes;
      for (std::uint32_t t = 0; t < 4; ++t) prefixes.push_back(run_of(1000 * (t + 1), 48));
      const std::size_t cuts[] = {2, 8, 24, 48};
      // Admitted as prompts of the caches' content (an array of tokens would
      // be of another content, which a cache of a shared store does not keep).
      const auto cache = [&](std::size_t r, const Tokens& tokens, std::size_t k) {
        replicas[r].admit(prompt_of(Tokens(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(k))), 0,
                          kPrefill);
      };
      std::size_t cached = 0;
      for (std::size_t r = 0; r < kReplicas; ++r) {
        if (state.uniform_int(0, 2) == 0) {
          const Tokens& prefix = prefixes[state.uniform_int(0, 3)];  // draws in sequence: the same set-up everywhere
          cache(r, prefix, cuts[state.uniform_int(0, 3)]);
        } else if (!some_empty) {
          cache(r, run_of(static_cast<Token>(50'000 + 2 * r), 2), 2);
        }
        cached += replicas[r].cache().size() > 0 ? 1 : 0;
      }
      if (kReplicas >= 70) {
        ASSERT_GT(cached, kReplicas / 5);  // the set-up above took
      }
      if (indexed) {
        ASSERT_EQ(index.check_invariants(), "");
      }
      if (indexed && kReplicas >= 70) {
        ASSERT_GT(index.node_count(), 10u);  // the choices go through it
      }
      std::vector<std::size_t> reserved(kReplicas, 0);
      DynamoKv policy(params(kBlock, weight), kSeed);
      Rng mirror(mix_seed(kSeed, 0x64796e616d6fULL));  // the policy's stream ("dynamo")
      std::vector<std::uint64_t> open;                  // requests routed and not completed
      std::uint64_t id = 0;
      std::size_t draws = 0, most_survivors = 0;
      for (int k = 0; k < 100; ++k) {
        const Tokens& prefix = prefixes[state.uniform_int(0, 3)];
        const Tokens prompt(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(state.uniform_int(1, 48)));
        const std::uint64_t length = prompt.size(), blocks = (length + kBlock - 1) / kBlock;
        std::vector<double> costs(kReplicas);
        for (std::size_t r = 0; r < kReplicas; ++r) {
          const std::uint64_t overlap = replicas[r].precise_view().match(prompt_of(prompt)) / kBlock;
          costs[r] = weight * static_cast<double>(policy.active_prefill_tokens(r) + length - overlap * kBlock) /
                         static_cast<double>(kBlock) +
                     static_cast<double>(policy.active_decode_blocks(r) + blocks - overlap);
        }
        const std::vector<std::size_t> survivors = lowest_cost_least_used(costs, replicas);
        draws += survivors.size() > 1 ? 1 : 0;
        most_survivors = std::max(most_survivors, survivors.size());
        const std::size_t expected =
            survivors.size() == 1 ? survivors[0] : survivors[mirror.uniform_int(0, survivors.size() - 1)];
        const std::size_t chosen = policy.choose(prompt_of(prompt), view, 0);
        ASSERT_EQ(chosen, expected) << kReplicas << " replicas, weight " << weight << ", some empty " << some_empty
                                    << ", indexed " << indexed << ", request " << k;
        ASSERT_EQ(policy.last_costs(), costs) << kReplicas << " replicas, weight " << weight << ", request " << k;
        policy.on_routed(RoutedRequest{++id, chosen, prompt_of(prompt), state.uniform_int(0, 40), 0});
        open.push_back(id);
        if (state.uniform_int(0, 3) == 0) policy.on_first_token(open[state.uniform_int(0, open.size() - 1)], 0, 0);
        while (!open.empty() && state.uniform_int(0, 2) != 0) {
          const std::size_t j = state.uniform_int(0, open.size() - 1);
          policy.on_completed(open[j], 0, 0);
          open.erase(open.begin() + static_cast<std::ptrdiff_t>(j));
        }
        const std::size_t r = state.uniform_int(0, kReplicas - 1);
        if (state.uniform_int(0, 2) != 0) continue;  // usage changes now and then: equal usages stay common
        if (reserved[r] > 0 && state.uniform_int(0, 1) == 0) {
          replicas[r].cache().release(reserved[r]);
          reserved[r] = 0;
        } else {
          const std::size_t tokens = state.uniform_int(1, 2);
          replicas[r].cache().reserve(tokens);
          reserved[r] += tokens;
        }
      }
      if (kReplicas >= 70) {  // the case the test is for: lots drawn, among dozens
        EXPECT_GE(draws, 20u) << kReplicas << " replicas, weight " << weight;
        EXPECT_GE(most_survivors, 20u) << kReplicas << " replicas, weight " << weight;
      }
    }
  }
  }
  }
}

TEST(DynamoKv, TemperatureSamplesTheSoftmaxOfNormalisedCosts) {
  // The costs of the first test, {8, 14, 21}: normalised (c - 8)/13, so with
  // T = 1 the weights are e^0, e^(-6/13), e^-1.
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens prompt = run_of(1, 18);
  cache_prefix(replicas, 0, prompt, 10, kPrefill);
  cache_prefix(replicas, 1, prompt, 3, kPrefill);
  auto draws = [&](std::uint64_t seed, int n) {
    DynamoKv policy(params(4, 2.0, 1.0), seed);
    record_routed(policy, 100, 2, run_of(5000, 8), 4);
    std::vector<std::size_t> out;
    for (int k = 0; k < n; ++k) out.push_back(policy.choose(prompt_of(prompt), replicas, 0));
    EXPECT_EQ(policy.last_costs(), (std::vector<double>{8.0, 14.0, 21.0}));
    return out;
  };
  const int n = 6000;
  const auto a = draws(3, n);
  EXPECT_EQ(a, draws(3, n));  // reproducible with a seed
  const double w[3] = {1.0, std::exp(-6.0 / 13.0), std::exp(-1.0)};
  const double total = w[0] + w[1] + w[2];
  std::vector<int> counts(3, 0);
  for (std::size_t c : a) ++counts[c];
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(static_cast<double>(counts[i]) / n, w[i] / total, 0.03) << "replica " << i;
}

TEST(DynamoKv, TemperatureWithEqualCostsIsUniform) {
  auto replicas = make_replicas(4, kCacheTokens);
  DynamoKv policy(params(4, 1.0, 0.5), 11);
  const Tokens prompt = run_of(1, 16);
  std::vector<int> counts(4, 0);
  const int n = 4000;
  for (int k = 0; k < n; ++k) ++counts[policy.choose(prompt_of(prompt), replicas, 0)];
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(static_cast<double>(counts[i]) / n, 0.25, 0.03);
}

DynamoKvParams predicted(double ttl_s) {
  DynamoKvParams p = params(4, 1.0);
  p.predicted_ttl_s = ttl_s;
  return p;
}

// Routes `prompt` through choose() and on_routed() at `now`; returns the choice.
std::size_t route(DynamoKv& policy, const std::vector<Replica>& replicas, std::uint64_t id, const Tokens& prompt,
                  Tick now) {
  const PromptPieces pieces = prompt_of(prompt);
  const std::size_t r = policy.choose(pieces, replicas, now);
  policy.on_routed(RoutedRequest{id, r, pieces, 0, now});
  return r;
}

TEST(DynamoKv, PredictedTtlKeepsASiblingBurstTogetherBeforeAnyKvEvent) {
  // Replicas 1 and 2 each carry an unrelated 8-token request; the KV events
  // of the first sibling never arrive (the precise view stays empty).
  // Without the side index the second sibling sees no overlap on replica 0:
  //   r0: (16 + 16)/4 + 4 + 4 = 16, r1 = r2: (8 + 16)/4 + 2 + 4 = 12 -> spread.
  // With it, replica 0 overlaps 4 blocks: (16 + 16 - 16)/4 + 4 + 0 = 8 -> together.
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens sibling = run_of(1, 16);
  for (const double ttl : {0.0, 5.0}) {
    DynamoKv policy(predicted(ttl), 42);
    record_routed(policy, 100, 1, run_of(5000, 8), 0);
    record_routed(policy, 101, 2, run_of(6000, 8), 0);
    ASSERT_EQ(route(policy, replicas, 1, sibling, 0), 0u);
    const std::size_t second = route(policy, replicas, 2, sibling, kTicksPerMillisecond);
    if (ttl > 0) {
      EXPECT_EQ(second, 0u);
      EXPECT_EQ(policy.last_costs()[0], 8.0);
      EXPECT_EQ(policy.predicted_cached_tokens(), 16);
    } else {
      EXPECT_NE(second, 0u);
      EXPECT_EQ(policy.last_costs()[0], 16.0);
    }
  }
}

TEST(DynamoKv, PredictedEntriesExpireTtlAfterTheyWereFed) {
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 16);
  DynamoKv policy(predicted(5.0), 42);
  const std::size_t first = route(policy, replicas, 1, prompt, 0);
  policy.on_completed(1, first, 0);  // no active work left: only the overlap differs
  policy.choose(prompt_of(prompt), replicas, 5 * kTicksPerSecond - 1);
  EXPECT_EQ(policy.last_overlap_blocks()[first], 4u);
  policy.choose(prompt_of(prompt), replicas, 5 * kTicksPerSecond);
  EXPECT_EQ(policy.last_overlap_blocks()[first], 0u);
  EXPECT_EQ(policy.side_index()->size(), 0u);
}

TEST(DynamoKv, PredictedOverlapIsTheLargerOfTheEventAndTheSideIndex) {
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens prompt = run_of(1, 16);
  cache_prefix(replicas, 1, prompt, 8, kPrefill);  // events show 2 blocks on replica 1
  DynamoKv policy(predicted(5.0), 42);
  policy.on_routed(RoutedRequest{1, 1, prompt_of(run_of(1, 12)), 0, 0});  // side index: 3 blocks on replica 1
  policy.on_completed(1, 1, 0);
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_overlap_blocks(), (std::vector<std::uint64_t>{0, 3}));
  cache_prefix(replicas, 1, prompt, 16, kPrefill);  // events now show all 4
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_overlap_blocks(), (std::vector<std::uint64_t>{0, 4}));
}

TEST(DynamoKv, PredictedTtlIsOffByDefault) {
  DynamoKv policy(DynamoKvParams{}, 42);
  EXPECT_EQ(policy.side_index(), nullptr);
  const PolicySpec& spec = *find_policy("dynamo_kv");
  for (std::size_t i = 0; i < spec.params.size(); ++i)
    if (spec.params[i].key == "predicted_ttl_s") {
      EXPECT_EQ(spec.defaults[i], 0.0);
    }
}

TEST(DynamoKv, RouterQueueIsOffByDefaultWithDynamosThreshold) {
  DynamoKv policy(DynamoKvParams{}, 42, 8192);
  EXPECT_FALSE(policy.router_queue().has_value());
  const PolicySpec& spec = *find_policy("dynamo_kv");
  std::size_t found = 0;
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    if (spec.params[i].key == "router_queue") {
      EXPECT_EQ(spec.params[i].choices, "off,fcfs,spf");
      EXPECT_EQ(spec.defaults[i], 0.0);  // off
      ++found;
    }
    if (spec.params[i].key == "queue_threshold") {
      EXPECT_EQ(spec.defaults[i], 2.0);
      ++found;
    }
  }
  EXPECT_EQ(found, 2u);
  // The threshold is in units of the engines' step budget.
  DynamoKvParams on;
  on.router_queue = DynamoRouterQueue::ShortestPromptFirst;
  EXPECT_EQ(DynamoKv(on, 42, 8192).queue_threshold_tokens(), 2.0 * 8192);
  EXPECT_EQ(DynamoKv(on, 42, 8192).router_queue(), HoldOrder::ShortestPromptFirst);
}

// holds(): only when every replica's active prefill is above the threshold
// (Dynamo's all_workers_busy: at the threshold is not busy).
TEST(DynamoKv, HoldsOnlyWhileEveryReplicaIsAboveTheThreshold) {
  DynamoKvParams p;
  p.router_queue = DynamoRouterQueue::Fcfs;
  p.queue_threshold = 0.5;  // x 100 = 50 tokens
  DynamoKv policy(p, 42, 100);
  std::vector<Replica> replicas = make_replicas(2, 1000);
  const ClusterView view(replicas);
  EXPECT_FALSE(policy.holds(view, 0));  // nothing routed
  policy.on_routed(RoutedRequest{0, 0, prompt_of(run_of(1, 60)), 0, 0});
  EXPECT_FALSE(policy.holds(view, 0));  // replica 1 is idle
  policy.on_routed(RoutedRequest{1, 1, prompt_of(run_of(100, 50)), 0, 0});
  EXPECT_FALSE(policy.holds(view, 0));  // replica 1 at 50: not above
  policy.on_routed(RoutedRequest{2, 1, prompt_of(run_of(200, 1)), 0, 0});
  EXPECT_TRUE(policy.holds(view, 0));  // 60 and 51
  policy.on_first_token(0, 0, 0);
  EXPECT_FALSE(policy.holds(view, 0));  // replica 0 back to 0
  DynamoKvParams off = p;
  off.router_queue = DynamoRouterQueue::Off;
  DynamoKv never(off, 42, 100);
  never.on_routed(RoutedRequest{0, 0, prompt_of(run_of(1, 600)), 0, 0});
  never.on_routed(RoutedRequest{1, 1, prompt_of(run_of(1, 600)), 0, 0});
  EXPECT_FALSE(never.holds(view, 0));
}

TEST(DynamoKv, RegisteredWithItsScenarioParameters) {
  Scenario s = Scenario::reference();
  set_number(s, "dynamo_kv.block_size", 32);
  auto policy = make_policy("dynamo_kv", s.policy_params, policy_context(s));
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->name(), "dynamo_kv");
  EXPECT_EQ(static_cast<DynamoKv&>(*policy).params().block_size, 32u);
  EXPECT_TRUE(is_known_policy("dynamo_kv"));
}

TEST(DynamoKv, SameScenarioSameRun) {
  Scenario s = Scenario::reference();
  s.workload.requests = 300;
  set_number(s, "dynamo_kv.temperature", 0.3);
  const Workload w = generate_workload(s.workload, s.seed);
  auto run = [&] {
    auto policy = make_policy("dynamo_kv", s.policy_params, policy_context(s));
    return simulate(w, s.cluster, *policy, {}, 4096, s.router).replica_of;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace prefixroute::dynamo_kv_test
