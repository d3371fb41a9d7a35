// LlmdScheduler: each scorer, the affinity filter and each picker on crafted
// cluster states with hand-computed scores (each test names the rule of the
// llm-d plugin it pins), the parameters' validation, and the configuration
// equal to llmd_epp giving llmd_epp's results byte for byte on whole runs,
// both as it runs (an LlmdEpp) and on the general path.
#include "prefixroute/policies/llmd_scheduler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/policies/cluster_view.h"
#include "prefixroute/policies/llmd_epp.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/request_source.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::llmd_scheduler_test {
namespace {

using Json = nlohmann::json;
using testsupport::cache_prefix;
using testsupport::concat;
using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::set_in_flight;
using testsupport::Tokens;
using Scores = std::vector<double>;

const PrefillModel kPrefill{1000.0};

// Only the named scorer counts (weight 1), block size 4.
LlmdSchedulerParams only(double LlmdSchedulerParams::*weight) {
  LlmdSchedulerParams p;
  p.block_size = 4;
  p.prefix_weight = 0;
  p.queue_weight = 0;
  p.kv_weight = 0;
  p.*weight = 1;
  return p;
}

void set_metrics(std::vector<Replica>& replicas, const std::vector<std::uint32_t>& queues,
                 const std::vector<double>& usage) {
  for (std::size_t i = 0; i < replicas.size(); ++i)
    replicas[i].set_scraped(EngineMetrics{0, i < queues.size() ? queues[i] : 0, 0, i < usage.size() ? usage[i] : 0});
}

// ---- prefix-cache-scorer, approximate ----

TEST(LlmdScheduler, ApproximatePrefixScoreIsWalkedBlocksHeldOverPromptBlocks) {
  // GIE prefix plugin: walk the prompt's blocks while any server's LRU holds
  // the block; each server's score is the walked blocks it holds / all blocks.
  auto replicas = make_replicas(3);
  LlmdScheduler policy(only(&LlmdSchedulerParams::prefix_weight), 1);
  const Tokens shared = run_of(1, 12);                                  // 3 blocks
  record_routed(policy, 0, 1, concat(shared, run_of(100, 8)));          // replica 1: the 3 shared blocks
  record_routed(policy, 1, 2, concat(run_of(1, 4), run_of(300, 8)));    // replica 2: block 0 only
  const Tokens prompt = concat(shared, run_of(700, 8));                 // 5 blocks
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_prefix_scores(), (Scores{0.0, 3.0 / 5.0, 1.0 / 5.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 12);
}

TEST(LlmdScheduler, ApproximateIndexForgetsTheLeastRecentBlocksAndTheWalkStopsAtAMiss) {
  // lruCapacityPerServer 3, a 5-block prompt sent to replica 1: blocks 0 and
  // 1 are evicted by 3 and 4, so block 0 is held nowhere and nothing counts.
  auto replicas = make_replicas(2);
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::prefix_weight);
  p.lru_blocks_per_replica = 3;
  LlmdScheduler policy(p, 1);
  const Tokens prompt = run_of(1, 20);
  record_routed(policy, 0, 1, prompt);
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_prefix_scores(), (Scores{0.0, 0.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

// ---- prefix-cache-scorer, precise (KV events) ----

TEST(LlmdScheduler, PreciseScoreIsMinMaxOfConsecutiveBlocksOverTheReplicasHoldingTheFirst) {
  // LongestPrefixScorer gives replica 0 three blocks and replica 1 one;
  // indexedScoresToNormalizedScoredPods: (m - min) / (max - min) over those
  // two, so replica 1 scores 0 like replica 2, which holds nothing.
  auto replicas = make_replicas(3);
  const Tokens prompt = run_of(1, 20);  // 5 blocks of 4
  cache_prefix(replicas, 0, prompt, 13, kPrefill);  // 13 tokens: 3 full blocks
  cache_prefix(replicas, 1, prompt, 5, kPrefill);   // 1 full block
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::prefix_weight);
  p.prefix_mode = LlmdPrefixMode::Precise;
  LlmdScheduler policy(p, 1);
  EXPECT_EQ(policy.matched_view(), CacheView::Precise);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_prefix_scores(), (Scores{1.0, 0.0, 0.0}));
  EXPECT_EQ(policy.last_matched_blocks(), (std::vector<std::uint32_t>{3, 1, 0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 12);
}

TEST(LlmdScheduler, PreciseScoreIsOneForEveryHolderWhenTheyHoldAlike) {
  auto replicas = make_replicas(3);
  const Tokens prompt = run_of(1, 20);
  cache_prefix(replicas, 0, prompt, 8, kPrefill);
  cache_prefix(replicas, 2, prompt, 9, kPrefill);  // 2 full blocks each
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::prefix_weight);
  p.prefix_mode = LlmdPrefixMode::Precise;
  LlmdScheduler policy(p, 1);
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_prefix_scores(), (Scores{1.0, 0.0, 1.0}));
}

TEST(LlmdScheduler, PreciseModeReadsTheCacheTheKvEventsShowNotTheEngine) {
  // The engine of replica 0 holds the prompt, but its events have not arrived
  // (an empty lagged view); replica 1's view already shows two blocks.
  auto replicas = make_replicas(2);
  const Tokens prompt = run_of(1, 12);
  cache_prefix(replicas, 0, prompt, 12, kPrefill);
  RadixCache lagging(1000), ahead(1000);
  ahead.insert(Tokens(prompt.begin(), prompt.begin() + 8));
  replicas[0].set_lagged_view(&lagging);
  replicas[1].set_lagged_view(&ahead);
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::prefix_weight);
  p.prefix_mode = LlmdPrefixMode::Precise;
  LlmdScheduler policy(p, 1);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_prefix_scores(), (Scores{0.0, 1.0}));
}

