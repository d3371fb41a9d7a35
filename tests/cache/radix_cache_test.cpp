// RadixCache: the specification in radix_cache.h, one behaviour per test, then
// a seeded lockstep test against an independent model of the eviction rule.
#include "prefixroute/cache/radix_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "prefixroute/base/random.h"
#include "lockstep_pins.h"
#include "reference_radix_cache.h"
#include "tokens.h"

namespace prefixroute::radix_cache_test {
namespace {

using reference::brute_force_match;
using reference::brute_force_size;
using reference::LockstepPins;
using reference::Paths;
using reference::ReferenceRadixCache;
using reference::Tokens;

constexpr std::uint32_t kNoProtection = 0;

// ---------------------------------------------------------------------------
// match()

// insert(tokens, known_cached) skips re-reading the known prefix's edges: it
// must do exactly what insert(tokens) does, for any known length up to the
// match (the simulator passes the router's match; 0 and shorter ones too).
TEST(RadixCacheInsert, AKnownCachedPrefixChangesNothing) {
  Rng rng(5);
  RadixCache told(600, 2), untold(600, 2);
  for (int step = 0; step < 3000; ++step) {
    // Prompts share prefixes: a few families, cut and extended at random.
    const Token family = static_cast<Token>(rng.below(6));
    const std::size_t shared = rng.below(120);
    std::vector<Token> prompt = testsupport::run_of(family * 1000, shared);
    const std::size_t own = rng.below(40);
    for (std::size_t i = 0; i < own; ++i) prompt.push_back(static_cast<Token>(100000 + rng.below(50)));
    const std::size_t matched = told.match(prompt);
    ASSERT_EQ(matched, untold.match(prompt));
    const std::size_t known = step % 3 == 0 ? matched : step % 3 == 1 ? rng.below(matched + 1) : 0;
    const RadixCache::InsertResult a = told.insert(testsupport::prompt_of(prompt), known);
    const RadixCache::InsertResult b = untold.insert(prompt);
    ASSERT_EQ(a.cached_tokens, b.cached_tokens) << "step " << step;
    ASSERT_EQ(a.inserted_tokens, b.inserted_tokens) << "step " << step;
    ASSERT_EQ(a.evicted_tokens, b.evicted_tokens) << "step " << step;
    ASSERT_EQ(a.path, b.path) << "step " << step;
    ASSERT_EQ(told.check_invariants(), "");
  }
  EXPECT_EQ(told.leaf_paths(), untold.leaf_paths());
  EXPECT_EQ(told.size(), untold.size());
}

TEST(RadixCacheMatch, EmptyCacheMatchesNothing) {
  const RadixCache cache(100);
  EXPECT_EQ(cache.match(Tokens{1, 2, 3}), 0u);
  EXPECT_EQ(cache.match(Tokens{}), 0u);
}

TEST(RadixCacheMatch, FullPathMatchesItsWholeLength) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(cache.match(Tokens{1, 2, 3, 4}), 4u);
}

TEST(RadixCacheMatch, PromptExtendingACachedPathMatchesThePath) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(cache.match(Tokens{1, 2, 3, 4, 5, 6}), 4u);
}

TEST(RadixCacheMatch, DivergenceInsideAnEdgeCountsThePartialEdge) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(cache.match(Tokens{1, 2, 9}), 2u);
  EXPECT_EQ(cache.match(Tokens{1, 9}), 1u);
}

TEST(RadixCacheMatch, PromptShorterThanTheCachedPathMatchesEntirely) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(cache.match(Tokens{1, 2}), 2u);
}

TEST(RadixCacheMatch, DifferentFirstTokenMatchesNothing) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(cache.match(Tokens{2, 1}), 0u);
  EXPECT_EQ(cache.match(Tokens{}), 0u);
}

TEST(RadixCacheMatch, FollowsTheBranchOfTheDivergingToken) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  cache.insert(Tokens{1, 2, 9, 9, 9});
  EXPECT_EQ(cache.match(Tokens{1, 2, 9, 9, 7}), 4u);
  EXPECT_EQ(cache.match(Tokens{1, 2, 3, 7}), 3u);
  EXPECT_EQ(cache.match(Tokens{1, 2, 5}), 2u);
}

// ---------------------------------------------------------------------------
// insert(): structure and reported counts

