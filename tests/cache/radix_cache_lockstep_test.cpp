// The run-based RadixCache against the token-level one it replaced
// (tests/support/token_radix_cache.h), driven by the same random operations:
// every answer (matches, insert results, path handles, evictions, sizes, the
// cached paths) must be the same. Prompts are pieces of a pool of runs built
// to reach every comparison path: the same run at the same offset (compared
// by identity), the same run at another offset, different runs with equal
// tokens (equal content must still match), and a small alphabet so different
// runs often agree on a few tokens by chance.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/base/random.h"
#include "prefixroute/cache/radix_cache.h"
#include "token_radix_cache.h"

namespace prefixroute::radix_cache_lockstep_test {
namespace {

using testsupport::TokenRadixCache;

struct Case {
  std::size_t capacity;
  std::uint32_t protect_after_hits;
  std::uint32_t alphabet;  // tokens are drawn from [0, alphabet)
  bool pins;               // mix in the simulator's pin / reserve pattern
};

class RunPool {
 public:
  RunPool(Rng& rng, std::uint32_t alphabet) : rng_(rng) {
    for (int i = 0; i < 24; ++i) {
      std::vector<Token> run(static_cast<std::size_t>(rng.uniform_int(1, 40)));
      for (Token& t : run) t = static_cast<Token>(rng.below(alphabet));
      runs_.push_back(store_.add(run));
      tokens_.push_back(run);
      // Every third run again under another id: equal content, different runs.
      if (i % 3 == 0) {
        runs_.push_back(store_.add(run));
        tokens_.push_back(run);
      }
    }
  }

  // A prompt of 1 - 4 slices of random runs (whole runs half of the time).
  PromptPieces prompt() {
    PromptPieces p;
    p.content = &store_;
    const auto slices = rng_.uniform_int(1, 4);
    for (std::uint64_t s = 0; s < slices; ++s) {
      const std::size_t r = static_cast<std::size_t>(rng_.below(runs_.size()));
      const auto length = static_cast<std::uint32_t>(tokens_[r].size());
      std::uint32_t offset = 0, n = length;
      if (rng_.below(2) == 0) {
        offset = static_cast<std::uint32_t>(rng_.below(length));
        n = static_cast<std::uint32_t>(rng_.uniform_int(1, length - offset));
      }
      p.push(Piece{runs_[r], offset, n});
    }
    return p;
  }

  const TokenStore& store() const { return store_; }