// ---- queue-scorer, kv-cache-utilization-scorer, load-aware-scorer ----

TEST(LlmdScheduler, QueueScoreIsMinMaxOfTheCandidatesScrapedQueues) {
  auto replicas = make_replicas(3);
  set_metrics(replicas, {4, 0, 2}, {});
  LlmdScheduler policy(only(&LlmdSchedulerParams::queue_weight), 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_EQ(policy.last_queue_scores(), (Scores{0.0, 1.0, 0.5}));
  set_metrics(replicas, {3, 3, 3}, {});  // all equal: a neutral 1
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_EQ(policy.last_queue_scores(), (Scores{1.0, 1.0, 1.0}));
}

TEST(LlmdScheduler, KvScoreIsOneMinusScrapedUsageClamped) {
  auto replicas = make_replicas(3);
  set_metrics(replicas, {}, {0.25, 1.25, 0.5});
  LlmdScheduler policy(only(&LlmdSchedulerParams::kv_weight), 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  EXPECT_EQ(policy.last_kv_scores(), (Scores{0.75, 0.0, 0.5}));
}

TEST(LlmdScheduler, LoadAwareScoreIsHalfForAnEmptyQueueDownToZeroAtTheThreshold) {
  auto replicas = make_replicas(3);
  set_metrics(replicas, {0, 64, 500}, {});
  LlmdScheduler policy(only(&LlmdSchedulerParams::load_aware_weight), 1);  // threshold 128
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  EXPECT_EQ(policy.last_load_aware_scores(), (Scores{0.5, 0.25, 0.0}));
}

// ---- active-request-scorer ----

TEST(LlmdScheduler, ActiveRequestScoreIsTheGapToTheBusiestReplica) {
  // (max - c) / max, and 1 for an idle replica.
  auto replicas = make_replicas(3);
  set_in_flight(replicas, {0, 2, 4});
  LlmdScheduler policy(only(&LlmdSchedulerParams::active_request_weight), 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  EXPECT_EQ(policy.last_active_request_scores(), (Scores{1.0, 0.5, 0.0}));
}

// ---- no-hit-lru-scorer ----

TEST(LlmdScheduler, NoHitLruRanksNeverUsedThenLeastRecentlyUsedForColdRequests) {
  auto replicas = make_replicas(3);
  // A hit is read from the prefix index, whatever the prefix scorer's weight.
  LlmdScheduler policy(only(&LlmdSchedulerParams::no_hit_lru_weight), 1);
  // Cold, nobody used: 1 - i / (N - 1) in replica order.
  const Tokens cold_a = run_of(1000, 8);
  EXPECT_EQ(policy.choose(prompt_of(cold_a), replicas, 0), 0u);
  EXPECT_EQ(policy.last_no_hit_lru_scores(), (Scores{1.0, 0.5, 0.0}));
  policy.on_routed(RoutedRequest{0, 0, prompt_of(cold_a), 0, 0});
  EXPECT_EQ(policy.no_hit_order(), (std::vector<std::uint32_t>{0}));
  // Replica 0 was used: the never-used ones rank first, then it.
  const Tokens cold_b = run_of(2000, 8);
  EXPECT_EQ(policy.choose(prompt_of(cold_b), replicas, 0), 1u);
  EXPECT_EQ(policy.last_no_hit_lru_scores(), (Scores{0.0, 1.0, 0.5}));
  policy.on_routed(RoutedRequest{1, 1, prompt_of(cold_b), 0, 0});
  EXPECT_EQ(policy.no_hit_order(), (std::vector<std::uint32_t>{0, 1}));
  // A hit (replica 0 holds cold_a's blocks): 0.5 for everyone, and no LRU update.
  policy.choose(prompt_of(cold_a), replicas, 0);
  EXPECT_EQ(policy.last_no_hit_lru_scores(), (Scores{0.5, 0.5, 0.5}));
}

// ---- token-load-scorer and the in-flight-load producer ----

TEST(LlmdScheduler, TokenLoadIsInFlightUncachedPromptTokensReleasedAtFirstToken) {
  auto replicas = make_replicas(2);
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::token_load_weight);
  p.token_load_threshold_tokens = 100;
  LlmdScheduler policy(p, 1);
  record_routed(policy, 7, 0, run_of(1, 40));  // no choice known: all 40 tokens uncached
  EXPECT_EQ(policy.in_flight_tokens(0), 40u);
  EXPECT_EQ(policy.choose(prompt_of(run_of(500, 8)), replicas, 0), 1u);
  EXPECT_EQ(policy.last_token_load_scores(), (Scores{0.6, 1.0}));
  policy.on_first_token(7, 0, 0);
  EXPECT_EQ(policy.in_flight_tokens(0), 0u);
}

TEST(LlmdScheduler, InFlightTokensLeaveOutWhatTheIndexSaysIsCached) {
  auto replicas = make_replicas(2);
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::token_load_weight);
  p.prefix_weight = 1;
  LlmdScheduler policy(p, 1);
  const Tokens prompt = run_of(1, 20);
  record_routed(policy, 0, 1, prompt);
  policy.on_first_token(0, 1, 0);
  const std::size_t chosen = policy.choose(prompt_of(concat(prompt, run_of(90, 6))), replicas, 0);
  ASSERT_EQ(chosen, 1u);
  ASSERT_EQ(policy.predicted_cached_tokens(), 20);
  policy.on_routed(RoutedRequest{1, 1, prompt_of(concat(prompt, run_of(90, 6))), 0, 0});
  EXPECT_EQ(policy.in_flight_tokens(1), 6u);  // 26 tokens, 20 predicted cached
}

// ---- session-affinity-scorer ----

TEST(LlmdScheduler, SessionScoreIsOneForTheReplicaThatServedTheSessionsLastResponse) {
  auto replicas = make_replicas(3);
  LlmdScheduler policy(only(&LlmdSchedulerParams::session_weight), 1);
  const PromptPieces first = prompt_of(run_of(1, 8)), second = prompt_of(run_of(100, 8));
  RoutedRequest routed{5, 2, first, 0, 0};
  routed.session = 9;
  policy.on_routed(routed);
  policy.on_first_token(5, 2, 0);
  RouteRequest next(second);
  next.session = 9;
  EXPECT_EQ(policy.choose(next, replicas, 0), 2u);
  EXPECT_EQ(policy.last_scores(), (Scores{0.0, 0.0, 1.0}));
}

// ---- prefix-cache-affinity-filter ----

// Replica 0 holds 4 of the prompt's 5 blocks (0.8: sticky at the default
// threshold), replica 1 holds 1, replica 2 none.
struct AffinityFixture {
  std::vector<Replica> replicas = make_replicas(3);
  Tokens prompt = run_of(1, 20);
  LlmdSchedulerParams params() const {
    LlmdSchedulerParams p;
    p.block_size = 4;
    p.filter = LlmdFilter::PrefixCacheAffinity;
    p.prefix_weight = 0;
    p.queue_weight = 0;
    p.kv_weight = 0;
    p.token_load_weight = 1;  // the filter decides; token load then prefers an idle replica
    return p;
  }
  void place(LlmdScheduler& policy) const {
    record_routed(policy, 100, 0, Tokens(prompt.begin(), prompt.begin() + 16));
    record_routed(policy, 101, 1, Tokens(prompt.begin(), prompt.begin() + 4));
    policy.on_first_token(100, 0, 0);
    policy.on_first_token(101, 1, 0);
  }
};

TEST(LlmdScheduler, AffinityFilterKeepsOnlyTheStickyReplicas) {
  AffinityFixture f;
  LlmdScheduler policy(f.params(), 1);
  f.place(policy);
  EXPECT_EQ(policy.choose(prompt_of(f.prompt), f.replicas, 0), 0u);
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::uint32_t>{0}));
}