TEST(RadixCacheInsert, FirstInsertCachesThePromptAsOneLeaf) {
  RadixCache cache(100);
  const auto r = cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(r.cached_tokens, 0u);
  EXPECT_EQ(r.inserted_tokens, 4u);
  EXPECT_EQ(r.evicted_tokens, 0u);
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.node_count(), 1u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, DivergenceInsideAnEdgeSplitsIt) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  const auto r = cache.insert(Tokens{1, 2, 9});
  EXPECT_EQ(r.cached_tokens, 2u);
  EXPECT_EQ(r.inserted_tokens, 1u);
  // The header's picture: split node [1 2] with children [3 4] and [9].
  EXPECT_EQ(cache.size(), 5u);
  EXPECT_EQ(cache.node_count(), 3u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}, {1, 2, 9}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, PromptEndingInsideAnEdgeSplitsItWithoutAddingTokens) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  const auto r = cache.insert(Tokens{1, 2});
  EXPECT_EQ(r.cached_tokens, 2u);
  EXPECT_EQ(r.inserted_tokens, 0u);
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.node_count(), 2u);  // [1 2] -> [3 4]
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, DivergenceAtANodeBoundaryAddsALeafWithoutSplitting) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  cache.insert(Tokens{1, 2, 9});  // nodes [1 2], [3 4], [9]
  const auto r = cache.insert(Tokens{1, 2, 7, 7});
  EXPECT_EQ(r.cached_tokens, 2u);
  EXPECT_EQ(r.inserted_tokens, 2u);
  EXPECT_EQ(cache.node_count(), 4u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}, {1, 2, 7, 7}, {1, 2, 9}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, LeafPathsAreInTokenOrderWhateverTheInsertOrder) {
  RadixCache cache(100);
  cache.insert(Tokens{5, 1});
  cache.insert(Tokens{2, 2});
  cache.insert(Tokens{5, 0});
  cache.insert(Tokens{3});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{2, 2}, {3}, {5, 0}, {5, 1}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, ReinsertingAPromptIsIdempotent) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2, 3, 4});
  cache.insert(Tokens{1, 2, 9});
  const std::size_t size_before = cache.size();
  const std::size_t nodes_before = cache.node_count();
  const Paths paths_before = cache.leaf_paths();

  const auto r = cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(r.cached_tokens, 4u);
  EXPECT_EQ(r.inserted_tokens, 0u);
  EXPECT_EQ(r.evicted_tokens, 0u);
  EXPECT_EQ(cache.size(), size_before);
  EXPECT_EQ(cache.node_count(), nodes_before);
  EXPECT_EQ(cache.leaf_paths(), paths_before);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, EmptyPromptChangesNothing) {
  RadixCache cache(100);
  cache.insert(Tokens{1, 2});
  const auto r = cache.insert(Tokens{});
  EXPECT_EQ(r.cached_tokens, 0u);
  EXPECT_EQ(r.inserted_tokens, 0u);
  EXPECT_EQ(r.evicted_tokens, 0u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, OversizePromptKeepsExactlyItsFirstCapacityTokens) {
  RadixCache cache(4);
  cache.insert(Tokens{9, 9});
  const auto r = cache.insert(Tokens{1, 2, 3, 4, 5, 6});
  EXPECT_EQ(r.cached_tokens, 0u);
  EXPECT_EQ(r.inserted_tokens, 4u);
  EXPECT_EQ(r.evicted_tokens, 2u);
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}}));
  EXPECT_EQ(cache.match(Tokens{1, 2, 3, 4, 5, 6}), 4u);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, OversizePromptReportsCachedTokensOfItsKeptPartOnly) {
  RadixCache cache(4);
  cache.insert(Tokens{1, 2, 3, 4});
  const auto r = cache.insert(Tokens{1, 2, 3, 4, 5, 6});
  EXPECT_EQ(r.cached_tokens, 4u);
  EXPECT_EQ(r.inserted_tokens, 0u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, CapacityZeroCachesNothing) {
  RadixCache cache(0);
  const auto r = cache.insert(Tokens{1, 2, 3});
  EXPECT_EQ(r.cached_tokens, 0u);
  EXPECT_EQ(r.inserted_tokens, 0u);
  EXPECT_EQ(r.evicted_tokens, 0u);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.node_count(), 0u);
  EXPECT_EQ(cache.match(Tokens{1, 2, 3}), 0u);
  EXPECT_TRUE(cache.leaf_paths().empty());
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheInsert, PromptExactlyAsLongAsTheCapacityFitsWithoutEviction) {
  RadixCache cache(4);
  const auto r = cache.insert(Tokens{1, 2, 3, 4});
  EXPECT_EQ(r.inserted_tokens, 4u);
  EXPECT_EQ(r.evicted_tokens, 0u);
  EXPECT_EQ(cache.size(), 4u);
  EXPECT_EQ(cache.check_invariants(), "");
}

