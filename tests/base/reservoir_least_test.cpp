// reservoir_least against the scan it replaces: the same pick and the same
// random draws (the generators stay in step) on random keys with frequent
// ties, as single keys change between picks.
#include "prefixroute/base/reservoir_least.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute::reservoir_least_test {
namespace {

std::size_t scan(const std::vector<double>& keys, Rng& rng) {
  std::size_t best = 0;
  std::uint64_t tied = 1;
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (keys[i] < keys[best]) {
      best = i;
      tied = 1;
    } else if (keys[i] == keys[best]) {
      ++tied;
      if (rng.below(tied) == 0) best = i;
    }
  }
  return best;
}

TEST(ReservoirLeast, PicksAsTheScanWithTheSameDraws) {
  for (const std::size_t n : {1u, 3u, 5u, 70u}) {
    Rng rng(n), tree_rng(n + 7), scan_rng(n + 7);
    std::vector<double> keys(n);
    TournamentTree<double> tree(n, 1e300);
    for (std::size_t i = 0; i < n; ++i) {
      keys[i] = static_cast<double>(rng.uniform_int(0, 3)) / 2;
      tree.set(i, keys[i]);
    }
    for (int step = 0; step < 300; ++step) {
      ASSERT_EQ(reservoir_least(tree, tree_rng), scan(keys, scan_rng)) << n << " keys, step " << step;
      ASSERT_EQ(tree_rng.next_u64(), scan_rng.next_u64()) << n << " keys, step " << step;
      // One to three keys change: few values, so ties stay frequent.
      for (std::uint64_t k = rng.uniform_int(1, 3); k > 0; --k) {
        const auto i = static_cast<std::size_t>(rng.below(n));
        keys[i] = static_cast<double>(rng.uniform_int(0, 3)) / 2;
        tree.set(i, keys[i]);
      }
    }
  }
}

}  // namespace
}  // namespace prefixroute::reservoir_least_test