TEST(LlmdScheduler, AffinityFilterKeepsEveryoneWhenNoReplicaIsSticky) {
  AffinityFixture f;
  LlmdSchedulerParams p = f.params();
  p.affinity_threshold = 0.9;  // 0.8 no longer suffices
  LlmdScheduler policy(p, 1);
  f.place(policy);
  policy.choose(prompt_of(f.prompt), f.replicas, 0);
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(LlmdScheduler, AffinityFilterOpensWhenTheStickyReplicasTtftLeadExceedsThePenalty) {
  // Replica 0 has 1,000 tokens in flight: at 1,000 tokens/s, 1,000 ms ahead
  // of the idle replicas. A 999 ms penalty opens the pool; 1,000 ms does not
  // (the gate opens only on a lead strictly above it); 0 never opens it.
  for (const double penalty : {999.0, 1000.0, 0.0}) {
    AffinityFixture f;
    LlmdSchedulerParams p = f.params();
    p.peak_prefill_tokens_per_s = 1000;
    p.max_ttft_penalty_ms = penalty;
    LlmdScheduler policy(p, 1);
    f.place(policy);
    record_routed(policy, 200, 0, run_of(5000, 1000));
    ASSERT_EQ(policy.in_flight_tokens(0), 1000u);
    policy.choose(prompt_of(f.prompt), f.replicas, 0);
    EXPECT_EQ(policy.last_candidates().size(), penalty == 999.0 ? 3u : 1u) << penalty;
  }
}

TEST(LlmdScheduler, AffinityFilterExploresWithItsProbability) {
  AffinityFixture f;
  LlmdSchedulerParams p = f.params();
  p.exploration_probability = 1;
  LlmdScheduler policy(p, 1);
  f.place(policy);
  policy.choose(prompt_of(f.prompt), f.replicas, 0);
  EXPECT_EQ(policy.last_candidates().size(), 3u);
}

TEST(LlmdScheduler, ScorersNormaliseOverTheFilteredCandidates) {
  // The queue scorer's min and max are the candidates': replica 0 alone is
  // sticky, so its queue of 5 is both and scores a neutral 1.
  AffinityFixture f;
  LlmdSchedulerParams p = f.params();
  p.token_load_weight = 0;
  p.queue_weight = 1;
  set_metrics(f.replicas, {5, 0, 0}, {});
  LlmdScheduler policy(p, 1);
  f.place(policy);
  EXPECT_EQ(policy.choose(prompt_of(f.prompt), f.replicas, 0), 0u);
  EXPECT_EQ(policy.last_queue_scores(), (Scores{1.0, 0.0, 0.0}));
}

// ---- pickers ----

TEST(LlmdScheduler, MaxScorePickerTakesTheHighestWeightedSum) {
  auto replicas = make_replicas(3);
  set_metrics(replicas, {2, 0, 1}, {0.0, 0.9, 0.0});
  LlmdSchedulerParams p;
  p.block_size = 4;  // prefix 3 x 0 + queue 2 x {0, 1, 0.5} + KV 2 x {1, 0.1, 1}
  LlmdScheduler policy(p, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 2u);
  const Scores& s = policy.last_scores();
  EXPECT_DOUBLE_EQ(s[0], 2.0);
  EXPECT_DOUBLE_EQ(s[1], 2.2);
  EXPECT_DOUBLE_EQ(s[2], 3.0);
}

TEST(LlmdScheduler, MaxScorePickerBreaksTiesUniformly) {
  auto replicas = make_replicas(4);
  LlmdScheduler policy(only(&LlmdSchedulerParams::queue_weight), 3);  // every queue 0: all tie at 1
  std::vector<int> chosen(4, 0);
  for (int i = 0; i < 800; ++i) ++chosen[policy.choose(prompt_of(run_of(1, 8)), replicas, 0)];
  for (const int c : chosen) EXPECT_GT(c, 150);
}

TEST(LlmdScheduler, RandomPickerIgnoresTheScores) {
  auto replicas = make_replicas(4);
  set_metrics(replicas, {0, 9, 9, 9}, {});
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::queue_weight);
  p.picker = LlmdPicker::Random;
  LlmdScheduler policy(p, 3);
  std::vector<int> chosen(4, 0);
  for (int i = 0; i < 800; ++i) ++chosen[policy.choose(prompt_of(run_of(1, 8)), replicas, 0)];
  for (const int c : chosen) EXPECT_GT(c, 150);  // replica 0, the best score, is no likelier
}