// ---------------------------------------------------------------------------
// Recency and LRU eviction

TEST(RadixCacheEviction, EvictsTheLeastRecentlyUsedLeafFirst) {
  RadixCache cache(9, kNoProtection);
  cache.insert(Tokens{1, 1, 1});
  cache.insert(Tokens{2, 2, 2});
  cache.insert(Tokens{3, 3, 3});
  cache.insert(Tokens{1, 1, 1});  // refresh: [2 2 2] is now the oldest

  auto r = cache.insert(Tokens{4, 4, 4});
  EXPECT_EQ(r.evicted_tokens, 3u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 1, 1}, {3, 3, 3}, {4, 4, 4}}));

  r = cache.insert(Tokens{5, 5, 5});
  EXPECT_EQ(r.evicted_tokens, 3u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 1, 1}, {4, 4, 4}, {5, 5, 5}}));

  r = cache.insert(Tokens{6, 6, 6});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{4, 4, 4}, {5, 5, 5}, {6, 6, 6}}));
  EXPECT_EQ(cache.evicted_total(), 9u);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, MatchDoesNotRefreshRecency) {
  RadixCache cache(6, kNoProtection);
  cache.insert(Tokens{1, 1, 1});
  cache.insert(Tokens{2, 2, 2});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(cache.match(Tokens{1, 1, 1}), 3u);  // peeks only

  cache.insert(Tokens{3, 3, 3});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{2, 2, 2}, {3, 3, 3}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, InsertRefreshesRecencyOfTheWholePath) {
  // The same sequence as MatchDoesNotRefreshRecency with the peek replaced by
  // an insert: now the other leaf is the LRU one.
  RadixCache cache(6, kNoProtection);
  cache.insert(Tokens{1, 1, 1});
  cache.insert(Tokens{2, 2, 2});
  cache.insert(Tokens{1, 1, 1});

  cache.insert(Tokens{3, 3, 3});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 1, 1}, {3, 3, 3}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, ParentBecomesACandidateOnlyAfterItsChildrenAreGone) {
  RadixCache cache(6, kNoProtection);
  cache.insert(Tokens{1, 2, 3});  // t1
  cache.insert(Tokens{1, 2, 4});  // t2: [1 2] (t2) -> [3] (t1), [4] (t2)
  cache.insert(Tokens{5, 6});     // t3
  ASSERT_EQ(cache.size(), 6u);

  // One token over budget: the oldest leaf [3] goes; [1 2] still has a child.
  auto r = cache.insert(Tokens{7});
  EXPECT_EQ(r.evicted_tokens, 1u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 4}, {5, 6}, {7}}));

  // Next the leaf [4] (t2) goes, which leaves [1 2] (t2) childless: a leaf now.
  r = cache.insert(Tokens{8});
  EXPECT_EQ(r.evicted_tokens, 1u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2}, {5, 6}, {7}, {8}}));
  EXPECT_EQ(cache.node_count(), 4u);

  // [1 2] is now the LRU candidate, ahead of the newer [5 6].
  r = cache.insert(Tokens{9});
  EXPECT_EQ(r.evicted_tokens, 2u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{5, 6}, {7}, {8}, {9}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, OneInsertCanEvictAChildAndThenItsParent) {
  RadixCache cache(6, kNoProtection);
  cache.insert(Tokens{1, 2, 3});
  cache.insert(Tokens{1, 2, 4});
  cache.insert(Tokens{5, 6});
  const auto r = cache.insert(Tokens{7, 8, 9});  // 3 over: [3], [4], then [1 2]
  EXPECT_EQ(r.evicted_tokens, 4u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{5, 6}, {7, 8, 9}}));
  EXPECT_EQ(cache.size(), 5u);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, NodeGranularEvictionRemovesAWholeLeafEvenIfFewerTokensAreNeeded) {
  // Documented behaviour (SGLang-style): one token over budget still removes
  // the whole 5-token LRU leaf; a token-granular cache would trim one token.
  RadixCache cache(6, kNoProtection);
  cache.insert(Tokens{1, 2, 3, 4, 5});
  cache.insert(Tokens{6});
  const auto r = cache.insert(Tokens{7});
  EXPECT_EQ(r.evicted_tokens, 5u);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{6}, {7}}));
  EXPECT_EQ(cache.match(Tokens{1, 2, 3, 4}), 0u);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, PartialEdgeHitRefreshesOnlyTheMatchedPart) {
  RadixCache cache(7, kNoProtection);
  cache.insert(Tokens{1, 2, 3, 4, 5});  // t1
  cache.insert(Tokens{6, 7});           // t2
  cache.insert(Tokens{1, 2});           // t3: split, [1 2] at t3, tail [3 4 5] keeps t1
  ASSERT_EQ(cache.size(), 7u);

  // The unrefreshed tail is older than [6 7] and goes on its own.
  const auto r = cache.insert(Tokens{8});
  EXPECT_EQ(r.evicted_tokens, 3u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2}, {6, 7}, {8}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, InsertNeverEvictsItsOwnLeaf) {
  // [4 5] is protected, the new leaf [7 8 9] is not: by the plain order the new
  // leaf would go first, but the leaf ending the prompt is never a candidate
  // during its own insert.
  RadixCache cache(4, /*protect_after_hits=*/1);
  cache.insert(Tokens{4, 5});
  cache.insert(Tokens{4, 5});  // hits 1: protected
  const auto r = cache.insert(Tokens{7, 8, 9});
  EXPECT_EQ(r.inserted_tokens, 3u);
  EXPECT_EQ(r.evicted_tokens, 2u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{7, 8, 9}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheEviction, InsertNeverEvictsItsOwnAncestors) {
  // The prompt's path is [1 2] -> [3 4] -> [5]: every other node goes first,
  // even the protected one, and the whole prompt stays cached.
  RadixCache cache(5, /*protect_after_hits=*/1);
  cache.insert(Tokens{1, 2, 3, 4});
  cache.insert(Tokens{1, 2, 9});
  cache.insert(Tokens{1, 2, 9});  // [1 2] and [9] protected
  const auto r = cache.insert(Tokens{1, 2, 3, 4, 5});
  EXPECT_EQ(r.cached_tokens, 4u);
  EXPECT_EQ(r.evicted_tokens, 1u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4, 5}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

// ---------------------------------------------------------------------------
// Hot-prefix protection

// Inserts `tokens` `times` times: the node is created once and then hit
// times - 1 times.
void insert_times(RadixCache& cache, const Tokens& tokens, int times) {
  for (int i = 0; i < times; ++i) cache.insert(tokens);
}

TEST(RadixCacheProtection, ProtectedLeafIsEvictedOnlyAfterEveryUnprotectedLeaf) {
  RadixCache cache(6, /*protect_after_hits=*/2);
  insert_times(cache, Tokens{1, 1}, 3);  // hits 2: protected, and the oldest
  cache.insert(Tokens{2, 2});
  cache.insert(Tokens{3, 3});

  cache.insert(Tokens{4, 4});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 1}, {3, 3}, {4, 4}}));
  cache.insert(Tokens{5, 5});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 1}, {4, 4}, {5, 5}}));
  cache.insert(Tokens{6, 6});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 1}, {5, 5}, {6, 6}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheProtection, ProtectedLeafIsEvictedWhenOnlyProtectedCandidatesRemain) {
  RadixCache cache(4, /*protect_after_hits=*/1);
  insert_times(cache, Tokens{1, 1}, 2);  // protected, older
  insert_times(cache, Tokens{2, 2}, 2);  // protected, newer
  cache.insert(Tokens{3, 3});            // the only unprotected leaf is the new one
  // Among protected leaves the order is LRU again.
  EXPECT_EQ(cache.leaf_paths(), (Paths{{2, 2}, {3, 3}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheProtection, ProtectionStartsExactlyAtTheThreshold) {
  RadixCache cache(6, /*protect_after_hits=*/2);
  insert_times(cache, Tokens{1, 1}, 2);  // hits 1 < 2: not protected
  cache.insert(Tokens{2, 2});
  cache.insert(Tokens{3, 3});
  cache.insert(Tokens{4, 4});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{2, 2}, {3, 3}, {4, 4}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheProtection, ThresholdZeroDisablesProtection) {
  RadixCache cache(6, /*protect_after_hits=*/0);
  EXPECT_EQ(cache.protect_after_hits(), 0u);
  insert_times(cache, Tokens{1, 1}, 50);
  cache.insert(Tokens{2, 2});
  cache.insert(Tokens{3, 3});
  cache.insert(Tokens{4, 4});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{2, 2}, {3, 3}, {4, 4}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheProtection, DefaultThresholdIsTheDocumentedConstant) {
  const RadixCache cache(10);
  EXPECT_EQ(cache.protect_after_hits(), RadixCache::kDefaultProtectAfterHits);
}

TEST(RadixCacheProtection, SplitUpperNodeInheritsHitsAndCountsTheSplittingInsert) {
  // [1 2 3 4] inserted twice has hits 1. A prompt [1 2] splits it: the upper
  // [1 2] copies hits 1 and counts this insert (2: protected at threshold 2);
  // the lower [3 4] keeps hits 1 (unprotected).
  RadixCache cache(6, /*protect_after_hits=*/2);
  insert_times(cache, Tokens{1, 2, 3, 4}, 2);
  cache.insert(Tokens{1, 2});
  cache.insert(Tokens{5, 6});  // full, newest
  // One over budget: [3 4] goes (the only unprotected leaf older than [5 6]),
  // leaving [1 2] as a leaf.
  cache.insert(Tokens{7});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2}, {5, 6}, {7}}));
  // [1 2] is older than [5 6] but protected, so [5 6] goes instead.
  cache.insert(Tokens{8, 8});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2}, {7}, {8, 8}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCacheProtection, SplitLowerNodeKeepsItsOwnHits) {
  // [1 2 3 4] hit once (hits 1, protected at threshold 1). Splitting it with
  // [1 2] leaves the lower [3 4] with hits 1: still protected, so the newer
  // unprotected [5 6] goes before it.
  RadixCache cache(6, /*protect_after_hits=*/1);
  insert_times(cache, Tokens{1, 2, 3, 4}, 2);
  cache.insert(Tokens{1, 2});
  cache.insert(Tokens{5, 6});
  cache.insert(Tokens{7, 7});
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}, {7, 7}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

