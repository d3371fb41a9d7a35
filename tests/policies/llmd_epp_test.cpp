// LlmdEpp: the chained block hashes, the approximate prefix index (LRU per
// replica, max_prefix_blocks cap, the walk), the queue and KV-usage scorers on
// crafted scraped metrics, the weighted sum and the seeded tie shuffle.
#include "prefixroute/policies/llmd_epp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/base/random.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::llmd_epp_test {
namespace {

using testsupport::concat;
using testsupport::make_replicas;  // caches of 1000 tokens unless given
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::Tokens;
using testsupport::prompt_of;
using Hashes = std::vector<std::uint64_t>;

const PrefillModel kPrefill{1000.0};  // one token per millisecond

// Only the prefix scorer counts unless weights say otherwise.
LlmdEppParams prefix_only(std::uint32_t block, std::uint64_t lru = 1000, std::uint32_t max_blocks = 256) {
  LlmdEppParams p;
  p.block_size = block;
  p.lru_blocks_per_replica = lru;
  p.max_prefix_blocks = max_blocks;
  p.prefix_weight = 1;
  p.queue_weight = 0;
  p.kv_weight = 0;
  return p;
}

Hashes hashes_of(const Tokens& t, std::uint32_t block, std::uint32_t max_blocks = 256) {
  Hashes h;
  LlmdEpp::block_hashes(t, block, max_blocks, h);
  return h;
}

TEST(LlmdEpp, BlockHashesAreChainedOverFullBlocks) {
  const Tokens a = run_of(1, 10);                               // 2 full blocks of 4 (+2 tokens)
  EXPECT_EQ(hashes_of(a, 4).size(), 2u);
  const Tokens b = concat(run_of(1, 8), run_of(500, 4));       // shares blocks 0, 1
  const Tokens c = concat(concat(run_of(1, 4), run_of(900, 4)), run_of(9, 4));  // tokens 9..12 in block 2, as in `ha`
  const Hashes hb = hashes_of(b, 4);
  const Hashes ha = hashes_of(run_of(1, 12), 4);
  ASSERT_EQ(hb.size(), 3u);
  EXPECT_EQ(hb[0], ha[0]);
  EXPECT_EQ(hb[1], ha[1]);
  EXPECT_NE(hb[2], ha[2]);
  // c differs from `ha` in block 1 only, yet its block 2 hash differs too:
  // a block's hash names the whole prefix up to it.
  const Hashes hc = hashes_of(c, 4);
  EXPECT_EQ(hc[0], ha[0]);
  EXPECT_NE(hc[1], ha[1]);
  EXPECT_NE(hc[2], ha[2]);
  // The same tokens in another block position hash differently.
  EXPECT_NE(hashes_of(run_of(5, 4), 4)[0], ha[1]);
}

TEST(LlmdEpp, AtMostMaxPrefixBlocksAreHashed) {
  EXPECT_EQ(hashes_of(run_of(1, 100), 4, 5).size(), 5u);
  EXPECT_EQ(hashes_of(run_of(1, 100), 4, 5), Hashes(hashes_of(run_of(1, 20), 4)));
  EXPECT_TRUE(hashes_of(run_of(1, 3), 4).empty());  // no full block
}

TEST(LlmdEpp, PrefixScoreIsMatchedOverPromptBlocks) {
  auto replicas = make_replicas(3);
  LlmdEpp policy(prefix_only(4), 1);
  const Tokens shared = run_of(1, 12);                     // 3 blocks
  record_routed(policy, 0, 1, concat(shared, run_of(100, 8)));         // replica 1 holds the 3 shared blocks (+2)
  record_routed(policy, 0, 2, concat(run_of(1, 4), run_of(300, 8)));   // replica 2 holds block 0 only
  const Tokens prompt = concat(shared, run_of(700, 8));     // 5 blocks, the first 3 shared
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_prefix_scores(), (std::vector<double>{0.0, 3.0 / 5.0, 1.0 / 5.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 12);  // matched blocks x block size
}

TEST(LlmdEpp, RoutingAddsThePromptBlocksToTheChosenReplicaOnly) {
  auto replicas = make_replicas(2);
  LlmdEpp policy(prefix_only(4), 1);
  const Tokens prompt = run_of(1, 14);  // 3 full blocks
  const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);
  policy.on_routed(RoutedRequest{0, chosen, prompt_of(prompt), 0, 0});
  EXPECT_EQ(policy.index_size(chosen), 3u);
  EXPECT_EQ(policy.index_size(1 - chosen), 0u);
  for (std::uint64_t h : hashes_of(prompt, 4)) EXPECT_TRUE(policy.index_contains(chosen, h));
  // The same prompt again: a full match on the chosen replica.
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), chosen);
  EXPECT_EQ(policy.last_prefix_scores()[chosen], 1.0);
}