TEST(LlmdScheduler, WeightedRandomPickerDrawsInProportionToTheScoresAndNeverAZero) {
  // Queue scores {1, 0.5, 0} (queues 0, 1, 2): A-Res picks replica 0 with
  // probability 1 / 1.5 = 2/3, replica 1 with 1/3, replica 2 never.
  auto replicas = make_replicas(3);
  set_metrics(replicas, {0, 1, 2}, {});
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::queue_weight);
  p.picker = LlmdPicker::WeightedRandom;
  LlmdScheduler policy(p, 5);
  std::vector<int> chosen(3, 0);
  const int draws = 3000;
  for (int i = 0; i < draws; ++i) ++chosen[policy.choose(prompt_of(run_of(1, 8)), replicas, 0)];
  EXPECT_EQ(chosen[2], 0);
  EXPECT_NEAR(static_cast<double>(chosen[0]) / draws, 2.0 / 3.0, 0.03);
}

TEST(LlmdScheduler, WeightedRandomPickerIsUniformWhenEveryScoreIsZero) {
  auto replicas = make_replicas(3);
  set_metrics(replicas, {}, {1.0, 1.0, 1.0});  // KV scores all 0
  LlmdSchedulerParams p = only(&LlmdSchedulerParams::kv_weight);
  p.picker = LlmdPicker::WeightedRandom;
  LlmdScheduler policy(p, 5);
  std::vector<int> chosen(3, 0);
  for (int i = 0; i < 600; ++i) ++chosen[policy.choose(prompt_of(run_of(1, 8)), replicas, 0)];
  for (const int c : chosen) EXPECT_GT(c, 150);
}