// ---------------------------------------------------------------------------
// Pins and reservations: the "Budget rule" of radix_cache.h.

TEST(RadixCachePins, PinnedLeafIsNeverEvictedAndTheCacheOvercommits) {
  RadixCache cache(4, kNoProtection);
  const auto a = cache.insert(Tokens{1, 2, 3, 4});
  cache.pin(a.path);
  const auto b = cache.insert(Tokens{5, 6});
  EXPECT_EQ(b.evicted_tokens, 0u);  // the only other candidate is b's own leaf
  EXPECT_EQ(cache.used(), 6u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}, {5, 6}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCachePins, UnpinDoesNotEvictTheNextInsertDoes) {
  RadixCache cache(4, kNoProtection);
  const auto a = cache.insert(Tokens{1, 2, 3, 4});
  cache.pin(a.path);
  cache.insert(Tokens{5, 6});
  cache.unpin(a.path);
  EXPECT_EQ(cache.used(), 6u);  // over budget with an evictable leaf: deferred
  EXPECT_EQ(cache.check_invariants(), "");
  cache.insert(Tokens{5, 6});   // refreshes {5,6}; the pass evicts the LRU leaf {1,2,3,4}
  EXPECT_EQ(cache.used(), 2u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{5, 6}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCachePins, ReservationCountsAgainstTheBudgetAndEvicts) {
  RadixCache cache(6, kNoProtection);
  cache.insert(Tokens{1, 2, 3});
  cache.insert(Tokens{4, 5, 6});
  cache.reserve(2);  // used 8 > 6: the least recent leaf {1,2,3} goes
  EXPECT_EQ(cache.reserved(), 2u);
  EXPECT_EQ(cache.used(), 5u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{4, 5, 6}}));
  cache.release(2);
  EXPECT_EQ(cache.used(), 3u);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCachePins, UnpinAfterAReservationLeavesTheCacheOverBudgetUntilTheNextPass) {
  // The case the lockstep fuzzer found against the old wording of the rule.
  RadixCache cache(4, kNoProtection);
  const auto a = cache.insert(Tokens{1, 2, 3, 4});
  cache.pin(a.path);
  cache.reserve(2);
  EXPECT_EQ(cache.used(), 6u);  // nothing evictable: overcommitted
  cache.unpin(a.path);
  EXPECT_EQ(cache.used(), 6u);
  EXPECT_EQ(cache.check_invariants(), "");
  cache.reserve(0);  // an eviction pass with nothing new reserved restores the budget
  EXPECT_EQ(cache.used(), 2u);
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCachePins, AnInsertKeepsItsOwnLeafWhileReservationsHoldTheCacheOverBudget) {
  RadixCache cache(4, kNoProtection);
  cache.reserve(3);
  const auto r = cache.insert(Tokens{5, 6});
  EXPECT_EQ(r.evicted_tokens, 0u);
  EXPECT_EQ(cache.used(), 5u);
  EXPECT_EQ(cache.leaf_paths(), (Paths{{5, 6}}));
  EXPECT_EQ(cache.check_invariants(), "");
}

