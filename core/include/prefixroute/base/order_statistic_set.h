// OrderStatisticSet: a set of positions 0 .. n-1 that answers "how many
// members lie below x?" and "which member has exactly k members below it?"
// without walking the members: a Fenwick tree of 0/1 counts.
//
// LMetric keeps its idle replicas in one: a uniform draw among tied replicas
// in replica order, where the tied are a few scored replicas plus every idle
// one, takes the k-th idle replica instead of listing them all.
//
// Invariants: member(x) is 1 exactly for members; node i (1-based) of tree_
// holds the members in positions (i - lowbit(i), i] (1-based); size() is the
// number of members.
// Cost: insert, erase, count_below and kth O(log n); contains O(1).
// Memory: 5 bytes per position.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

class OrderStatisticSet {
 public:
  /// An empty set over positions 0 .. n-1.
  explicit OrderStatisticSet(std::size_t n = 0)
      : tree_(n + 1, 0), member_(n, 0), top_(n == 0 ? 0 : std::bit_floor(n)) {}

  std::size_t positions() const { return member_.size(); }
  std::size_t size() const { return size_; }
  bool contains(std::size_t x) const { return member_[x] != 0; }

  /// Adds x (< positions()); nothing if it is a member.
  void insert(std::size_t x) {
    if (member_[x] != 0) return;
    member_[x] = 1;
    ++size_;
    for (std::size_t i = x + 1; i < tree_.size(); i += i & (~i + 1)) ++tree_[i];
  }

  /// Removes x (< positions()); nothing if it is not a member.
  void erase(std::size_t x) {
    if (member_[x] == 0) return;
    member_[x] = 0;
    --size_;
    for (std::size_t i = x + 1; i < tree_.size(); i += i & (~i + 1)) --tree_[i];
  }

  /// The members below x (x <= positions()).
  std::size_t count_below(std::size_t x) const {
    std::size_t count = 0;
    for (std::size_t i = x; i > 0; i -= i & (~i + 1)) count += tree_[i];
    return count;
  }

  /// The member with exactly k members below it. Requires k < size().
  std::size_t kth(std::size_t k) const {
    // Descend: the largest 1-based prefix holding at most k members ends
    // just before the k-th member.
    std::size_t at = 0;
    for (std::size_t step = top_; step > 0; step >>= 1) {
      if (at + step < tree_.size() && tree_[at + step] <= k) {
        at += step;
        k -= tree_[at];
      }
    }
    return at;  // 1-based prefix `at` ends before it: 0-based position at
  }

 private:
  std::vector<std::uint32_t> tree_;   // 1-based
  std::vector<std::uint8_t> member_;
  std::size_t top_;                   // the largest power of two <= positions()
  std::size_t size_ = 0;
};

}  // namespace prefixroute
