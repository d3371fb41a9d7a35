// IndexedMinHeap (prefixroute/indexed_min_heap.h) against std::set of the same
// (key, id) pairs: after every push or erase of a random id, the least entry,
// the size, membership and each member's key agree. Keys come from a small
// set so that ties (broken by id) are common.
#include "prefixroute/base/indexed_min_heap.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "prefixroute/base/random.h"

namespace prefixroute::indexed_min_heap_test {
namespace {

TEST(IndexedMinHeap, AgreesWithAnOrderedSetAfterEveryOperation) {
  Rng rng(11);
  for (const std::uint32_t ids : {1u, 2u, 7u, 64u, 500u}) {
    IndexedMinHeap heap;
    std::set<std::pair<IndexedMinHeap::Key, IndexedMinHeap::Id>> reference;
    std::vector<IndexedMinHeap::Key> key_of(ids);
    for (int step = 0; step < 5000; ++step) {
      const auto id = static_cast<IndexedMinHeap::Id>(rng.below(ids));
      if (heap.contains(id) && rng.below(3) != 0) {
        heap.erase(id);
        reference.erase({key_of[id], id});
      } else if (!heap.contains(id)) {
        // Small keys, with and without the top bit (RadixCache's protected
        // flag), so that ties and the key's full width are both exercised.
        key_of[id] = rng.below(8) | (rng.below(2) << 63);
        heap.push(id, key_of[id]);
        reference.insert({key_of[id], id});
      } else if (!reference.empty()) {
        // Remove the least, as eviction does.
        const IndexedMinHeap::Id least = heap.least();
        heap.erase(least);
        ASSERT_EQ(least, reference.begin()->second);
        reference.erase(reference.begin());
      }
      ASSERT_EQ(heap.size(), reference.size()) << "ids " << ids << " step " << step;
      if (!reference.empty()) {
        ASSERT_EQ(heap.least(), reference.begin()->second) << "ids " << ids << " step " << step;
      }
      for (IndexedMinHeap::Id i = 0; i < ids; ++i) {
        const bool member = reference.count({key_of[i], i}) > 0;
        ASSERT_EQ(heap.contains(i), member) << "id " << i << " step " << step;
        if (member) {
          ASSERT_EQ(heap.key(i), key_of[i]);
        }
      }
    }
  }
}

TEST(IndexedMinHeap, ErasingAnAbsentIdChangesNothing) {
  IndexedMinHeap heap;
  heap.erase(3);
  heap.push(5, 9);
  heap.erase(4);
  heap.erase(1000);
  EXPECT_EQ(heap.size(), 1u);
  EXPECT_EQ(heap.least(), 5u);
  EXPECT_FALSE(heap.contains(1000));
}

}  // namespace
}  // namespace prefixroute::indexed_min_heap_test
