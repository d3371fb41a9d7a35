// RankedKeys: n slots, each holding a key or nothing, and the held keys in
// order ((key, slot): equal keys in slot order), so "which is the k-th
// least?" is one read and "how many are below x?" one binary search: the
// held slots are kept in one array sorted by (key, slot).
//
//   slots:  0: 7.0   1: 4.0   2: 5.0   3: 1.5   4: (none)
//   order:  [3 1 2 0]              (keys 1.5 4.0 5.0 7.0)
//
//   slot_at(0) = 3, slot_at(3) = 0, count_below(5.0) = 2, count_at_most(5.0) = 3
//
//   set(1, 6.0): slot 1 leaves its place, slot 2 moves down one, and slot 1
//   goes in before slot 0: [3 2 1 0]   (keys 1.5 5.0 6.0 7.0)
//
// A changed key moves only past the entries between its old and its new
// place (one block move of 4-byte slots), and the searches for both places
// read two small contiguous arrays (the order, the keys): for the few
// hundred slots AibrixPrefix keeps
// (aibrix_load_ranks.h: its replicas' load scores, whose medians its
// normalisation needs as k-th least keys), that costs fewer instructions
// than a balanced tree's O(log n) pointer walk with its rebalancing.
//
// Invariants: order_ holds every slot s with held_[s], each once, strictly
// increasing by (keys_[s], s).
// Cost: set, erase O(log n) comparisons plus a move of the entries between
// the old and the new place (at most n); slot_at, key_at, key, holds O(1);
// count_below, count_at_most O(log n). Memory: three arrays of n.
// `Key` needs operator< and copy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

template <typename Key>
class RankedKeys {
 public:
  /// n slots, none holding a key.
  explicit RankedKeys(std::size_t n = 0) : keys_(n), held_(n, 0) { order_.reserve(n); }

  std::size_t slots() const { return keys_.size(); }
  /// The keys held.
  std::size_t size() const { return order_.size(); }
  bool holds(std::size_t slot) const { return held_[slot] != 0; }
  /// Slot `slot`'s key (requires holds(slot)).
  const Key& key(std::size_t slot) const { return keys_[slot]; }

  /// Slot `slot` (< slots()) holds `key` from now on.
  void set(std::size_t slot, const Key& key) {
    const auto s = static_cast<std::uint32_t>(slot);
    const bool held = held_[slot] != 0;
    if (held && !(keys_[slot] < key) && !(key < keys_[slot])) return;  // the same place
    // Both places are found while keys_[slot] still holds the old key.
    const auto to = place(key, s);
    if (!held) {
      order_.insert(to, s);
    } else {
      const auto from = place(keys_[slot], s);
      if (from < to) {  // up: the slots between move down one
        std::move(from + 1, to, from);
        *(to - 1) = s;
      } else {  // down: they move up one
        std::move_backward(to, from, from + 1);
        *to = s;
      }
    }
    keys_[slot] = key;
    held_[slot] = 1;
  }

  /// Slot `slot` holds nothing from now on.
  void erase(std::size_t slot) {
    if (held_[slot] == 0) return;
    order_.erase(place(keys_[slot], static_cast<std::uint32_t>(slot)));
    held_[slot] = 0;
  }

  /// The slot of the k-th least key, k counted from 0 (requires k < size()).
  std::size_t slot_at(std::size_t k) const { return order_[k]; }
  /// The k-th least key.
  const Key& key_at(std::size_t k) const { return keys_[order_[k]]; }

  /// The keys less than `bound`.
  std::size_t count_below(const Key& bound) const {
    return static_cast<std::size_t>(
        std::partition_point(order_.begin(), order_.end(), [&](std::uint32_t x) { return keys_[x] < bound; }) -
        order_.begin());
  }
  /// The keys not greater than `bound`.
  std::size_t count_at_most(const Key& bound) const {
    return static_cast<std::size_t>(
        std::partition_point(order_.begin(), order_.end(), [&](std::uint32_t x) { return !(bound < keys_[x]); }) -
        order_.begin());
  }

 private:
  using Iterator = typename std::vector<std::uint32_t>::iterator;
  // The first held slot not before (key, slot) (by key, then slot): its
  // place, or the slot itself.
  Iterator place(const Key& key, std::uint32_t slot) {
    return std::partition_point(order_.begin(), order_.end(), [&](std::uint32_t x) {
      return keys_[x] < key || (!(key < keys_[x]) && x < slot);
    });
  }

  // The held slots by (key, slot), increasing. Slots, not (key, slot) pairs:
  // a set moves every entry between the old and the new place (for AIBrix
  // prefix's load scores at 256 replicas, often far), and 4-byte entries
  // move 6x fewer bytes than 24-byte pairs; a search reads each key through
  // keys_ instead.
  std::vector<std::uint32_t> order_;
  std::vector<Key> keys_;  // per slot: its key, when held
  std::vector<std::uint8_t> held_;
};

}  // namespace prefixroute