TEST(RadixCachePins, PinningAPathProtectsItsAncestorsToo) {
  RadixCache cache(6, kNoProtection);
  const auto a = cache.insert(Tokens{1, 2, 3, 4});
  cache.insert(Tokens{1, 2, 9, 9});  // splits: {1,2} -> {3,4}, {9,9}
  cache.pin(a.path);
  cache.insert(Tokens{7, 7, 7});     // used 9 > 6: only {9,9} is evictable
  EXPECT_EQ(cache.leaf_paths(), (Paths{{1, 2, 3, 4}, {7, 7, 7}}));
  EXPECT_EQ(cache.used(), 7u);
  EXPECT_EQ(cache.check_invariants(), "");
}

// ---------------------------------------------------------------------------
// Lockstep: RadixCache against an independent model of the documented rules
// (tests/support/reference_radix_cache.h, shared with the lockstep fuzzer).
// Every answer is compared after every operation; in pin mode the simulator's
// pattern (insert + pin, later unpin; reserve/release of output tokens) is
// mixed in.

Tokens random_prompt(Rng& rng, std::size_t max_len, Token alphabet) {
  Tokens p(rng.uniform_int(0, max_len));
  for (Token& t : p) t = static_cast<Token>(rng.uniform_int(0, alphabet - 1));
  return p;
}