// ---- the scenario fields ----

TEST(LlmdScheduler, ChoiceFieldsNameTheFieldAndWhatIsAllowed) {
  const ScenarioParse bad = parse_scenario("", {{"llmd_scheduler.picker", "best"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.errors[0].field, "llmd_scheduler.picker");
  EXPECT_NE(bad.error_text().find("max_score,random,weighted_random"), std::string::npos) << bad.error_text();
  const ScenarioParse mode = parse_scenario("", {{"llmd_scheduler.prefix_mode", "exact"}});
  ASSERT_FALSE(mode.ok());
  EXPECT_NE(mode.error_text().find("approximate,precise"), std::string::npos) << mode.error_text();
  const ScenarioParse threshold = parse_scenario("", {{"llmd_scheduler.affinity_threshold", "1.5"}});
  ASSERT_FALSE(threshold.ok());
  EXPECT_EQ(threshold.errors[0].field, "llmd_scheduler.affinity_threshold");
}

// ---- llmd_epp as one configuration ----

TEST(LlmdScheduler, LlmdEppsBlendRunsAsAnLlmdEppAndEveryOtherPluginTakesTheGeneralPath) {
  EXPECT_TRUE(LlmdScheduler(LlmdSchedulerParams{}, 1).runs_llmd_epp());  // the defaults
  EXPECT_TRUE(LlmdScheduler(only(&LlmdSchedulerParams::session_weight), 1).runs_llmd_epp());
  EXPECT_FALSE(LlmdScheduler(LlmdSchedulerParams{}, 1, true).runs_llmd_epp());
  const auto general = [](void (*set)(LlmdSchedulerParams&)) {
    LlmdSchedulerParams p;
    set(p);
    return !LlmdScheduler(p, 1).runs_llmd_epp() && !LlmdScheduler::llmd_epp_configuration(p).has_value();
  };
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.filter = LlmdFilter::PrefixCacheAffinity; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.prefix_mode = LlmdPrefixMode::Precise; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.picker = LlmdPicker::Random; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.picker = LlmdPicker::WeightedRandom; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.active_request_weight = 1; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.no_hit_lru_weight = 1; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.load_aware_weight = 1; }));
  EXPECT_TRUE(general([](LlmdSchedulerParams& p) { p.token_load_weight = 1; }));
  LlmdSchedulerParams p;
  p.block_size = 8;
  p.max_prefix_blocks = 9;
  p.lru_blocks_per_replica = 10;
  p.prefix_weight = 4;
  p.queue_weight = 5;
  p.kv_weight = 6;
  p.session_weight = 7;
  const std::optional<LlmdEppParams> e = LlmdScheduler::llmd_epp_configuration(p);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->block_size, 8u);
  EXPECT_EQ(e->max_prefix_blocks, 9u);
  EXPECT_EQ(e->lru_blocks_per_replica, 10u);
  EXPECT_EQ(e->prefix_weight, 4.0);
  EXPECT_EQ(e->queue_weight, 5.0);
  EXPECT_EQ(e->kv_weight, 6.0);
  EXPECT_EQ(e->session_weight, 7.0);
}

