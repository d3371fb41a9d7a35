// stable_sort_by_hash: sorts items by a 64-bit key spread uniformly (a hash),
// keeping the order of items with equal keys (a stable sort). One counting
// pass files the items into 2^b buckets by the key's top b bits (about one
// item per bucket), then each bucket is sorted on its own: by insertion
// when it holds a few items, by std::stable_sort when keys crowd into it
// (so keys that are not spread cost O(n log n), never O(n^2)).
//
// CHWBL sorts its hash ring with it: 256 points a replica, 65,536 at 256
// replicas, where std::sort's comparisons were most of a run's set-up
// (docs/performance.md, "4 to 256 replicas"). The result is the one
// std::stable_sort with `key(a) < key(b)` gives.
//
// Cost: O(n + 2^b) for spread keys, b = bit width of n clamped to [4, 16];
// n items of scratch plus 2^b + 1 counters (`scratch` is resized and
// overwritten; pass the same vector again to reuse its storage).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace prefixroute {

template <typename T, typename KeyOf>
void stable_sort_by_hash(std::vector<T>& items, std::vector<T>& scratch, KeyOf&& key) {
  const std::size_t n = items.size();
  if (n < 2) return;
  const int bits = std::clamp(static_cast<int>(std::bit_width(n)), 4, 16);
  const std::size_t buckets = std::size_t{1} << bits;
  const auto bucket_of = [&](const T& item) { return static_cast<std::size_t>(key(item) >> (64 - bits)); };
  // first[b] = the first slot of bucket b (a counting sort's prefix sums).
  std::vector<std::size_t> first(buckets + 1, 0);
  for (const T& item : items) ++first[bucket_of(item) + 1];
  for (std::size_t b = 0; b < buckets; ++b) first[b + 1] += first[b];
  scratch.resize(n);
  {
    std::vector<std::size_t> next(first.begin(), first.end() - 1);
    for (T& item : items) scratch[next[bucket_of(item)]++] = std::move(item);
  }
  items.swap(scratch);
  constexpr std::size_t kInsertionMax = 16;
  for (std::size_t b = 0; b < buckets; ++b) {
    const auto begin = items.begin() + static_cast<std::ptrdiff_t>(first[b]);
    const auto end = items.begin() + static_cast<std::ptrdiff_t>(first[b + 1]);
    if (end - begin < 2) continue;
    if (static_cast<std::size_t>(end - begin) > kInsertionMax) {
      std::stable_sort(begin, end, [&](const T& x, const T& y) { return key(x) < key(y); });
      continue;
    }
    // Insertion: an item moves left past greater keys only (equal keys keep their order).
    for (auto i = begin + 1; i != end; ++i) {
      T item = std::move(*i);
      const std::uint64_t k = key(item);
      auto j = i;
      for (; j != begin && k < key(*(j - 1)); --j) *j = std::move(*(j - 1));
      *j = std::move(item);
    }
  }
}

}  // namespace prefixroute
