// CountTally: how many of a set of counters hold each value, and the largest
// value held, for counters that move while being read (a replica's requests
// in flight): the most without a scan.
//
// InFlightOrder (sim/in_flight_order.h) keeps one beside its tree of the
// counts; AibrixLoadOrder (policies/aibrix_load_order.h) keeps one for the
// AIBrix gate's most.
//
// Invariants: at(c) is the number of counters at value c; most() is the
// largest c with at(c) > 0 (0 when there is none).
// Cost: move O(1) plus O(1) per unit the most falls; at, most O(1).
// Memory: one counter per value up to the largest seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

class CountTally {
 public:
  /// `n` counters, all at 0.
  explicit CountTally(std::size_t n = 0) : at_count_(1, static_cast<std::uint32_t>(n)) {}

  /// One counter moves from `from` to `to` (it was at `from`).
  void move(std::uint32_t from, std::uint32_t to) {
    if (from == to) return;
    --at_count_[from];
    if (to >= at_count_.size()) at_count_.resize(static_cast<std::size_t>(to) + 1, 0);
    ++at_count_[to];
    if (to > most_) most_ = to;
    while (most_ > 0 && at_count_[most_] == 0) --most_;
  }

  /// The counters at `count`.
  std::uint32_t at(std::uint32_t count) const { return count < at_count_.size() ? at_count_[count] : 0; }
  /// The largest count held.
  std::uint32_t most() const { return most_; }

 private:
  std::vector<std::uint32_t> at_count_;
  std::uint32_t most_ = 0;
};

}  // namespace prefixroute