TEST(LlmdScheduler, DefaultsScoreTheQueueAndKvOfAScrapeUntilTheNextScrape) {
  // llmd_epp's scrape cache: the queue and KV scores are computed when the
  // view's scrape count changes and kept until it changes again. The
  // simulator changes a replica's scraped() metrics only at a scrape (every
  // router.scrape_period_ms), which bumps the count: then the cached scores
  // are the scrape's. Here the metrics change behind a constant count (which
  // the simulator never does) to show the scores are the cached ones.
  auto replicas = make_replicas(3);
  std::uint64_t scrapes = 1;
  ClusterView view(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  view.set_scrape_count(&scrapes);
  LlmdSchedulerParams p;
  p.block_size = 4;
  LlmdScheduler policy(p, 1);
  ASSERT_TRUE(policy.runs_llmd_epp());
  set_metrics(replicas, {2, 0, 1}, {0.0, 0.0, 0.0});
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), view, 0), 1u);
  EXPECT_EQ(policy.last_queue_scores(), (Scores{0.0, 1.0, 0.5}));
  set_metrics(replicas, {0, 2, 1}, {0.0, 0.0, 0.0});  // not scraped yet: the count is the same
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), view, 0), 1u);
  EXPECT_EQ(policy.last_queue_scores(), (Scores{0.0, 1.0, 0.5}));
  ++scrapes;  // the scrape: refreshed
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), view, 0), 0u);
  EXPECT_EQ(policy.last_queue_scores(), (Scores{1.0, 0.0, 0.5}));
  // The general path scores every request from the metrics it is shown.
  LlmdScheduler general(p, 1, true);
  set_metrics(replicas, {2, 0, 1}, {0.0, 0.0, 0.0});
  EXPECT_EQ(general.choose(prompt_of(run_of(1, 8)), view, 0), 1u);
  set_metrics(replicas, {0, 2, 1}, {0.0, 0.0, 0.0});
  EXPECT_EQ(general.choose(prompt_of(run_of(1, 8)), view, 0), 0u);
}

