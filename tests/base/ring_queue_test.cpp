// RingQueue (prefixroute/base/ring_queue.h) against std::deque: the same
// front, back and size after every push and pop, through growth while the
// ring wraps, and copies and moves that keep the queue's order.
#include "prefixroute/base/ring_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "prefixroute/base/random.h"

namespace prefixroute::ring_queue_test {
namespace {

// Random pushes and pops (pushes a little more likely, so the queue grows
// through several doublings while its head moves around the ring).
TEST(RingQueue, AgreesWithADequeOnRandomPushesAndPops) {
  Rng rng(20261204);
  RingQueue<std::uint64_t> ring;
  std::deque<std::uint64_t> deque;
  for (int step = 0; step < 20000; ++step) {
    if (!deque.empty() && rng.below(100) < 45) {
      ring.pop_front();
      deque.pop_front();
    } else {
      const std::uint64_t value = rng.below(1u << 30);
      ring.push_back(value);
      deque.push_back(value);
    }
    ASSERT_EQ(ring.size(), deque.size()) << "step " << step;
    ASSERT_EQ(ring.empty(), deque.empty());
    if (!deque.empty()) {
      ASSERT_EQ(ring.front(), deque.front()) << "step " << step;
      ASSERT_EQ(ring.back(), deque.back()) << "step " << step;
    }
  }
  EXPECT_GE(ring.capacity(), 64u);  // it did grow while wrapped
}

// Growth while the head is mid-ring lays the elements out in queue order.
TEST(RingQueue, GrowingWhileWrappedKeepsTheOrder) {
  RingQueue<int> ring;
  ring.push_back(0);
  const std::size_t capacity = ring.capacity();
  ASSERT_GE(capacity, 2u);
  for (int i = 1; i < static_cast<int>(capacity); ++i) ring.push_back(i);
  ring.pop_front();
  ring.pop_front();
  const int last = static_cast<int>(capacity) + 1;
  ring.push_back(last - 1);
  ring.push_back(last);  // full, the head at slot 2 and the newest at slot 1
  ASSERT_EQ(ring.capacity(), capacity);
  ring.push_back(last + 1);  // grows
  EXPECT_EQ(ring.capacity(), 2 * capacity);
  for (int expected = 2; expected <= last + 1; ++expected) {
    ASSERT_EQ(ring.front(), expected);
    ring.pop_front();
  }
  EXPECT_TRUE(ring.empty());
}

// Elements with storage of their own: copies are independent, a move
// leaves the source empty, and clear() keeps the capacity.
TEST(RingQueue, CopiesAndMovesKeepTheElements) {
  RingQueue<std::string> ring;
  for (int i = 0; i < 7; ++i) ring.push_back(std::string(40, static_cast<char>('a' + i)));
  ring.pop_front();
  RingQueue<std::string> copy = ring;
  ring.pop_front();
  EXPECT_EQ(copy.size(), 6u);
  EXPECT_EQ(copy.front(), std::string(40, 'b'));
  EXPECT_EQ(ring.front(), std::string(40, 'c'));
  RingQueue<std::string> moved = std::move(copy);
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(moved.size(), 6u);
  EXPECT_EQ(moved.back(), std::string(40, 'g'));
  const std::size_t capacity = moved.capacity();
  moved.clear();
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(moved.capacity(), capacity);
  moved.push_back("x");
  EXPECT_EQ(moved.front(), "x");
}

}  // namespace
}  // namespace prefixroute::ring_queue_test
