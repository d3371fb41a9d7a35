// AibrixPrefix (AIBrix's bare prefix-cache = prefix-cache:5 + load-balance:4):
// the normalisation (winsorize, min-max, polarity, +inf), the blend's
// weights, the tie rule, the gate in front, the router's own table.
#include "prefixroute/policies/aibrix_prefix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/cluster_view.h"

#include "replicas.h"
#include "tokens.h"

namespace prefixroute::aibrix_prefix_test {
namespace {

using testsupport::cache_prefix;
using testsupport::concat;
using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::set_in_flight;
using testsupport::Tokens;
using Polarity = AibrixPrefix::Polarity;

const PrefillModel kPrefill{1000.0};
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> normalised(const std::vector<double>& raw, Polarity polarity) {
  std::vector<double> out;
  AibrixPrefix::normalise(raw, polarity, out);
  return out;
}

TEST(AibrixNormalise, MinMaxForHigherIsBetterAndReversedForLowerIsBetter) {
  EXPECT_EQ(normalised({0, 50, 100}, Polarity::Most), (std::vector<double>{0.0, 0.5, 1.0}));
  EXPECT_EQ(normalised({0, 50, 100}, Polarity::Least), (std::vector<double>{1.0, 0.5, 0.0}));
}

TEST(AibrixNormalise, ValuesBeyondThreeMadsAreClampedFirst) {
  // AIBrix's own example: {91, 333, 4534.67}: median 333, MAD 242, upper bound
  // 333 + 3 x 242 = 1059, so 4534.67 scales as 1059.
  const std::vector<double> out = normalised({91, 333, 4534.67}, Polarity::Least);
  EXPECT_EQ(out[0], 1.0);
  EXPECT_DOUBLE_EQ(out[1], (1059.0 - 333.0) / (1059.0 - 91.0));
  EXPECT_EQ(out[2], 0.0);
  // Two values: no winsorizing.
  EXPECT_EQ(normalised({1, 1000}, Polarity::Most), (std::vector<double>{0.0, 1.0}));
}

TEST(AibrixNormalise, AllEqualScoreOneAndInfiniteScoresZero) {
  EXPECT_EQ(normalised({7, 7, 7}, Polarity::Least), (std::vector<double>{1.0, 1.0, 1.0}));
  EXPECT_EQ(normalised({kInf, 2, 4}, Polarity::Least), (std::vector<double>{0.0, 1.0, 0.0}));
  EXPECT_EQ(normalised({kInf, kInf}, Polarity::Least), (std::vector<double>{0.0, 0.0}));
}

TEST(AibrixPrefix, FinalScoreIsFiveNinthsPrefixPlusFourNinthsLoad) {
  auto replicas = make_replicas(3);
  const Tokens prompt = run_of(1, 40);  // 10 blocks of 4
  AibrixPrefix policy(AibrixPrefixParams{});
  record_routed(policy, 1, 0, prompt);                         // r0: 100 %
  record_routed(policy, 2, 1, concat(run_of(1, 20), run_of(900, 4)));  // r1: 50 %
  set_in_flight(replicas, {4, 2, 0});
  // prefix {100, 50, 0} -> {1, 0.5, 0}; load {4, 2, 0} (capacity 1, no KV) -> {0, 0.5, 1}.
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_prefix_scores(), (std::vector<double>{100, 50, 0}));
  EXPECT_EQ(policy.last_load_scores(), (std::vector<double>{4, 2, 0}));
  const double p = 5.0 / 9.0, l = 4.0 / 9.0;
  EXPECT_EQ(policy.last_final_scores(), (std::vector<double>{1.0 * p + 0.0 * l, 0.5 * p + 0.5 * l, 0.0 * p + 1.0 * l}));
}

TEST(AibrixPrefix, ALoadGapOutweighsAPartialPrefix) {
  auto replicas = make_replicas(2);
  const Tokens prompt = run_of(1, 40);
  AibrixPrefix policy(AibrixPrefixParams{});
  record_routed(policy, 1, 0, concat(run_of(1, 20), run_of(900, 4)));  // r0: 50 %
  set_in_flight(replicas, {5, 0});                                     // below the gate's gap of 8
  // r0: 1 x 5/9 + 0 = 0.556; r1: 0 + 1 x 4/9 = 0.444 -> r0 still (two values: min-max only).
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  AibrixPrefixParams even;
  even.prefix_weight = 1;
  even.load_balance_weight = 2;
  AibrixPrefix leaning(even);
  record_routed(leaning, 1, 0, concat(run_of(1, 20), run_of(900, 4)));
  EXPECT_EQ(leaning.choose(prompt_of(prompt), replicas, 0), 1u);  // 1/3 < 2/3
}

TEST(AibrixPrefix, TiesWithinOneBillionthGoToTheLowestIndex) {
  auto replicas = make_replicas(3);  // nothing anywhere: every final score is 1
  AibrixPrefix policy(AibrixPrefixParams{});
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  set_in_flight(replicas, {1, 0, 0});
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
}

TEST(AibrixPrefix, TheGateNarrowsTheCandidatesBeforeNormalising) {
  auto replicas = make_replicas(3);
  const Tokens prompt = run_of(1, 40);
  AibrixPrefix policy(AibrixPrefixParams{});
  record_routed(policy, 1, 0, prompt);
  set_in_flight(replicas, {12, 1, 1});  // gap 11, 12 > 2 x (1 + 1): only replicas 1 and 2
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_TRUE(policy.last_gated());
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::size_t>{1, 2}));
}