TEST(LlmdEpp, IndexIsNotToldAboutEngineEvictions) {
  // The engine's cache is tiny and evicts the prompt; the router's index keeps it.
  auto replicas = make_replicas(2, /*cache_tokens=*/4);
  LlmdEpp policy(prefix_only(4), 1);
  const Tokens prompt = run_of(1, 16);
  record_routed(policy, 0, 0, prompt);
  replicas[0].admit(prompt, 0, kPrefill);
  replicas[0].admit(run_of(900, 16), 0, kPrefill);
  ASSERT_EQ(replicas[0].cache().match(prompt), 0u);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_prefix_scores()[0], 1.0);
}

TEST(LlmdEpp, LruKeepsTheMostRecentBlocksUpToCapacity) {
  LlmdEpp policy(prefix_only(4, /*lru=*/4), 1);
  const Tokens a = run_of(100, 8), b = run_of(200, 8), c = run_of(300, 8);  // 2 blocks each
  record_routed(policy, 0, 0, a);
  record_routed(policy, 0, 0, b);
  EXPECT_EQ(policy.index_size(0), 4u);
  record_routed(policy, 0, 0, a);  // refreshes a's blocks: b's are now the least recent
  record_routed(policy, 0, 0, c);  // evicts b's two blocks
  EXPECT_EQ(policy.index_size(0), 4u);
  for (std::uint64_t h : hashes_of(a, 4)) EXPECT_TRUE(policy.index_contains(0, h));
  for (std::uint64_t h : hashes_of(c, 4)) EXPECT_TRUE(policy.index_contains(0, h));
  for (std::uint64_t h : hashes_of(b, 4)) EXPECT_FALSE(policy.index_contains(0, h));
}

TEST(LlmdEpp, WalkStopsAtTheFirstBlockNoReplicaHolds) {
  // Capacity 3 and a 5-block prompt added in order: blocks 0 and 1 are
  // evicted by blocks 3 and 4. The walk finds block 0 nowhere and stops, so
  // the blocks 2..4 still held count for nothing.
  auto replicas = make_replicas(2);
  LlmdEpp policy(prefix_only(4, /*lru=*/3), 1);
  const Tokens prompt = run_of(1, 20);
  record_routed(policy, 0, 1, prompt);
  const Hashes h = hashes_of(prompt, 4);
  EXPECT_FALSE(policy.index_contains(1, h[0]));
  EXPECT_TRUE(policy.index_contains(1, h[4]));
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_prefix_scores(), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

TEST(LlmdEpp, AWalkedBlockCountsForEveryReplicaHoldingIt) {
  // LRU capacity 2. Replica 0 was sent the whole 3-block prompt and kept
  // blocks 1 and 2; replica 1 was sent block 0 alone. The walk goes on while
  // any replica holds the block, and each replica counts the walked blocks it
  // holds (not only an unbroken run of its own): 2 of 3 and 1 of 3.
  auto replicas = make_replicas(2);
  LlmdEpp policy(prefix_only(4, /*lru=*/2), 1);
  const Tokens prompt = run_of(1, 12);
  record_routed(policy, 0, 0, prompt);
  record_routed(policy, 0, 1, Tokens(prompt.begin(), prompt.begin() + 4));
  policy.choose(prompt_of(prompt), replicas, 0);
  EXPECT_EQ(policy.last_prefix_scores(), (std::vector<double>{2.0 / 3.0, 1.0 / 3.0}));
}

TEST(LlmdEpp, MaxPrefixBlocksCapsTheScoredPrefix) {
  auto replicas = make_replicas(2);
  LlmdEpp policy(prefix_only(4, 1000, /*max_blocks=*/2), 1);
  record_routed(policy, 0, 1, concat(run_of(1, 8), run_of(100, 40)));
  // Shares only the first 2 blocks with what replica 1 was sent -- all that is considered.
  const Tokens prompt = concat(run_of(1, 8), run_of(500, 40));
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_prefix_scores()[1], 1.0);
  EXPECT_EQ(policy.predicted_cached_tokens(), 8);
  EXPECT_EQ(policy.index_size(1), 2u);  // only considered blocks are indexed
}

