// RadixCache: the specification in radix_cache.h, one behaviour per test, then
// a seeded lockstep test against an independent model of the eviction rule.
#include "prefixroute/radix_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "prefixroute/random.h"

namespace prefixroute {
namespace {

using Tokens = std::vector<Token>;
using Paths = std::vector<Tokens>;

constexpr std::uint32_t kNoProtection = 0;

// ---------------------------------------------------------------------------
// match()

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
// Lockstep: RadixCache against an independent model of the documented rule.
//
// The model keeps the set of node end points as full token paths in a
// lexicographically ordered map (no tree): a node's parent is its longest
// proper prefix in the map, its edge is the difference of the two lengths,
// and it is a leaf when the next path in order does not extend it. Every rule
// of radix_cache.h is applied by brute force on that set.

struct ModelNode {
  std::uint64_t last_access = 0;
  std::uint32_t hits = 0;
};

bool starts_with(const Tokens& path, const Tokens& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

class ReferenceCache {
 public:
  ReferenceCache(std::size_t capacity, std::uint32_t protect_after_hits)
      : capacity_(capacity), protect_after_hits_(protect_after_hits) {}

  std::size_t match(const Tokens& p) const {
    std::size_t best = 0;
    for (const auto& [path, meta] : nodes_) {
      std::size_t common = 0;
      while (common < path.size() && common < p.size() && path[common] == p[common]) ++common;
      best = std::max(best, common);
    }
    return best;
  }

  RadixCache::InsertResult insert(Tokens p) {
    RadixCache::InsertResult result;
    if (p.size() > capacity_) p.resize(capacity_);
    if (p.empty()) return result;
    ++clock_;
    const std::size_t m = match(p);
    result.cached_tokens = m;
    // An insert ends a node at depth m (the split point, if m lies inside an
    // edge) and at depth |p| (the new leaf, or a split if p ends inside an edge).
    if (m > 0) split_at(Tokens(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(m)));
    // Every node lying entirely on the matched part counts a hit and is refreshed.
    for (auto& [path, meta] : nodes_) {
      if (path.size() <= m && starts_with(p, path)) {
        ++meta.hits;
        meta.last_access = clock_;
      }
    }
    if (m < p.size()) {
      nodes_[p] = ModelNode{clock_, 0};
      result.inserted_tokens = p.size() - m;
      size_ += result.inserted_tokens;
    }
    result.evicted_tokens = evict(p);
    evicted_total_ += result.evicted_tokens;
    return result;
  }

  std::size_t size() const { return size_; }
  std::size_t node_count() const { return nodes_.size(); }
  std::uint64_t evicted_total() const { return evicted_total_; }

  Paths leaf_paths() const {
    Paths leaves;
    for (auto it = nodes_.begin(); it != nodes_.end(); ++it)
      if (is_leaf(it)) leaves.push_back(it->first);
    return leaves;
  }

  // Set when two eviction candidates tied on (protected, last_access): the
  // documented id tie-break would decide, which the model does not track.
  bool saw_recency_tie = false;

 private:
  using Map = std::map<Tokens, ModelNode>;

  bool is_leaf(Map::const_iterator it) const {
    const auto next = std::next(it);
    return next == nodes_.end() || !starts_with(next->first, it->first);
  }

  std::size_t parent_length(const Tokens& path) const {
    for (std::size_t len = path.size() - 1; len > 0; --len)
      if (nodes_.count(Tokens(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(len))))
        return len;
    return 0;
  }

  // Makes `point` (a cached prefix) a node end, splitting the node whose edge
  // contains it: the new upper node copies that node's recency and hits.
  void split_at(const Tokens& point) {
    if (nodes_.count(point)) return;
    // The node containing the point: the shortest node path extending it.
    const Tokens* below = nullptr;
    for (const auto& [path, meta] : nodes_)
      if (starts_with(path, point) && (below == nullptr || path.size() < below->size()))
        below = &path;
    const ModelNode copy = nodes_.at(*below);
    nodes_[point] = copy;
  }

  bool is_protected(const ModelNode& n) const {
    return protect_after_hits_ > 0 && n.hits >= protect_after_hits_;
  }

  std::size_t evict(const Tokens& keep) {
    std::size_t evicted = 0;
    while (size_ > capacity_) {
      auto victim = nodes_.end();
      for (auto it = nodes_.begin(); it != nodes_.end(); ++it) {
        if (it->first == keep || !is_leaf(it)) continue;
        if (victim == nodes_.end()) {
          victim = it;
          continue;
        }
        const auto key = [this](const Map::iterator& i) {
          return std::make_pair(is_protected(i->second), i->second.last_access);
        };
        if (key(it) == key(victim)) saw_recency_tie = true;
        if (key(it) < key(victim)) victim = it;
      }
      if (victim == nodes_.end()) break;  // cannot happen: keep's path fits
      const std::size_t edge = victim->first.size() - parent_length(victim->first);
      size_ -= edge;
      evicted += edge;
      nodes_.erase(victim);
    }
    return evicted;
  }

  std::size_t capacity_;
  std::uint32_t protect_after_hits_;
  std::size_t size_ = 0;
  std::uint64_t clock_ = 0;
  std::uint64_t evicted_total_ = 0;
  Map nodes_;
};

// The cached set as plain brute force over leaf paths: longest common prefix.
std::size_t brute_force_match(const Paths& leaves, const Tokens& p) {
  std::size_t best = 0;
  for (const Tokens& leaf : leaves) {
    std::size_t common = 0;
    while (common < leaf.size() && common < p.size() && leaf[common] == p[common]) ++common;
    best = std::max(best, common);
  }
  return best;
}

std::size_t brute_force_size(const Paths& leaves) {
  // Distinct non-empty prefixes of the leaf paths = tokens cached.
  std::set<Tokens> prefixes;
  for (const Tokens& leaf : leaves)
    for (std::size_t len = 1; len <= leaf.size(); ++len)
      prefixes.insert(Tokens(leaf.begin(), leaf.begin() + static_cast<std::ptrdiff_t>(len)));
  return prefixes.size();
}

Tokens random_prompt(Rng& rng, std::size_t max_len, Token alphabet) {
  Tokens p(rng.uniform_int(0, max_len));
  for (Token& t : p) t = static_cast<Token>(rng.uniform_int(0, alphabet - 1));
  return p;
}

struct LockstepConfig {
  std::uint64_t seed;
  std::size_t capacity;
  std::uint32_t protect_after_hits;
};

void PrintTo(const LockstepConfig& c, std::ostream* out) {
  *out << "{seed " << c.seed << ", capacity " << c.capacity << ", protect_after_hits "
       << c.protect_after_hits << "}";
}

std::string describe(const LockstepConfig& c, std::uint64_t step) {
  return "seed " + std::to_string(c.seed) + ", capacity " + std::to_string(c.capacity) +
         ", protect_after_hits " + std::to_string(c.protect_after_hits) + ", step " +
         std::to_string(step);
}

// Runs `operations` random peeks and inserts; stops at the first disagreement.
void run_lockstep(const LockstepConfig& config, std::uint64_t operations) {
  RadixCache cache(config.capacity, config.protect_after_hits);
  ReferenceCache model(config.capacity, config.protect_after_hits);
  Rng rng(config.seed);
  constexpr std::size_t kMaxLen = 12;
  constexpr Token kAlphabet = 4;
  for (std::uint64_t step = 0; step < operations; ++step) {
    SCOPED_TRACE(describe(config, step));
    const Tokens prompt = random_prompt(rng, kMaxLen, kAlphabet);
    const Paths leaves_before = cache.leaf_paths();
    if (rng.uniform_int(0, 3) == 0) {
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
    ASSERT_LE(cache.size(), config.capacity);
    ASSERT_EQ(cache.size(), model.size());
    ASSERT_EQ(cache.node_count(), model.node_count());
    ASSERT_EQ(cache.evicted_total(), model.evicted_total());
    const Paths leaves = cache.leaf_paths();
    ASSERT_EQ(leaves, model.leaf_paths());
    ASSERT_EQ(cache.size(), brute_force_size(leaves));
    ASSERT_EQ(cache.match(prompt), kept) << "the kept part of the prompt must be fully cached";
    // Full invariant walk is O(N log N): every few steps is plenty.
    if (step % 16 == 0) {
      ASSERT_EQ(cache.check_invariants(), "");
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
    ::testing::Values(LockstepConfig{1, 20, 0}, LockstepConfig{2, 20, 1},
                      LockstepConfig{3, 33, 2}, LockstepConfig{4, 40, 0},
                      LockstepConfig{5, 47, 3}, LockstepConfig{6, 60, 1},
                      LockstepConfig{7, 60, 4}, LockstepConfig{8, 25, 16}),
    [](const ::testing::TestParamInfo<LockstepConfig>& p) {
      return "seed" + std::to_string(p.param.seed) + "_cap" +
             std::to_string(p.param.capacity) + "_protect" +
             std::to_string(p.param.protect_after_hits);
    });

}  // namespace
}  // namespace prefixroute