TEST(AibrixPrefix, MatchesComeFromTheRoutersOwnTableAndTheChoiceIsAddedToIt) {
  auto replicas = make_replicas(2);
  const Tokens prompt = run_of(1, 40);
  cache_prefix(replicas, 1, prompt, 40, kPrefill);  // the engine of r1 holds it: unseen
  AibrixPrefix policy(AibrixPrefixParams{});
  const std::size_t first = policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_prefix_scores(), (std::vector<double>{0, 0}));
  policy.on_routed(RoutedRequest{1, first, prompt_of(prompt), 0, 0});
  policy.choose(prompt_of(prompt), replicas, 0);
  std::vector<double> expected(2, 0.0);
  expected[first] = 100;
  EXPECT_EQ(policy.last_prefix_scores(), expected);
  EXPECT_EQ(policy.predicted_cached_tokens(), 40);
}

// normalizeScoresArray recomputed from scratch with sorted copies (the
// median of a sorted copy, then of the sorted deviations), against
// normalise's selection and the prefix scores' shortcut, on random score
// lists with frequent ties, zeros and +inf, sized 1, 2, 3, 5, 8 and 70.
std::vector<double> normalised_by_sorting(const std::vector<double>& raw, Polarity polarity) {
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  };
  std::vector<double> out(raw.size(), 0.0), values;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < raw.size(); ++i)
    if (std::isfinite(raw[i])) {
      index.push_back(i);
      values.push_back(raw[i]);
    }
  if (values.empty()) return out;
  if (values.size() >= 3) {
    const double m = median(values);
    std::vector<double> deviations;
    for (const double v : values) deviations.push_back(std::fabs(v - m));
    const double mad = median(deviations);
    if (mad != 0)
      for (double& v : values) v = std::clamp(v, m - 3.0 * mad, m + 3.0 * mad);
  }
  const double lo = *std::min_element(values.begin(), values.end());
  const double hi = *std::max_element(values.begin(), values.end());
  for (std::size_t j = 0; j < values.size(); ++j)
    out[index[j]] = hi == lo ? 1.0 : polarity == Polarity::Least ? (hi - values[j]) / (hi - lo) : (values[j] - lo) / (hi - lo);
  return out;
}

