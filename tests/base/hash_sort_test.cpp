// stable_sort_by_hash (prefixroute/base/hash_sort.h) against std::stable_sort:
// the same order for spread hashes, for keys crowded into few buckets, and
// for equal keys (which keep their input order), at sizes around the
// bucket counts.
#include "prefixroute/base/hash_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::hash_sort_test {
namespace {

struct Item {
  std::uint64_t key;
  std::uint32_t order;  // input position: equal keys must keep it ascending
  bool operator==(const Item&) const = default;
};

std::vector<Item> sorted_by_std(std::vector<Item> items) {
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
  return items;
}

void expect_sorted_as_std(const std::vector<Item>& items, const char* what) {
  std::vector<Item> ours = items, scratch;
  stable_sort_by_hash(ours, scratch, [](const Item& item) { return item.key; });
  EXPECT_EQ(ours, sorted_by_std(items)) << what << ", " << items.size() << " items";
}

TEST(StableSortByHash, EqualsStdStableSort) {
  Rng rng(20261205);
  for (const std::size_t n : {0u, 1u, 2u, 15u, 16u, 17u, 100u, 1000u, 70000u}) {
    std::vector<Item> spread(n), crowded(n), few(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t hash = (rng.below(1u << 31) << 33) ^ (rng.below(1u << 31) << 2) ^ rng.below(4);
      spread[i] = Item{hash, i};
      crowded[i] = Item{hash >> 20, i};     // every key in the lowest bucket: the std::stable_sort path
      few[i] = Item{(hash % 5) << 60, i};   // five keys, many equal: insertion must keep their order
    }
    expect_sorted_as_std(spread, "spread hashes");
    expect_sorted_as_std(crowded, "keys in one bucket");
    expect_sorted_as_std(few, "five distinct keys");
  }
}

}  // namespace
}  // namespace prefixroute::hash_sort_test