 private:
  Rng& rng_;
  TokenStore store_;
  std::vector<RunId> runs_;
  std::vector<std::vector<Token>> tokens_;
};

void run_lockstep(const Case& c, std::uint64_t seed, int operations) {
  Rng rng(seed);
  RunPool pool(rng, c.alphabet);
  RadixCache runs(c.capacity, c.protect_after_hits, &pool.store());
  TokenRadixCache tokens(c.capacity, c.protect_after_hits);
  std::vector<RadixCache::PathHandle> pinned;
  std::vector<std::size_t> reserved;
  std::vector<Token> flat;
  for (int op = 0; op < operations; ++op) {
    SCOPED_TRACE("operation " + std::to_string(op));
    const PromptPieces prompt = pool.prompt();
    prompt.view().materialize(flat);
    const auto choice = rng.below(10);
    if (choice < 3) {
      ASSERT_EQ(runs.match(prompt), tokens.match(flat));
    } else if (choice < 8 || !c.pins) {
      // Sometimes with the known cached length a router's index would give.
      const std::size_t known = rng.below(2) == 0 ? tokens.match(flat) : 0;
      const auto a = runs.insert(prompt, known);
      const auto b = tokens.insert(flat, known);
      ASSERT_EQ(a.cached_tokens, b.cached_tokens);
      ASSERT_EQ(a.inserted_tokens, b.inserted_tokens);
      ASSERT_EQ(a.evicted_tokens, b.evicted_tokens);
      ASSERT_EQ(a.path, b.path);
      if (c.pins && a.path != 0 && rng.below(3) == 0) {
        runs.pin(a.path);
        tokens.pin(b.path);
        pinned.push_back(a.path);
        const std::size_t out = static_cast<std::size_t>(rng.below(20));
        runs.reserve(out);
        tokens.reserve(out);
        reserved.push_back(out);
      }
    } else if (!pinned.empty()) {
      const std::size_t k = static_cast<std::size_t>(rng.below(pinned.size()));
      runs.unpin(pinned[k]);
      tokens.unpin(pinned[k]);
      runs.release(reserved[k]);
      tokens.release(reserved[k]);
      pinned.erase(pinned.begin() + static_cast<std::ptrdiff_t>(k));
      reserved.erase(reserved.begin() + static_cast<std::ptrdiff_t>(k));
    }
    ASSERT_EQ(runs.size(), tokens.size());
    ASSERT_EQ(runs.used(), tokens.used());
    ASSERT_EQ(runs.node_count(), tokens.node_count());
    ASSERT_EQ(runs.evicted_total(), tokens.evicted_total());
    if (op % 97 == 0) {
      ASSERT_EQ(runs.leaf_paths(), tokens.leaf_paths());
      ASSERT_EQ(runs.check_invariants(), "");
    }
  }
  EXPECT_EQ(runs.leaf_paths(), tokens.leaf_paths());
  EXPECT_EQ(runs.check_invariants(), "");
}

// Release builds run every case in full; sanitizer builds a quarter of it.
constexpr int kOperations = PREFIXROUTE_TESTS_SANITIZED ? 1500 : 6000;

TEST(RadixCacheLockstepWithTokens, SmallAlphabetTightBudget) { run_lockstep({60, 2, 3, false}, 1, kOperations); }
TEST(RadixCacheLockstepWithTokens, SmallAlphabetNoProtection) { run_lockstep({120, 0, 2, false}, 2, kOperations); }
TEST(RadixCacheLockstepWithTokens, LargerAlphabetRoomyBudget) { run_lockstep({400, 4, 50, false}, 3, kOperations); }
TEST(RadixCacheLockstepWithTokens, PinsAndReservations) { run_lockstep({80, 3, 3, true}, 4, kOperations); }
TEST(RadixCacheLockstepWithTokens, PinsAndReservationsRoomy) { run_lockstep({300, 1, 8, true}, 5, kOperations); }
TEST(RadixCacheLockstepWithTokens, NoBudget) { run_lockstep({0, 2, 3, false}, 6, kOperations / 4); }

// The same stretch of the same run is equal without reading it, and equal
// tokens in different runs still match (so identity is only a shortcut).
TEST(RunBasedCache, EqualContentInDifferentRunsMatchesByTokens) {
  TokenStore store;
  RadixCache cache(100, 0, &store);
  const std::vector<Token> text{5, 6, 7, 8};
  cache.insert(store.prompt(text));
  EXPECT_EQ(cache.match(store.prompt(text)), 4u);  // another run, the same tokens
  EXPECT_EQ(cache.match(store.prompt(std::vector<Token>{5, 6, 9})), 2u);
  const SpanContent outside(text);
  EXPECT_EQ(cache.match(outside.prompt()), 4u);  // another content altogether
}

TEST(RunBasedCache, KeepsPiecesNotTokens) {
  TokenStore store;
  RadixCache cache(10'000, 0, &store);
  std::vector<Token> system(2000);
  for (Token i = 0; i < 2000; ++i) system[i] = i;
  const RunId shared = store.add(system);
  PromptPieces a, b;
  a.content = b.content = &store;
  a.push({shared, 0, 2000});
  a.push({store.add(std::vector<Token>{90001, 90002}), 0, 2});
  b.push({shared, 0, 2000});
  b.push({store.add(std::vector<Token>{90003}), 0, 1});
  cache.insert(a);
  const auto r = cache.insert(b);
  EXPECT_EQ(r.cached_tokens, 2000u);
  EXPECT_EQ(cache.size(), 2003u);
  // The shared node's edge is one piece of the shared run, not 2000 tokens.
  PromptPieces prefix;
  prefix.content = &store;
  prefix.push({shared, 0, 2000});
  const Prompt upper = cache.edge(cache.insert(prefix).path);
  EXPECT_EQ(upper.size(), 2000u);
  ASSERT_EQ(upper.pieces.size(), 1u);
  EXPECT_EQ(upper.pieces[0], (Piece{shared, 0, 2000}));
  EXPECT_EQ(cache.check_invariants(), "");
}

}  // namespace
}  // namespace prefixroute::radix_cache_lockstep_test