struct LockstepConfig {
  std::uint64_t seed;
  std::size_t capacity;
  std::uint32_t protect_after_hits;
  bool pins;  // mix in pin/unpin/reserve/release
};

void PrintTo(const LockstepConfig& c, std::ostream* out) {
  *out << "{seed " << c.seed << ", capacity " << c.capacity << ", protect_after_hits "
       << c.protect_after_hits << ", pins " << c.pins << "}";
}

std::string describe(const LockstepConfig& c, std::uint64_t step) {
  return "seed " + std::to_string(c.seed) + ", capacity " + std::to_string(c.capacity) +
         ", protect_after_hits " + std::to_string(c.protect_after_hits) + ", pins " +
         std::to_string(c.pins) + ", step " + std::to_string(step);
}

// Runs `operations` random operations; stops at the first disagreement.
void run_lockstep(const LockstepConfig& config, std::uint64_t operations) {
  RadixCache cache(config.capacity, config.protect_after_hits);
  ReferenceRadixCache model(config.capacity, config.protect_after_hits);
  Rng rng(config.seed);
  constexpr std::size_t kMaxLen = 12;
  constexpr Token kAlphabet = 4;
  LockstepPins pinned(/*max_pinned=*/4);
  std::size_t reserved = 0;
  for (std::uint64_t step = 0; step < operations; ++step) {
    SCOPED_TRACE(describe(config, step));
    const auto op = rng.uniform_int(0, config.pins ? 9 : 3);
    if (op >= 6) {  // pin mode: unpin, reserve, release
      if (op <= 7 && !pinned.empty()) {
        const auto k = static_cast<std::size_t>(rng.uniform_int(0, pinned.size() - 1));
        pinned.unpin(cache, model, k);
      } else if (op == 8) {
        const auto t = static_cast<std::size_t>(rng.uniform_int(0, 6));
        cache.reserve(t);
        model.reserve(t);
        reserved += t;
      } else if (op == 9 && reserved > 0) {
        const auto t = static_cast<std::size_t>(rng.uniform_int(1, reserved));
        cache.release(t);
        model.release(t);
        reserved -= t;
      }
      ASSERT_FALSE(model.saw_recency_tie) << "two candidates tied on recency";
      ASSERT_EQ(cache.used(), model.used());
      ASSERT_EQ(cache.leaf_paths(), model.leaf_paths());
      ASSERT_EQ(cache.evicted_total(), model.evicted_total());
      ASSERT_EQ(cache.check_invariants(), "");
      continue;
    }
    const Tokens prompt = random_prompt(rng, kMaxLen, kAlphabet);
    const Paths leaves_before = cache.leaf_paths();
    if (op == 0) {
      // A peek: must agree with brute force and change nothing.
      const std::size_t m = cache.match(prompt);
      ASSERT_EQ(m, brute_force_match(leaves_before, prompt));
      ASSERT_EQ(m, model.match(prompt));
      ASSERT_EQ(cache.leaf_paths(), leaves_before);
      continue;
    }
    const std::size_t kept = std::min(prompt.size(), config.capacity);
    const Tokens kept_part(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(kept));
    const std::size_t expected_cached = brute_force_match(leaves_before, kept_part);
    const auto got = cache.insert(prompt);
    const auto want = model.insert(prompt);
    ASSERT_EQ(got.cached_tokens, expected_cached);
    ASSERT_EQ(got.cached_tokens, want.cached_tokens);
    ASSERT_EQ(got.inserted_tokens, want.inserted_tokens);
    ASSERT_EQ(got.evicted_tokens, want.evicted_tokens);
    ASSERT_FALSE(model.saw_recency_tie) << "two candidates tied on recency";
    if (!config.pins) {
      ASSERT_LE(cache.size(), config.capacity);
    }
    ASSERT_EQ(cache.size(), model.size());
    ASSERT_EQ(cache.used(), model.used());
    ASSERT_EQ(cache.node_count(), model.node_count());
    ASSERT_EQ(cache.evicted_total(), model.evicted_total());
    const Paths leaves = cache.leaf_paths();
    ASSERT_EQ(leaves, model.leaf_paths());
    ASSERT_EQ(cache.size(), brute_force_size(leaves));
    ASSERT_EQ(cache.match(prompt), kept) << "the kept part of the prompt must be fully cached";
    // The budget rule after an eviction pass (radix_cache.h "Budget rule").
    if (!kept_part.empty() && cache.used() > config.capacity) {
      ASSERT_EQ(model.candidates(&kept_part), 0u) << "over budget with evictable leaves left";
    }
    // Full invariant walk is O(N log N): every few steps is plenty.
    if (step % 16 == 0) {
      ASSERT_EQ(cache.check_invariants(), "");
    }
    if (config.pins && op >= 4 && !kept_part.empty()) {  // the simulator's pattern: pin right after insert
      pinned.pin(cache, model, got.path, kept_part);
    }
  }
  ASSERT_EQ(cache.check_invariants(), "");
}