TEST(AibrixNormalise, SelectionGivesTheSortedMediansResults) {
  Rng rng(5);
  for (const std::size_t n : {1u, 2u, 3u, 5u, 8u, 70u}) {
    for (int round = 0; round < 200; ++round) {
      std::vector<double> raw(n);
      const bool sparse = rng.uniform_int(0, 1) == 0;  // mostly zeros, like match percents
      for (double& v : raw) {
        const auto pick = rng.uniform_int(0, 9);
        v = sparse && pick < 7 ? 0.0 : pick == 9 ? kInf : static_cast<double>(rng.uniform_int(0, 6)) * 12.5 / 3.0;
      }
      for (const Polarity polarity : {Polarity::Most, Polarity::Least})
        ASSERT_EQ(normalised(raw, polarity), normalised_by_sorting(raw, polarity)) << "n " << n << " round " << round;
    }
  }
}

// The policy's prefix scores (percents, mostly 0) normalised as from
// scratch, the blend and the 1e-9 tie rule, on random routed tables and
// in-flight counts over 1, 3, 5 and 70 replicas.
void check_choice_against_model(std::size_t n, std::uint64_t seed) {
  AibrixPrefix policy(AibrixPrefixParams{});
  auto replicas = make_replicas(n);
  Rng rng(seed);
  for (int step = 0; step < 150; ++step) {
    std::vector<std::uint32_t> counts(n);
    for (auto& c : counts) c = static_cast<std::uint32_t>(rng.uniform_int(0, 2));
    set_in_flight(replicas, counts);
    const Tokens prompt = concat(run_of(static_cast<Token>(rng.uniform_int(0, 3)) * 1000, rng.uniform_int(0, 16)),
                                 run_of(static_cast<Token>(50'000 + rng.uniform_int(0, 9) * 100), rng.uniform_int(0, 8)));
    const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);
    const std::vector<double> prefix = normalised_by_sorting(policy.last_prefix_scores(), Polarity::Most);
    const std::vector<double> load = normalised_by_sorting(policy.last_load_scores(), Polarity::Least);
    const auto& candidates = policy.last_candidates();
    std::size_t best = 0;
    double best_score = -1.0;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      double score = 0.0;
      score += prefix[k] * (5.0 / 9.0);
      score += load[k] * (4.0 / 9.0);
      ASSERT_EQ(policy.last_final_scores()[k], score) << "step " << step;
      if (std::fabs(score - best_score) >= 1e-9 && score > best_score) {
        best_score = score;
        best = k;
      }
    }
    ASSERT_EQ(chosen, candidates[best]) << "step " << step;
    const std::size_t target = rng.uniform_int(0, 2) == 0 ? static_cast<std::size_t>(rng.uniform_int(0, n - 1)) : chosen;
    record_routed(policy, static_cast<std::uint64_t>(step), target, prompt);
  }
}

TEST(AibrixPrefix, ChoiceIsTheBlendOfScoresNormalisedAsFromScratch) {
  check_choice_against_model(1, 1);
  check_choice_against_model(3, 2);
  check_choice_against_model(5, 3);
  check_choice_against_model(70, 4);
}


// The choice from the order structures (a view that counts scrapes and
// announces in-flight changes) in lockstep with the scan (a view of the
// replicas alone): two policies told the same hooks, on random states. Counts
// move with routed and completed requests (the gate fires and does not);
// scrapes set KV usages from a few values, some 2e-9 apart (final scores
// about 1e-9 apart: the tie tolerance's chains), some past the KV
// guardrail (+inf) and sometimes all of them; prompts share a few prefixes
// (half of them one common run) and requests often go elsewhere than
// chosen, so holders vary from none to every replica; completions carry output tokens over many seconds (the
// capacity estimates).
void check_ranked_against_scan(std::size_t n, std::uint64_t seed, std::size_t requests, int most_completions = 2) {
  AibrixPrefixParams p;
  p.gate_min_gap = 3;
  p.gate_factor = 1.5;
  AibrixPrefix ranked(p, /*ranked_from_replicas=*/1), scanning(p);
  auto replicas = make_replicas(n);
  std::uint64_t scrapes = 0;
  ClusterView announced(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  announced.set_scrape_count(&scrapes);
  announced.set_in_flight_announced(true);
  const ClusterView plain(replicas);
  std::vector<std::pair<std::uint64_t, std::size_t>> in_flight;  // (id, replica)
  Rng rng(seed);
  Tick now = 0;
  std::size_t ranked_choices = 0, gated = 0;
  for (std::uint64_t id = 0; id < requests; ++id) {
    now += static_cast<Tick>(rng.uniform_int(0, 300)) * kTicksPerMillisecond;
    if (id % 7 == 0) {
      const bool all_past_guardrail = rng.uniform_int(0, 40) == 0;
      for (Replica& r : replicas) {
        EngineMetrics m;
        const auto pick = rng.uniform_int(0, 9);
        m.kv_usage = all_past_guardrail || pick == 0 ? 0.95
                     : pick < 5                      ? 0.5 + 2e-9 * static_cast<double>(rng.uniform_int(0, 3))
                                                     : static_cast<double>(rng.uniform_int(0, 2)) / 4;
        r.set_scraped(m);
      }
      ++scrapes;
    }
    for (std::uint64_t k = rng.uniform_int(0, most_completions); k > 0 && !in_flight.empty(); --k) {
      const auto at = static_cast<std::size_t>(rng.below(in_flight.size()));
      const auto [done, replica] = in_flight[at];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(at));
      replicas[replica].router_completed();
      ranked.on_completed(done, replica, now);
      scanning.on_completed(done, replica, now);
    }
    // Half the prompts open with one shared run (a system prompt most
    // replicas come to hold: the most common percent is then not 0).
    const Tokens shared = run_of(7, rng.uniform_int(0, 1) == 0 ? 8 : 0);
    const Tokens tokens = concat(concat(shared, run_of(static_cast<Token>(rng.uniform_int(0, 4)) * 1000,
                                                       rng.uniform_int(0, 24))),
                                 run_of(static_cast<Token>(50'000 + rng.uniform_int(0, 9) * 100), rng.uniform_int(0, 8)));
    const PromptPieces prompt = prompt_of(tokens);
    const RouteRequest request(prompt, id, 0, 0, 0);
    const std::size_t chosen = ranked.choose(request, announced, now);
    ASSERT_EQ(chosen, scanning.choose(request, plain, now)) << n << " replicas, request " << id;
    ASSERT_EQ(ranked.last_gated(), scanning.last_gated()) << n << " replicas, request " << id;
    ASSERT_EQ(ranked.predicted_cached_tokens(), scanning.predicted_cached_tokens()) << n << " replicas, request " << id;
    if (ranked.last_ranked()) {
      ++ranked_choices;
      // Each replica compared has the scan's final score.
      const auto& candidates = scanning.last_candidates();
      for (const AibrixPrefix::Scored& f : ranked.last_finalists()) {
        const auto k = std::lower_bound(candidates.begin(), candidates.end(), f.replica) - candidates.begin();
        ASSERT_EQ(f.final, scanning.last_final_scores()[static_cast<std::size_t>(k)])
            << n << " replicas, request " << id << ", replica " << f.replica;
      }
    }
    gated += scanning.last_gated() ? 1 : 0;
    // Elsewhere than chosen: at random, or to one hot replica (the gate fires).
    const auto where = rng.uniform_int(0, 7);
    const std::size_t target = where < 3 ? static_cast<std::size_t>(rng.below(n)) : where == 3 ? n / 2 : chosen;
    const std::uint64_t output = rng.uniform_int(0, 3) * 100;
    ranked.on_routed(RoutedRequest{id, target, prompt, output, now});
    scanning.on_routed(RoutedRequest{id, target, prompt, output, now});
    replicas[target].router_dispatched();
    in_flight.emplace_back(id, target);
  }
  // Many choices come from the structures (not the scan they fall back to
  // where most candidates hold the prompt: often on few replicas), with and
  // without the gate.
  EXPECT_GT(ranked_choices * (n >= 70 ? 2 : 8), requests) << n << " replicas";
  if (n >= 3) {
    EXPECT_GT(gated, 0u) << n << " replicas";
  }
}

TEST(AibrixPrefix, TheOrderStructuresChooseAsTheScan) {
  check_ranked_against_scan(1, 1, 300);
  check_ranked_against_scan(3, 2, 600);
  check_ranked_against_scan(70, 3, 800);
  check_ranked_against_scan(256, 4, 500);
  check_ranked_against_scan(70, 5, 800, /*most_completions=*/1);  // busier: idle replicas are outliers
}


// Winsorizing clamps the low outliers to one bound, so they tie: the lowest
// index wins, not the least load. Counts (= load scores: no KV use, no
// estimates) 4 x 6, 5 x 7, 6 x 6, and replica 5 at 1, replica 9 at 0:
// median 5, MAD 1, both clamped to 2.
TEST(AibrixPrefix, ClampedLowLoadsTieAndTheOrderStructuresTakeTheLowestIndex) {
  AibrixPrefix ranked(AibrixPrefixParams{}, /*ranked_from_replicas=*/1), scanning(AibrixPrefixParams{});
  auto replicas = make_replicas(21);
  std::vector<std::uint32_t> counts(21);
  std::size_t next = 0;
  const std::vector<std::uint32_t> others = {4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6};
  for (std::size_t r = 0; r < 21; ++r) counts[r] = r == 5 ? 1 : r == 9 ? 0 : others[next++];
  set_in_flight(replicas, counts);
  std::uint64_t scrapes = 0;
  ClusterView announced(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  announced.set_scrape_count(&scrapes);
  announced.set_in_flight_announced(true);
  const PromptPieces prompt = prompt_of(run_of(1, 8));
  const RouteRequest request(prompt, 0, 0, 0, 0);
  EXPECT_EQ(scanning.choose(request, ClusterView(replicas), 0), 5u);
  EXPECT_EQ(ranked.choose(request, announced, 0), 5u);
  EXPECT_TRUE(ranked.last_ranked());
}

// A crafted state for the order structures: no replica holds the prompt
// (every final is 5/9 + 4/9 x the load's), one running request each except
// the far ones, and KV usages that put three load scores ~4e-9 apart:
//   replica 5 least (final f5), replica 1 next (f1, within 1e-9 of f5),
//   replica 3 next (f3, within 1e-9 of f1, 1e-9 or more below f5),
//   replicas 0, 2, 4, 6, 7 far above (score 4).
// The scan takes replica 1 (5 ties with it). The groups visited from the
// least load are {5}, {1}, {3}, and the group of replica 3 is represented
// by replica 1 again (the lowest index at or below its score): entered with
// the group's final f3, replica 1 would come first in replica order and the
// scan over the finalists would take 5 (f5 - f3 >= 1e-9).
struct ChainOfThreeLoads {
  std::vector<Replica> replicas = make_replicas(8);
  std::uint64_t scrapes = 1;
  ChainOfThreeLoads() {
    set_in_flight(replicas, {4, 1, 4, 1, 4, 1, 4, 4});
    const std::vector<double> usage = {0, std::sqrt(2e-9), 0, std::sqrt(4e-9), 0, 0, 0, 0};
    for (std::size_t r = 0; r < replicas.size(); ++r) {
      EngineMetrics m;
      m.kv_usage = usage[r];
      replicas[r].set_scraped(m);
    }
  }
  ClusterView announced() const {
    ClusterView view(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
    view.set_scrape_count(&scrapes);
    view.set_in_flight_announced(true);
    return view;
  }
};

TEST(AibrixPrefix, AGroupRepresentedByTheLastGroupsReplicaAddsNoFinalist) {
  ChainOfThreeLoads state;
  AibrixPrefix ranked(AibrixPrefixParams{}, /*ranked_from_replicas=*/1), scanning(AibrixPrefixParams{});
  const PromptPieces prompt = prompt_of(run_of(1, 40));
  const RouteRequest request(prompt, 0, 0, 0, 0);
  ASSERT_EQ(scanning.choose(request, ClusterView(state.replicas), 0), 1u);
  // The state is as described: the finals' gaps straddle 1e-9.
  const std::vector<double>& f = scanning.last_final_scores();
  ASSERT_FALSE(scanning.last_gated());
  ASSERT_TRUE(f[5] > f[1] && f[5] - f[1] < 1e-9);
  ASSERT_TRUE(f[1] > f[3] && f[1] - f[3] < 1e-9);
  ASSERT_GE(f[5] - f[3], 1e-9);
  for (const std::size_t far : {0u, 2u, 4u, 6u, 7u}) ASSERT_GE(f[3] - f[far], 1e-9);

  EXPECT_EQ(ranked.choose(request, state.announced(), 0), 1u);
  ASSERT_TRUE(ranked.last_ranked());
  std::vector<std::size_t> finalists;
  for (const AibrixPrefix::Scored& s : ranked.last_finalists()) {
    finalists.push_back(s.replica);
    EXPECT_EQ(s.final, f[s.replica]) << "replica " << s.replica;
  }
  EXPECT_EQ(finalists, (std::vector<std::size_t>{1, 5}));
}

// Singles (replicas holding part of the prompt while most hold none) are
// compared in replica order: of two holding the same part at the same load
// the lower index is the finalist; one further on with less load is one too.
TEST(AibrixPrefix, SinglesOfOnePercentAreFinalistsOnlyWhenLessLoadedThanTheOnesBefore) {
  auto replicas = make_replicas(12);
  std::uint64_t scrapes = 1;
  ClusterView announced(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  announced.set_scrape_count(&scrapes);
  announced.set_in_flight_announced(true);
  AibrixPrefix ranked(AibrixPrefixParams{}, /*ranked_from_replicas=*/1), scanning(AibrixPrefixParams{});
  const Tokens prompt = run_of(1, 40);
  for (const std::size_t holder : {2u, 4u, 7u, 9u}) {
    record_routed(ranked, holder, holder, prompt);
    record_routed(scanning, holder, holder, prompt);
  }
  // Holders 2 and 4 at one running request, 7 at two, 9 at none; the others at three.
  set_in_flight(replicas, {3, 3, 1, 3, 1, 3, 3, 2, 3, 0, 3, 3});
  const PromptPieces pieces = prompt_of(prompt);
  const RouteRequest request(pieces, 99, 0, 0, 0);
  ASSERT_EQ(scanning.choose(request, ClusterView(replicas), 0), 9u);
  EXPECT_EQ(ranked.choose(request, announced, 0), 9u);
  ASSERT_TRUE(ranked.last_ranked());
  std::vector<std::size_t> finalists;
  for (const AibrixPrefix::Scored& s : ranked.last_finalists()) finalists.push_back(s.replica);
  EXPECT_EQ(finalists, (std::vector<std::size_t>{9}));  // 9 scores 1e-9 and more above 2, the record before it
  // With 9 as busy as 2 and 4: 2 is taken, the finalist of the three.
  set_in_flight(replicas, {3, 3, 1, 3, 1, 3, 3, 2, 3, 1, 3, 3});
  ++scrapes;  // (the counts moved without the hooks: every key is recomputed)
  ASSERT_EQ(scanning.choose(request, ClusterView(replicas), 0), 2u);
  EXPECT_EQ(ranked.choose(request, announced, 0), 2u);
  finalists.clear();
  for (const AibrixPrefix::Scored& s : ranked.last_finalists()) finalists.push_back(s.replica);
  EXPECT_EQ(finalists, (std::vector<std::size_t>{2}));
}

}  // namespace
}  // namespace prefixroute::aibrix_prefix_test