// The llmd_scheduler fields equal to llmd_epp's values in `s`.
std::vector<Override> as_llmd_epp(const Scenario& s) {
  const std::vector<std::string> shared = {"block_size",   "max_prefix_blocks", "lru_blocks_per_replica",
                                           "prefix_weight", "queue_weight",      "kv_weight",
                                           "session_weight"};
  std::vector<Override> out = {{"llmd_scheduler.filter", "none"},
                               {"llmd_scheduler.prefix_mode", "approximate"},
                               {"llmd_scheduler.picker", "max_score"},
                               {"llmd_scheduler.active_request_weight", "0"},
                               {"llmd_scheduler.no_hit_lru_weight", "0"},
                               {"llmd_scheduler.load_aware_weight", "0"},
                               {"llmd_scheduler.token_load_weight", "0"}};
  for (const std::string& key : shared) {
    const std::optional<double> v = get_number(s, "llmd_epp." + key);
    EXPECT_TRUE(v.has_value()) << key;
    const double value = v.value_or(0);
    out.push_back({"llmd_scheduler." + key, value == static_cast<double>(static_cast<std::int64_t>(value))
                                                 ? std::to_string(static_cast<std::int64_t>(value))
                                                 : Json(value).dump()});
  }
  return out;
}

// Runs `overrides` with both policies; their rows must match but for the name and label.
void expect_same_rows(std::vector<Override> overrides) {
  overrides.push_back({"policies", "llmd_epp,llmd_scheduler"});
  const ScenarioParse first = parse_scenario("", overrides);
  ASSERT_TRUE(first.ok()) << first.error_text();
  for (const Override& o : as_llmd_epp(first.scenario)) overrides.push_back(o);
  const ScenarioParse parsed = parse_scenario("", overrides);
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  const Json results = Json::parse(results_to_json(parsed.scenario, run_experiment(parsed.scenario)));
  Json epp = results["results"][0], scheduler = results["results"][1];
  ASSERT_EQ(epp["policy"], "llmd_epp");
  ASSERT_EQ(scheduler["policy"], "llmd_scheduler");
  for (Json* row : {&epp, &scheduler}) {
    row->erase("policy");
    row->erase("label");
  }
  EXPECT_EQ(epp.dump(), scheduler.dump());
}

