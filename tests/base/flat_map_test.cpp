// FlatMap (prefixroute/base/flat_map.h) against std::unordered_map: the same
// answers after every random insert, erase and lookup, through growth and
// backward-shift deletions in long probe runs.
#include "prefixroute/base/flat_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::flat_map_test {
namespace {

// Keys drawn from a small pool with shared low bits, so probe runs collide and
// wrap; every key is nonzero, as FlatMap requires.
TEST(FlatMap, AgreesWithAnUnorderedMapOnRandomOperations) {
  Rng rng(20261207);
  FlatMap<std::uint32_t> map;
  std::unordered_map<std::uint64_t, std::uint32_t> reference;
  std::vector<std::uint64_t> pool;
  for (int i = 0; i < 600; ++i) pool.push_back((rng.below(1u << 20) << 6) | 1u);
  for (int step = 0; step < 50000; ++step) {
    const std::uint64_t key = pool[rng.below(pool.size())];
    const auto op = rng.below(3);
    if (op == 0 && reference.count(key) == 0) {
      const auto value = static_cast<std::uint32_t>(rng.below(1u << 30));
      map.insert(key, value);
      reference[key] = value;
    } else if (op == 1) {
      map.erase(key);
      reference.erase(key);
    }
    const std::uint32_t* found = map.find(key);
    const auto it = reference.find(key);
    ASSERT_EQ(found != nullptr, it != reference.end()) << "step " << step;
    if (found != nullptr) ASSERT_EQ(*found, it->second) << "step " << step;
    ASSERT_EQ(map.size(), reference.size());
  }
  for (const std::uint64_t key : pool) {
    const auto it = reference.find(key);
    const std::uint32_t* found = map.find(key);
    ASSERT_EQ(found != nullptr, it != reference.end());
  }
}

TEST(FlatMap, UpdateValuesRewritesEveryValue) {
  FlatMap<std::uint64_t> map;
  for (std::uint64_t k = 1; k <= 100; ++k) map.insert(k * 0x9e3779b97f4a7c15ULL, k);
  map.update_values([](std::uint64_t& v) { v *= 2; });
  for (std::uint64_t k = 1; k <= 100; ++k) EXPECT_EQ(*map.find(k * 0x9e3779b97f4a7c15ULL), 2 * k);
}

}  // namespace
}  // namespace prefixroute::flat_map_test
