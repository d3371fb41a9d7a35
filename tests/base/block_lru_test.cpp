// BlockLru (prefixroute/base/block_lru.h) against a recency-ordered list: the
// same hash evicted at every touch, the same contents, through the log's start,
// its compactions and batched forget() calls.
#include "prefixroute/base/block_lru.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::block_lru_test {
namespace {

// The obvious LRU: most recent at the front.
class ListLru {
 public:
  explicit ListLru(std::size_t capacity) : capacity_(capacity) {}
  bool touch(std::uint64_t hash, std::uint64_t& evicted) {
    evicted = 0;
    const auto it = std::find(order_.begin(), order_.end(), hash);
    if (it != order_.end()) {
      order_.erase(it);
      order_.push_front(hash);
      return false;
    }
    if (order_.size() == capacity_) {
      evicted = order_.back();
      order_.pop_back();
    }
    order_.push_front(hash);
    return true;
  }
  bool contains(std::uint64_t hash) const { return std::find(order_.begin(), order_.end(), hash) != order_.end(); }
  std::size_t size() const { return order_.size(); }

 private:
  std::size_t capacity_;
  std::list<std::uint64_t> order_;
};

void run_lockstep(std::uint64_t seed, std::size_t capacity, std::size_t pool_size, int steps) {
  Rng rng(seed);
  BlockLru lru(capacity);
  ListLru reference(capacity);
  std::vector<std::uint64_t> pending;  // evicted hashes whose stale entries wait for forget()
  for (int step = 0; step < steps; ++step) {
    // Hashes 1 .. pool_size, mixed so the map's low bits vary.
    const std::uint64_t hash = (rng.below(pool_size) + 1) * 0x9e3779b97f4a7c15ULL;
    std::uint64_t evicted = 0, expected_evicted = 0;
    ASSERT_EQ(lru.touch(hash, evicted), reference.touch(hash, expected_evicted)) << "step " << step;
    ASSERT_EQ(evicted, expected_evicted) << "step " << step;
    if (evicted != 0) pending.push_back(evicted);
    if (pending.size() > 5 || rng.below(10) == 0) {
      for (const std::uint64_t h : pending) lru.forget(h);
      pending.clear();
    }
    ASSERT_EQ(lru.size(), reference.size());
    const std::uint64_t probe = (rng.below(pool_size) + 1) * 0x9e3779b97f4a7c15ULL;
    ASSERT_EQ(lru.contains(probe), reference.contains(probe)) << "step " << step;
  }
}

TEST(BlockLru, EvictsWhatARecencyListEvictsOnRandomTouches) {
  run_lockstep(1, 16, 40, 20000);    // often full: the log starts early and compacts often
  run_lockstep(2, 64, 70, 20000);    // mostly hits
  run_lockstep(3, 1, 5, 2000);       // a single slot
}

TEST(BlockLru, NeverEvictsBeforeItIsFull) {
  BlockLru lru(100);
  for (std::uint64_t h = 1; h <= 100; ++h) {
    std::uint64_t evicted = 1;
    EXPECT_TRUE(lru.touch(h * 7919, evicted));
    EXPECT_EQ(evicted, 0u);
  }
  EXPECT_EQ(lru.size(), 100u);
}

}  // namespace
}  // namespace prefixroute::block_lru_test
