// GieFilterChain: the low-queue filter and its two branches, the least-queue
// band (integer division), the least-KV band, the seeded final pick, and
// that it reads the last scrape only. One rule per test.
#include "prefixroute/policies/gie_filter_chain.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <span>
#include <vector>

#include "prefixroute/policies/cluster_view.h"

#include "replicas.h"
#include "tokens.h"

namespace prefixroute::gie_filter_chain_test {
namespace {

using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::run_of;

const PrefillModel kPrefill{1000.0};

// Replica i runs one request of `running[i]` tokens (1 when not given) with
// `queued[i]` one-token requests waiting behind it, in a cache of 1000
// tokens, scraped at 0: queue queued[i], KV usage (running + queued) / 1000.
std::vector<Replica> cluster(const std::vector<std::uint32_t>& queued, const std::vector<std::size_t>& running = {}) {
  auto replicas = make_replicas(queued.size(), 1000);
  Token next = 100'000;
  for (std::size_t i = 0; i < queued.size(); ++i) {
    const std::size_t first = i < running.size() && running[i] > 0 ? running[i] : 1;
    replicas[i].admit(run_of(next, first), 0, kPrefill);
    next += static_cast<Token>(first);
    for (std::uint32_t k = 0; k < queued[i]; ++k) replicas[i].admit(run_of(next++, 1), 0, kPrefill);
    replicas[i].scrape(0, 0);
  }
  return replicas;
}

std::vector<std::size_t> all(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

TEST(GieFilterChain, LeastQueueBandIsMinToMinPlusRangeOverNWithIntegerDivision) {
  auto replicas = cluster({1, 2, 9});
  std::vector<std::size_t> out;
  GieFilterChain::least_queue(replicas, all(3), out);
  EXPECT_EQ(out, (std::vector<std::size_t>{0, 1}));  // [1, 1 + 8 / 3 = 3]
  auto wide = cluster({0, 2, 4, 9});
  GieFilterChain::least_queue(wide, all(4), out);
  EXPECT_EQ(out, (std::vector<std::size_t>{0, 1}));  // [0, 0 + 9 / 4 = 2]
}

TEST(GieFilterChain, LeastKvBandIsMinToMinPlusRangeOverN) {
  auto replicas = cluster({0, 0, 0}, {125, 250, 500});  // usage 0.125, 0.25, 0.5
  std::vector<std::size_t> out;
  GieFilterChain::least_kv(replicas, all(3), out);
  EXPECT_EQ(out, (std::vector<std::size_t>{0, 1}));  // [0.125, 0.125 + 0.375 / 3 = 0.25]
}

TEST(GieFilterChain, TheLowQueueFilterNarrowsTheBandsInput) {
  // Queues 3, 4, 30; replica 1 uses far less KV (0.005 against 0.103).
  auto replicas = cluster({3, 4, 30}, {100, 1, 1});
  // Threshold 10: only replicas 0 and 1 pass; their queue band is [3, 3 + 1/2 = 3]: replica 0.
  GieFilterChainParams p;
  p.queue_threshold = 10;
  GieFilterChain low(p, 1);
  EXPECT_EQ(low.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  EXPECT_TRUE(low.last_low_queue());
  // Threshold 100: all pass; the band [3, 3 + 27/3 = 12] keeps 0 and 1, and the KV band replica 1.
  p.queue_threshold = 100;
  GieFilterChain high(p, 1);
  EXPECT_EQ(high.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_EQ(high.last_remaining(), (std::vector<std::size_t>{1}));
}

TEST(GieFilterChain, WithNoReplicaBelowTheThresholdTheBandsRunOverAll) {
  auto replicas = cluster({5, 6, 40});  // usage 0.006, 0.007, 0.041
  GieFilterChainParams p;
  p.queue_threshold = 5;  // nobody strictly below 5
  GieFilterChain policy(p, 1);
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_FALSE(policy.last_low_queue());
  // Queue band over all: [5, 5 + 35/3 = 16]: 0 and 1; KV band [0.006, 0.0065]: replica 0.
  EXPECT_EQ(policy.last_remaining(), (std::vector<std::size_t>{0}));
}

TEST(GieFilterChain, TheFinalPickIsASeededUniformDraw) {
  auto replicas = cluster({0, 0, 0});
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    GieFilterChain a({}, seed), b({}, seed);
    const std::size_t r = a.choose(prompt_of(run_of(1, 8)), replicas, 0);
    EXPECT_EQ(r, b.choose(prompt_of(run_of(1, 8)), replicas, 0));
    EXPECT_EQ(a.last_remaining().size(), 3u);
    seen.insert(r);
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(GieFilterChain, ReadsTheLastScrapeNotTheEngine) {
  auto replicas = cluster({0, 0});
  for (Token k = 0; k < 5; ++k) replicas[0].admit(run_of(500'000 + k, 1), 0, kPrefill);  // after the scrape
  GieFilterChain policy({}, 1);
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_EQ(policy.last_remaining(), (std::vector<std::size_t>{0, 1}));
}

// The choice recomputed from scratch for every request on random scrapes:
// GIE's filter tree over the scraped queue and KV usage, then a draw from a
// generator seeded as the policy's. Metrics take few values (bands tie and
// narrow); the view counts scrapes, several requests fall between two
// scrapes, and one request in five sees a view without a count (the policy
// must then filter again).
void check_choice_against_model(std::size_t n, std::uint64_t seed) {
  GieFilterChainParams p;
  p.queue_threshold = 3;
  GieFilterChain policy(p, seed);
  Rng model_rng(mix_seed(seed, 0x6769656663ULL));  // the policy's stream ("giefc")
  auto replicas = make_replicas(n);
  std::uint64_t scrapes = 0;
  ClusterView counted(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  counted.set_scrape_count(&scrapes);
  const ClusterView plain(replicas);
  Rng rng(seed + 100);
  const auto band = [&](const std::vector<std::size_t>& in, auto metric) {
    auto min = metric(in.front()), max = min;
    for (const std::size_t r : in) {
      min = std::min(min, metric(r));
      max = std::max(max, metric(r));
    }
    const auto upper = min + (max - min) / static_cast<decltype(min)>(in.size());
    std::vector<std::size_t> out;
    for (const std::size_t r : in)
      if (metric(r) >= min && metric(r) <= upper) out.push_back(r);
    return out;
  };
  for (int step = 0; step < 400; ++step) {
    if (step % 4 == 0) {
      for (Replica& r : replicas) {
        EngineMetrics m;
        m.queue_length = static_cast<std::uint32_t>(rng.uniform_int(0, 4));
        m.kv_usage = static_cast<double>(rng.uniform_int(0, 3)) / 3;
        r.set_scraped(m);
      }
      ++scrapes;
    }
    const std::size_t chosen = policy.choose(prompt_of(run_of(1, 4)), step % 5 != 3 ? counted : plain, 0);

    std::vector<std::size_t> low, every;
    for (std::size_t r = 0; r < n; ++r) {
      every.push_back(r);
      if (replicas[r].scraped().queue_length < p.queue_threshold) low.push_back(r);
    }
    const auto queue = [&](std::size_t r) { return std::uint64_t{replicas[r].scraped().queue_length}; };
    const auto kv = [&](std::size_t r) { return replicas[r].scraped().kv_usage; };
    const std::vector<std::size_t> remaining = band(band(low.empty() ? every : low, queue), kv);
    const std::size_t expected =
        remaining.size() == 1 ? remaining.front() : remaining[static_cast<std::size_t>(model_rng.below(remaining.size()))];
    ASSERT_EQ(chosen, expected) << n << " replicas, step " << step;
  }
}

TEST(GieFilterChain, ChoiceIsTheFilterTreeOfTheLastScrapeAndASeededDraw) {
  check_choice_against_model(1, 1);
  check_choice_against_model(3, 2);
  check_choice_against_model(5, 3);
  check_choice_against_model(70, 4);
}

}  // namespace
}  // namespace prefixroute::gie_filter_chain_test