#if PREFIXROUTE_TESTS_SANITIZED
constexpr std::uint64_t kLockstepOperations = 2'000;
#else
constexpr std::uint64_t kLockstepOperations = 50'000;
#endif

class RadixCacheLockstep : public ::testing::TestWithParam<LockstepConfig> {};

TEST_P(RadixCacheLockstep, AgreesWithTheReferenceModelOnRandomOperations) {
  run_lockstep(GetParam(), kLockstepOperations);
}

// Small alphabet and short prompts so prefixes collide a lot; capacities from
// "a few prompts" to "many"; protection off, aggressive and moderate.
INSTANTIATE_TEST_SUITE_P(
    Seeds, RadixCacheLockstep,
    ::testing::Values(LockstepConfig{1, 20, 0, false}, LockstepConfig{2, 20, 1, false},
                      LockstepConfig{3, 33, 2, false}, LockstepConfig{4, 40, 0, false},
                      LockstepConfig{5, 47, 3, false}, LockstepConfig{6, 60, 1, false},
                      LockstepConfig{7, 60, 4, false}, LockstepConfig{8, 25, 16, false},
                      LockstepConfig{9, 20, 0, true}, LockstepConfig{10, 33, 2, true},
                      LockstepConfig{11, 47, 3, true}, LockstepConfig{12, 12, 1, true}),
    [](const ::testing::TestParamInfo<LockstepConfig>& p) {
      return "seed" + std::to_string(p.param.seed) + "_cap" +
             std::to_string(p.param.capacity) + "_protect" +
             std::to_string(p.param.protect_after_hits) + (p.param.pins ? "_pins" : "");
    });

}  // namespace
}  // namespace prefixroute::radix_cache_test
