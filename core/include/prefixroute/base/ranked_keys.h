// RankedKeys: n slots, each holding a key or nothing, and the held keys in
// order ((key, slot): equal keys in slot order), so "which is the k-th
// least?" is one read and "how many are below x?" one binary search: the
// held (key, slot) pairs are kept in one sorted array.
//
//   slots:  0: 7.0   1: 4.0   2: 5.0   3: 1.5   4: (none)
//   order:  [(1.5, 3) (4.0, 1) (5.0, 2) (7.0, 0)]
//
//   slot_at(0) = 3, slot_at(3) = 0, count_below(5.0) = 2, count_at_most(5.0) = 3
//
//   set(1, 6.0): (4.0, 1) leaves its place, (5.0, 2) moves down one, and
//   (6.0, 1) goes in before (7.0, 0): [(1.5, 3) (5.0, 2) (6.0, 1) (7.0, 0)]
//
// A changed key moves only past the entries between its old and its new
// place (one block move), and the search for both places reads one small
// contiguous array: for the few hundred slots AibrixPrefix keeps
// (aibrix_load_ranks.h: its replicas' load scores, whose medians its
// normalisation needs as k-th least keys), that costs fewer instructions
// than a balanced tree's O(log n) pointer walk with its rebalancing.
//
// Invariants: order_ holds (keys_[s], s) for every slot s with held_[s],
// each once, strictly increasing by (key, slot).
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
    const Entry entry{key, static_cast<std::uint32_t>(slot)};
    const bool held = held_[slot] != 0;
    if (held && !(keys_[slot] < key) && !(key < keys_[slot])) return;  // the same place
    const auto to = place(entry);  // with the old entry still in order_
    if (!held) {
      order_.insert(to, entry);
    } else {
      const auto from = place(Entry{keys_[slot], entry.slot});
      if (from < to) {  // up: the entries between move down one
        std::move(from + 1, to, from);
        *(to - 1) = entry;
      } else {  // down: they move up one
        std::move_backward(to, from, from + 1);
        *to = entry;
      }
    }
    keys_[slot] = key;
    held_[slot] = 1;
  }

  /// Slot `slot` holds nothing from now on.
  void erase(std::size_t slot) {
    if (held_[slot] == 0) return;
    order_.erase(place(Entry{keys_[slot], static_cast<std::uint32_t>(slot)}));
    held_[slot] = 0;
  }

  /// The slot of the k-th least key, k counted from 0 (requires k < size()).
  std::size_t slot_at(std::size_t k) const { return order_[k].slot; }
  /// The k-th least key.
  const Key& key_at(std::size_t k) const { return order_[k].key; }

  /// The keys less than `bound`.
  std::size_t count_below(const Key& bound) const {
    return static_cast<std::size_t>(
        std::partition_point(order_.begin(), order_.end(), [&](const Entry& e) { return e.key < bound; }) -
        order_.begin());
  }
  /// The keys not greater than `bound`.
  std::size_t count_at_most(const Key& bound) const {
    return static_cast<std::size_t>(
        std::partition_point(order_.begin(), order_.end(), [&](const Entry& e) { return !(bound < e.key); }) -
        order_.begin());
  }

 private:
  struct Entry {
    Key key;
    std::uint32_t slot;
  };
  using Iterator = typename std::vector<Entry>::iterator;
  // The first entry not before `e` (by key, then slot): e's place, or e itself.
  Iterator place(const Entry& e) {
    return std::partition_point(order_.begin(), order_.end(), [&](const Entry& x) {
      return x.key < e.key || (!(e.key < x.key) && x.slot < e.slot);
    });
  }

  std::vector<Entry> order_;  // the held (key, slot), increasing
  std::vector<Key> keys_;     // per slot: its key, when held
  std::vector<std::uint8_t> held_;
};

}  // namespace prefixroute