// Replica i gets `queued[i] + 1` requests of 10 unique tokens admitted at 0:
// the first starts at once, the rest wait, so a scrape at 0 sees queued[i].
std::vector<Replica> with_queues(const std::vector<std::uint32_t>& queued, std::size_t cache_tokens = 1000) {
  auto replicas = make_replicas(queued.size(), cache_tokens);
  Token next = 10'000;
  for (std::size_t i = 0; i < queued.size(); ++i) {
    for (std::uint32_t k = 0; k <= queued[i]; ++k) {
      replicas[i].admit(run_of(next, 10), 0, kPrefill);
      next += 10;
    }
    replicas[i].scrape(0, 0);
  }
  return replicas;
}

TEST(LlmdEpp, QueueScoreIsMinMaxNormalisedScrapedQueueLength) {
  auto replicas = with_queues({2, 0, 1});
  ASSERT_EQ(replicas[0].scraped().queue_length, 2u);
  LlmdEppParams p = prefix_only(4);
  p.prefix_weight = 0;
  p.queue_weight = 1;
  LlmdEpp policy(p, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_EQ(policy.last_queue_scores(), (std::vector<double>{0.0, 1.0, 0.5}));
}

TEST(LlmdEpp, EqualQueuesScoreOneForAll) {
  auto replicas = with_queues({3, 3, 3});
  LlmdEpp policy(prefix_only(4), 1);
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_EQ(policy.last_queue_scores(), (std::vector<double>{1.0, 1.0, 1.0}));
}

TEST(LlmdEpp, QueueScoreReadsTheLastScrapeNotTheEngine) {
  auto replicas = with_queues({0, 0});
  replicas[0].admit(run_of(50'000, 10), 0, kPrefill);  // queued after the scrape: not seen
  replicas[0].admit(run_of(60'000, 10), 0, kPrefill);
  LlmdEpp policy(prefix_only(4), 1);
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_EQ(policy.last_queue_scores(), (std::vector<double>{1.0, 1.0}));
}

TEST(LlmdEpp, KvScoreIsOneMinusScrapedUsage) {
  // Cache of 1000 tokens; 3, 1 and 2 admitted 10-token prompts: usage 0.03, 0.01, 0.02.
  auto replicas = with_queues({2, 0, 1});
  LlmdEppParams p = prefix_only(4);
  p.prefix_weight = 0;
  p.kv_weight = 1;
  LlmdEpp policy(p, 1);
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  const std::vector<double> expected = {1.0 - 30.0 / 1000.0, 1.0 - 10.0 / 1000.0, 1.0 - 20.0 / 1000.0};
  EXPECT_EQ(policy.last_kv_scores(), expected);
}

TEST(LlmdEpp, KvScoreIsClampedWhenPinsOvercommitTheCache) {
  auto replicas = make_replicas(2, /*cache_tokens=*/100);
  // 80 pinned prompt tokens plus 50 reserved outputs: usage 1.3.
  replicas[0].admit_with_decode(prompt_of(run_of(1000, 80)), 0, kPrefill, 50, kTicksPerMillisecond);
  replicas[0].scrape(0, 0);
  replicas[1].scrape(0, 0);
  ASSERT_GT(replicas[0].scraped().kv_usage, 1.0);
  LlmdEpp policy(prefix_only(4), 1);
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_EQ(policy.last_kv_scores(), (std::vector<double>{0.0, 1.0}));
}

TEST(LlmdEpp, ScoreIsTheWeightedSumAndTheHighestWins) {
  // Replica 0 holds the prompt (prefix 1) but has the longest queue and most
  // usage; replica 1 is idle. Default weights 3, 2, 2.
  auto replicas = with_queues({2, 0});
  LlmdEppParams p;  // defaults
  p.block_size = 4;
  LlmdEpp policy(p, 1);
  const Tokens prompt = run_of(1, 16);
  record_routed(policy, 0, 0, prompt);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  const double s0 = 3 * 1.0 + 2 * 0.0 + 2 * (1.0 - 30.0 / 1000.0);
  const double s1 = 3 * 0.0 + 2 * 1.0 + 2 * (1.0 - 10.0 / 1000.0);
  EXPECT_EQ(policy.last_scores(), (std::vector<double>{s0, s1}));
  // Half the prompt matched: 3 x 0.5 + 1.94 < 2 + 1.98, so the idle replica wins.
  const Tokens half = concat(run_of(1, 8), run_of(900, 8));
  EXPECT_EQ(policy.choose(prompt_of(half), replicas, 0), 1u);
}

TEST(LlmdEpp, TiesGoToASeededShuffle) {
  auto replicas = make_replicas(4);  // identical: every score ties
  const Tokens prompt = run_of(1, 16);
  auto picks = [&](std::uint64_t seed) {
    LlmdEpp policy(prefix_only(4), seed);
    std::vector<std::size_t> out;
    for (int k = 0; k < 80; ++k) out.push_back(policy.choose(prompt_of(prompt), replicas, 0));
    return out;
  };
  const auto a = picks(5);
  EXPECT_EQ(a, picks(5));
  EXPECT_NE(a, picks(6));
  EXPECT_EQ(std::set<std::size_t>(a.begin(), a.end()).size(), 4u);  // every replica gets some
}

// A trivially correct model of the index: per replica, a recency-ordered list
// of hashes (most recent last), and the walk computed from it directly.
struct ModelIndex {
  std::vector<std::vector<std::uint64_t>> lru;
  std::size_t capacity;

  void add(std::size_t replica, const Hashes& hashes) {
    auto& l = lru[replica];
    for (std::uint64_t h : hashes) {
      const auto it = std::find(l.begin(), l.end(), h);
      if (it != l.end()) l.erase(it);
      l.push_back(h);
      if (l.size() > capacity) l.erase(l.begin());
    }
  }
  bool holds(std::size_t replica, std::uint64_t h) const {
    return std::find(lru[replica].begin(), lru[replica].end(), h) != lru[replica].end();
  }
  std::vector<double> prefix_scores(const Hashes& hashes) const {
    std::vector<double> matched(lru.size(), 0);
    for (std::uint64_t h : hashes) {
      bool any = false;
      for (std::size_t r = 0; r < lru.size(); ++r)
        if (holds(r, h)) {
          ++matched[r];
          any = true;
        }
      if (!any) break;
    }
    for (double& m : matched) m = hashes.empty() ? 0.0 : m / static_cast<double>(hashes.size());
    return matched;
  }
};

// Random prompts from a few shared stems, routed to random replicas of a
// small-capacity index; every answer is compared with the model. 70 replicas
// exercise the holder masks past the first 64.
void check_index_against_model(std::size_t n, std::uint64_t capacity, std::uint64_t seed) {
  const std::uint32_t block = 2;
  LlmdEpp policy(prefix_only(block, capacity, 12), 1);
  ModelIndex model{std::vector<std::vector<std::uint64_t>>(n), capacity};
  auto replicas = make_replicas(n);
  Rng rng(seed);
  std::vector<Hashes> seen;
  for (int step = 0; step < 1500; ++step) {
    const Token stem = static_cast<Token>(rng.uniform_int(0, 5)) * 1000;
    const std::size_t shared = rng.uniform_int(0, 12);
    Tokens prompt = run_of(stem, shared);
    const Tokens tail = run_of(static_cast<Token>(100'000 + rng.uniform_int(0, 40) * 50), rng.uniform_int(0, 14));
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    const Hashes h = hashes_of(prompt, block, 12);
    policy.choose(prompt_of(prompt), replicas, 0);
    ASSERT_EQ(policy.last_prefix_scores(), model.prefix_scores(h)) << "step " << step;
    const std::size_t replica = rng.uniform_int(0, n - 1);
    policy.on_routed(RoutedRequest{static_cast<std::uint64_t>(step), replica, prompt_of(prompt), 0, 0});
    model.add(replica, h);
    seen.push_back(h);
    ASSERT_EQ(policy.index_size(replica), model.lru[replica].size()) << "step " << step;
    if (step % 50 != 0) continue;
    for (const Hashes& old : seen)
      for (std::uint64_t x : old)
        for (std::size_t r = 0; r < n; ++r) {
          ASSERT_EQ(policy.index_contains(r, x), model.holds(r, x)) << "step " << step;
        }
  }
}

TEST(LlmdEpp, IndexAgreesWithASimpleLruModel) {
  check_index_against_model(3, 5, 1);
  check_index_against_model(3, 1, 2);
  check_index_against_model(4, 40, 3);
  check_index_against_model(70, 6, 4);
}

// The choice against the published rule computed from scratch: every
// replica's weighted score (prefix from the model index, queue and KV from
// the scrape, the session cookie's weight), a Fisher-Yates shuffle with a
// generator seeded as the policy's, the first highest score in that order.
// Metrics take few values so scores often tie (the shuffle decides), and
// often do not (the policy then takes the shuffle's draws without its
// permutation); the view counts scrapes, or (one step in five) has no count.
void check_choice_against_model(std::size_t n, std::uint64_t seed) {
  const std::uint32_t block = 2;
  LlmdEppParams p = prefix_only(block, 8, 12);
  p.queue_weight = 2;
  p.kv_weight = 2;
  p.session_weight = 1.5;
  LlmdEpp policy(p, seed);
  Rng model_rng(mix_seed(seed, 0x6c6c6d64ULL));  // the policy's stream ("llmd")
  ModelIndex model{std::vector<std::vector<std::uint64_t>>(n), 8};
  std::vector<std::int64_t> cookie(4, -1);
  auto replicas = make_replicas(n);
  std::uint64_t scrapes = 0;
  ClusterView counted(std::span<const Replica>(replicas), nullptr, CacheView::None, false, nullptr);
  counted.set_scrape_count(&scrapes);
  const ClusterView plain(replicas);
  Rng rng(seed + 100);
  for (int step = 0; step < 600; ++step) {
    if (step % 7 == 0) {  // a scrape: few distinct values, so scores tie
      const bool uniform = rng.uniform_int(0, 2) == 0;
      for (Replica& r : replicas) {
        EngineMetrics m;
        m.queue_length = uniform ? 1 : static_cast<std::uint32_t>(rng.uniform_int(0, 2));
        m.kv_usage = uniform ? 0.5 : static_cast<double>(rng.uniform_int(0, 2)) / 2;
        r.set_scraped(m);
      }
      ++scrapes;
    }
    const Token stem = static_cast<Token>(rng.uniform_int(0, 5)) * 1000;
    Tokens prompt = run_of(stem, rng.uniform_int(0, 12));
    const Tokens tail = run_of(static_cast<Token>(100'000 + rng.uniform_int(0, 40) * 50), rng.uniform_int(0, 14));
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    const std::uint64_t session = rng.uniform_int(0, 3);
    const PromptPieces pieces = prompt_of(prompt);
    const std::size_t chosen =
        policy.choose(RouteRequest(pieces, static_cast<std::uint64_t>(step), session, 0, 0),
                      step % 5 != 3 ? counted : plain, 0);

    const std::vector<double> prefix = model.prefix_scores(hashes_of(prompt, block, 12));
    std::uint32_t min_q = replicas[0].scraped().queue_length, max_q = min_q;
    for (const Replica& r : replicas) {
      min_q = std::min(min_q, r.scraped().queue_length);
      max_q = std::max(max_q, r.scraped().queue_length);
    }
    std::vector<double> scores(n);
    for (std::size_t r = 0; r < n; ++r) {
      const EngineMetrics& m = replicas[r].scraped();
      const double queue = max_q == min_q ? 1.0 : static_cast<double>(max_q - m.queue_length) / (max_q - min_q);
      scores[r] = p.prefix_weight * prefix[r] + p.queue_weight * queue + p.kv_weight * (1.0 - m.kv_usage);
    }
    if (cookie[session] >= 0) scores[static_cast<std::size_t>(cookie[session])] += p.session_weight;
    std::vector<std::size_t> order(n);
    for (std::size_t r = 0; r < n; ++r) order[r] = r;
    for (std::size_t i = n - 1; i > 0; --i) std::swap(order[i], order[model_rng.uniform_int(0, i)]);
    std::size_t expected = order[0];
    for (std::size_t k = 1; k < n; ++k)
      if (scores[order[k]] > scores[expected]) expected = order[k];
    ASSERT_EQ(policy.last_scores(), scores) << "step " << step;
    ASSERT_EQ(chosen, expected) << "step " << step;

    policy.on_routed(RoutedRequest{static_cast<std::uint64_t>(step), chosen, pieces, 0, 0, session, 0});
    policy.on_first_token(static_cast<std::uint64_t>(step), chosen, 0);
    model.add(chosen, hashes_of(prompt, block, 12));
    cookie[session] = static_cast<std::int64_t>(chosen);
  }
}

TEST(LlmdEpp, ChoiceIsTheFirstHighestScoreInTheSeededShuffle) {
  check_choice_against_model(1, 1);
  check_choice_against_model(3, 2);
  check_choice_against_model(5, 3);
  check_choice_against_model(70, 4);
}

// A prompt of several pieces (a shared stem, then turns) hashes as its
// tokens do, however its pieces recur or are cut, memo hits included.
TEST(LlmdEpp, PromptsOfPiecesHashAsTheirTokens) {
  for (const std::uint32_t block : {1u, 3u, 16u}) {
    LlmdEpp policy(prefix_only(block, 1000, 40), 1);
    auto replicas = make_replicas(2);
    TokenStore store;
    const RunId stem = store.add(run_of(1, 50));
    const RunId other = store.add(run_of(5000, 50));
    Rng rng(block);
    for (int step = 0; step < 300; ++step) {
      PromptPieces prompt;
      prompt.content = &store;
      const auto pieces = rng.uniform_int(1, 4);
      for (std::uint64_t k = 0; k < pieces; ++k) {
        const RunId run = rng.uniform_int(0, 3) == 0 ? other : stem;
        const auto offset = static_cast<std::uint32_t>(rng.uniform_int(0, 10));
        prompt.push(Piece{run, offset, static_cast<std::uint32_t>(rng.uniform_int(1, 40))});
      }
      prompt.length = rng.uniform_int(0, 1) == 0 ? prompt.length : rng.uniform_int(0, prompt.length);
      policy.choose(prompt.view(), replicas, 0);
      Tokens tokens;
      prompt.view().materialize(tokens);
      ASSERT_EQ(policy.last_block_hashes(), hashes_of(tokens, block, 40)) << "block " << block << " step " << step;
    }
  }
}

TEST(LlmdEpp, FewerReplicasThanTheIndexKnowsAreScoredSafely) {
  LlmdEpp policy(prefix_only(4), 1);
  const Tokens prompt = run_of(1, 16);
  record_routed(policy, 0, 5, prompt);
  record_routed(policy, 0, 1, prompt);
  auto replicas = make_replicas(3);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 1u);
  EXPECT_EQ(policy.last_prefix_scores(), (std::vector<double>{0.0, 1.0, 0.0}));
}

LlmdEppParams with_session(double weight) {
  LlmdEppParams p = prefix_only(4);
  p.prefix_weight = 0;
  p.session_weight = weight;
  return p;
}

RouteRequest of_session(const PromptPieces& pieces, std::uint64_t id, std::uint64_t session) {
  return RouteRequest(pieces, id, session, 0, 0);
}

TEST(LlmdEpp, SessionScorerAddsItsWeightToTheReplicaOfTheSessionsLastResponse) {
  auto replicas = make_replicas(3);
  LlmdEpp policy(with_session(5), 1);
  const PromptPieces prompt = prompt_of(run_of(1, 8));
  policy.on_routed(RoutedRequest{1, 2, prompt, 0, 0, /*session=*/7, 0});
  policy.on_first_token(1, 2, 10);  // the response names replica 2
  EXPECT_EQ(policy.session_cookie(7), 2);
  EXPECT_EQ(policy.choose(of_session(prompt, 2, 7), replicas, 20), 2u);
  EXPECT_EQ(policy.last_scores(), (std::vector<double>{0.0, 0.0, 5.0}));
  policy.choose(of_session(prompt, 3, 8), replicas, 20);  // another session: no cookie
  EXPECT_EQ(policy.last_scores(), (std::vector<double>{0.0, 0.0, 0.0}));
}

TEST(LlmdEpp, TheSessionCookieIsSetByTheResponseNotByTheDispatch) {
  LlmdEpp policy(with_session(5), 1);
  const PromptPieces prompt = prompt_of(run_of(1, 8));
  policy.on_routed(RoutedRequest{1, 2, prompt, 0, 0, 7, 0});
  EXPECT_EQ(policy.session_cookie(7), -1);  // no response yet
  policy.on_routed(RoutedRequest{2, 0, prompt, 0, 0, 7, 1});
  policy.on_first_token(2, 0, 5);
  policy.on_first_token(1, 2, 9);  // the later response sets it last
  EXPECT_EQ(policy.session_cookie(7), 2);
}

TEST(LlmdEpp, SessionScorerIsOffByDefault) {
  EXPECT_EQ(LlmdEppParams{}.session_weight, 0.0);
  auto replicas = make_replicas(2);
  LlmdEpp policy(LlmdEppParams{}, 1);
  const PromptPieces prompt = prompt_of(run_of(1, 8));
  policy.on_routed(RoutedRequest{1, 1, prompt, 0, 0, 7, 0});
  policy.on_first_token(1, 1, 10);
  EXPECT_EQ(policy.session_cookie(7), -1);  // nothing remembered
}

TEST(LlmdEpp, RegisteredWithItsScenarioParameters) {
  Scenario s = Scenario::reference();
  set_number(s, "llmd_epp.max_prefix_blocks", 7);
  auto policy = make_policy("llmd_epp", s.policy_params, policy_context(s));
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->name(), "llmd_epp");
  EXPECT_EQ(static_cast<LlmdEpp&>(*policy).params().max_prefix_blocks, 7u);
}

TEST(LlmdEpp, SimulationIsDeterministicAndPredicts) {
  Scenario s = Scenario::reference();
  s.workload.requests = 400;
  const Workload w = generate_workload(s.workload, s.seed);
  auto run = [&] {
    auto policy = make_policy("llmd_epp", s.policy_params, policy_context(s));
    return simulate(w, s.cluster, *policy, {}, 4096, s.router);
  };
  const SimulationRun a = run(), b = run();
  EXPECT_EQ(a.replica_of, b.replica_of);
  EXPECT_EQ(a.predicted_prompt_tokens, w.total_prompt_tokens());  // predicts on every request
  EXPECT_GT(a.predicted_cached_tokens, 0u);
}

}  // namespace
}  // namespace prefixroute::llmd_epp_test
