// RankedKeys: the k-th least key and the keys below a bound, against a
// sorted list of (key, slot), on random sets, replacements and erasures with
// frequent equal keys.
#include "prefixroute/base/ranked_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::ranked_keys_test {
namespace {

TEST(RankedKeys, AnswersAsASortedListOfKeyAndSlot) {
  for (const std::size_t n : {1u, 2u, 7u, 64u, 257u}) {
    RankedKeys<double> ranked(n);
    std::vector<std::optional<double>> model(n);
    Rng rng(n);
    for (int step = 0; step < 1500; ++step) {
      const auto slot = static_cast<std::size_t>(rng.below(n));
      if (rng.uniform_int(0, 4) == 0) {
        ranked.erase(slot);
        model[slot].reset();
      } else {
        const double key = static_cast<double>(rng.uniform_int(0, 9)) / 4;
        ranked.set(slot, key);
        model[slot] = key;
      }
      std::vector<std::pair<double, std::size_t>> sorted;
      for (std::size_t s = 0; s < n; ++s)
        if (model[s]) sorted.emplace_back(*model[s], s);
      std::sort(sorted.begin(), sorted.end());
      ASSERT_EQ(ranked.size(), sorted.size());
      for (std::size_t k = 0; k < sorted.size(); ++k) {
        ASSERT_EQ(ranked.slot_at(k), sorted[k].second) << n << " slots, step " << step << ", k " << k;
        ASSERT_EQ(ranked.key_at(k), sorted[k].first);
      }
      for (std::size_t s = 0; s < n; ++s) ASSERT_EQ(ranked.holds(s), model[s].has_value());
      const double bound = static_cast<double>(rng.uniform_int(0, 10)) / 4;
      const auto below = std::count_if(sorted.begin(), sorted.end(), [&](const auto& e) { return e.first < bound; });
      const auto at_most = std::count_if(sorted.begin(), sorted.end(), [&](const auto& e) { return e.first <= bound; });
      ASSERT_EQ(ranked.count_below(bound), static_cast<std::size_t>(below));
      ASSERT_EQ(ranked.count_at_most(bound), static_cast<std::size_t>(at_most));
    }
  }
}

// The header's example, then moves up and down past equal keys (which go in
// slot order) and an erasure.
TEST(RankedKeys, AChangedKeyMovesPastTheKeysBetweenAndEqualKeysStayInSlotOrder) {
  RankedKeys<double> ranked(5);
  ranked.set(0, 7.0);
  ranked.set(1, 4.0);
  ranked.set(2, 5.0);
  ranked.set(3, 1.5);
  const auto slots = [&] {
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < ranked.size(); ++k) out.push_back(ranked.slot_at(k));
    return out;
  };
  EXPECT_EQ(slots(), (std::vector<std::size_t>{3, 1, 2, 0}));
  EXPECT_EQ(ranked.count_below(5.0), 2u);
  EXPECT_EQ(ranked.count_at_most(5.0), 3u);
  ranked.set(1, 6.0);  // up, past slot 2
  EXPECT_EQ(slots(), (std::vector<std::size_t>{3, 2, 1, 0}));
  ranked.set(4, 6.0);  // equal to slot 1's: after it
  ranked.set(0, 6.0);  // down, past slot 4 and before slot 1 (slot order)
  EXPECT_EQ(slots(), (std::vector<std::size_t>{3, 2, 0, 1, 4}));
  ranked.set(3, 6.0);  // up to the last of the equal keys
  EXPECT_EQ(slots(), (std::vector<std::size_t>{2, 0, 1, 3, 4}));
  ranked.erase(1);
  ranked.set(4, 1.0);  // down to the first place
  EXPECT_EQ(slots(), (std::vector<std::size_t>{4, 2, 0, 3}));
  EXPECT_EQ(ranked.key_at(3), 6.0);
  EXPECT_EQ(ranked.count_below(6.0), 2u);
  EXPECT_EQ(ranked.count_at_most(6.0), 4u);
  EXPECT_FALSE(ranked.holds(1));
}

}  // namespace
}  // namespace prefixroute::ranked_keys_test