// The general path (the scorers scored for every replica per request) in
// llmd_epp's configuration against llmd_epp itself, on the scenario's
// workload with its router instances: the same replica and cached length for
// every request, and the same TTFTs.
void expect_general_path_same(const std::vector<Override>& overrides) {
  const ScenarioParse parsed = parse_scenario("", overrides);
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  const Scenario& s = parsed.scenario;
  const Workload w = generate_workload(s.workload, s.seed);
  const PolicyContext context = policy_context(s);
  std::vector<std::unique_ptr<RoutingPolicy>> epp = make_router_instances("llmd_epp", s.policy_params, context);
  ASSERT_FALSE(epp.empty());
  std::vector<std::unique_ptr<RoutingPolicy>> general;
  for (const std::unique_ptr<RoutingPolicy>& e : epp) {
    const LlmdEppParams& ep = static_cast<const LlmdEpp&>(*e).params();
    LlmdSchedulerParams p;
    p.block_size = ep.block_size;
    p.max_prefix_blocks = ep.max_prefix_blocks;
    p.lru_blocks_per_replica = ep.lru_blocks_per_replica;
    p.prefix_weight = ep.prefix_weight;
    p.queue_weight = ep.queue_weight;
    p.kv_weight = ep.kv_weight;
    p.session_weight = ep.session_weight;
    // make_router_instances' seeds (catalogue.cpp): the scenario's, then
    // mixed with its salt ("routers") plus the instance number.
    const std::uint64_t k = general.size();
    const std::uint64_t seed = k == 0 ? context.seed : mix_seed(context.seed, 0x726f7574657273ULL + k);
    general.push_back(std::make_unique<LlmdScheduler>(p, seed, true));
  }
  std::vector<RoutingPolicy*> a, b;
  for (std::size_t k = 0; k < epp.size(); ++k) {
    a.push_back(epp[k].get());
    b.push_back(general[k].get());
  }
  TraceSource first(w), second(w);
  const SimulationRun x = simulate(first, s.cluster, std::span<RoutingPolicy* const>(a), {}, 4096, s.router);
  const SimulationRun y = simulate(second, s.cluster, std::span<RoutingPolicy* const>(b), {}, 4096, s.router);
  ASSERT_EQ(x.replica_of.size(), w.size());
  EXPECT_EQ(x.replica_of, y.replica_of);
  EXPECT_EQ(x.cached_of, y.cached_of);
  EXPECT_EQ(x.ttft, y.ttft);
}

TEST(LlmdScheduler, TheLlmdEppConfigurationGivesLlmdEppsResults) {
  expect_same_rows({{"workload.requests", "3000"}});
  expect_general_path_same({{"workload.requests", "3000"}});
}

TEST(LlmdScheduler, TheLlmdEppConfigurationGivesLlmdEppsResultsUnderTheBatchedEngine) {
  const std::vector<Override> overrides = {{"workload.requests", "1500"},
                                           {"cluster.engine", "batched"},
                                           {"hardware.model", "llama-3.1-8b"},
                                           {"workload.output_tokens_min", "1"},
                                           {"workload.output_tokens_max", "100"}};
  expect_same_rows(overrides);
  expect_general_path_same(overrides);
}

TEST(LlmdScheduler, TheLlmdEppConfigurationGivesLlmdEppsResultsWithSessionsAndEvictions) {
  const std::vector<Override> overrides = {{"workload.kind", "sessions"},
                                           {"workload.requests", "2000"},
                                           {"llmd_epp.session_weight", "2"},
                                           {"llmd_epp.lru_blocks_per_replica", "40"},
                                           {"llmd_epp.block_size", "8"},
                                           {"llmd_epp.prefix_weight", "1"},
                                           {"cluster.decode_ms_per_token", "10"}};
  expect_same_rows(overrides);
  expect_general_path_same(overrides);
}

TEST(LlmdScheduler, TheLlmdEppConfigurationGivesLlmdEppsResultsOnManyReplicasAndRouters) {
  const std::vector<Override> overrides = {{"workload.requests", "2000"},
                                           {"cluster.replicas", "70"},
                                           {"workload.tenants", "200"},
                                           {"workload.arrival_rate_per_s", "1500"},
                                           {"router.instances", "2"},
                                           {"router.kv_event_lag_ms", "20"},
                                           {"cluster.decode_ms_per_token", "5"}};
  expect_same_rows(overrides);
  expect_general_path_same(overrides);
}

}  // namespace
}  // namespace prefixroute::llmd_scheduler_test
