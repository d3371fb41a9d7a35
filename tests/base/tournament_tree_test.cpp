// TournamentTree (prefixroute/tournament_tree.h) against a scan of its keys:
// the least key, the lowest position holding it, and the first position from
// `from` on whose key is at most a bound, after every update, for sizes that
// are and are not powers of two, with keys drawn from a small range so that
// ties are common.
#include "prefixroute/base/tournament_tree.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::tournament_tree_test {
namespace {

constexpr std::int64_t kEmpty = std::numeric_limits<std::int64_t>::max();

std::size_t scan_first_at_most(const std::vector<std::int64_t>& keys, std::size_t from, std::int64_t bound) {
  for (std::size_t i = from; i < keys.size(); ++i)
    if (keys[i] <= bound) return i;
  return keys.size();
}

TEST(TournamentTree, AgreesWithAScanAfterEveryUpdate) {
  Rng rng(20261129);
  for (std::size_t n = 1; n <= 70; ++n) {
    TournamentTree<std::int64_t> tree(n, kEmpty);
    std::vector<std::int64_t> keys(n, kEmpty);
    for (int step = 0; step < 200; ++step) {
      const std::size_t position = rng.below(n);
      const auto key = static_cast<std::int64_t>(rng.below(8));
      tree.set(position, key);
      keys[position] = key;
      ASSERT_EQ(tree[position], key);
      std::size_t least_at = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (keys[i] < keys[least_at]) least_at = i;
      ASSERT_EQ(tree.least(), keys[least_at]) << "n " << n << " step " << step;
      ASSERT_EQ(tree.position_of_least(), least_at) << "n " << n << " step " << step;
      for (std::size_t from = 0; from <= n; ++from)
        for (std::int64_t bound = -1; bound <= 8; ++bound)
          ASSERT_EQ(tree.first_at_most(from, bound), scan_first_at_most(keys, from, bound))
              << "n " << n << " step " << step << " from " << from << " bound " << bound;
    }
  }
}

// update() climbs only while the least keys change: a tree kept with
// update() answers as one kept with set(), on random updates with frequent
// ties; raising the least key must reach the root, and a key that leaves a
// subtree's least as it was must not disturb the keys above.
TEST(TournamentTree, UpdateAnswersAsSet) {
  Rng rng(20261202);
  for (const std::size_t n : {1u, 2u, 5u, 8u, 70u}) {
    TournamentTree<std::int64_t> updated(n, kEmpty), set(n, kEmpty);
    for (int step = 0; step < 400; ++step) {
      const std::size_t position = rng.below(n);
      const auto key = static_cast<std::int64_t>(rng.below(6));
      updated.update(position, key);
      set.set(position, key);
      ASSERT_EQ(updated.least(), set.least()) << "n " << n << " step " << step;
      ASSERT_EQ(updated.position_of_least(), set.position_of_least()) << "n " << n << " step " << step;
      for (std::int64_t bound = 0; bound < 6; ++bound)
        ASSERT_EQ(updated.first_at_most(position / 2, bound), set.first_at_most(position / 2, bound))
            << "n " << n << " step " << step;
    }
  }
  TournamentTree<std::int64_t> tree(8, kEmpty);
  for (std::size_t i = 0; i < 8; ++i) tree.update(i, i == 0 ? 1 : 5);
  tree.update(7, 2);
  tree.update(0, 9);  // the least, raised: every level above changes
  EXPECT_EQ(tree.least(), 2);
  EXPECT_EQ(tree.position_of_least(), 7u);
  tree.update(3, 4);  // below its sibling's 5, above the root's 2
  EXPECT_EQ(tree.first_at_most(0, 4), 3u);
  EXPECT_EQ(tree.position_of_least(), 7u);
}

TEST(TournamentTree, PaddingNeverWinsAndAnEmptyTreeFindsNothing) {
  TournamentTree<std::int64_t> tree(5, kEmpty);  // width 8: three padding leaves
  for (std::size_t i = 0; i < 5; ++i) tree.set(i, 100);
  EXPECT_EQ(tree.first_at_most(0, kEmpty - 1), 0u);
  EXPECT_EQ(tree.first_at_most(4, 100), 4u);
  EXPECT_EQ(tree.first_at_most(5, kEmpty), 5u);  // from == size(): nothing, not a padding leaf
  EXPECT_EQ(tree.first_at_most(0, 99), 5u);
  TournamentTree<std::int64_t> none(0, kEmpty);
  EXPECT_EQ(none.least(), kEmpty);
  EXPECT_EQ(none.first_at_most(0, 0), 0u);
}

TEST(TournamentTree, OrdersPairKeysLexicographically) {
  using Key = std::pair<std::int64_t, std::uint64_t>;
  TournamentTree<Key> tree(3, Key{kEmpty, 0});
  tree.set(0, Key{5, 9});
  tree.set(1, Key{5, 2});
  tree.set(2, Key{6, 0});
  EXPECT_EQ(tree.position_of_least(), 1u);
  tree.set(1, Key{kEmpty, 0});
  EXPECT_EQ(tree.position_of_least(), 0u);
}

// assign() sets every key at once: the tree answers as one whose keys were
// set one by one, also when it held other keys before (every node above the
// leaves is recomputed, not only those above changed keys).
TEST(TournamentTree, AssignAnswersAsSettingEveryKey) {
  Rng rng(20261203);
  for (const std::size_t n : {1u, 2u, 3u, 8u, 9u, 70u}) {
    TournamentTree<std::int64_t> assigned(n, kEmpty), set(n, kEmpty);
    for (int round = 0; round < 20; ++round) {
      std::vector<std::int64_t> keys(n);
      for (std::int64_t& key : keys) key = static_cast<std::int64_t>(rng.below(6));
      for (std::size_t p = 0; p < n; ++p) set.set(p, keys[p]);
      assigned.assign([&](std::size_t p) { return keys[p]; });
      ASSERT_EQ(assigned.least(), set.least()) << "n " << n << " round " << round;
      ASSERT_EQ(assigned.position_of_least(), set.position_of_least()) << "n " << n << " round " << round;
      for (std::size_t from = 0; from <= n; ++from) {
        if (from < n) {
          ASSERT_EQ(assigned[from], keys[from]);
        }
        for (std::int64_t bound = -1; bound <= 6; ++bound)
          ASSERT_EQ(assigned.first_at_most(from, bound), scan_first_at_most(keys, from, bound))
              << "n " << n << " round " << round << " from " << from << " bound " << bound;
      }
    }
  }
}

}  // namespace
}  // namespace prefixroute::tournament_tree_test
