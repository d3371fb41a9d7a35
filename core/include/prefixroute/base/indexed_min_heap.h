// IndexedMinHeap: a binary min-heap of (key, id) entries that also knows
// where each id sits, so any entry can be removed, not only the least.
//
// RadixCache keeps its eviction candidates in one: the victim is the least
// (protected, last_access, id), and a leaf leaves the candidates whenever it is
// touched, pinned or gets a child. A std::set did the same with one tree node
// per candidate; at 256 replicas those nodes, scattered over the heap, were
// the largest growing share of a request's time (docs/performance.md). Here
// the entries are one contiguous array, and a leaf re-filed after a touch,
// which has the newest recency, usually stays at the bottom where it is pushed
// (one compare; not when protected entries sort after it, nor for a parent
// re-filed after an eviction or an unpin, whose recency is old).
//
// Invariants: every entry's key is not less than its parent's; position_[id]
// is the entry's index in entries_ for ids in the heap, kAbsent otherwise.
// Ids are small integers (node ids); position_ grows to the largest id seen.
// Entries are (key, id) pairs ordered lexicographically, so with distinct ids
// the least entry is unique and the order of removals does not depend on the
// heap's shape: the same victims as an ordered set.
//
// Cost: push and erase O(log n) (a push whose key is not less than any other
// is one compare; an erase compares once per level below the erased entry,
// and as many times as the last entry rises from the bottom); least() and
// contains() O(1). Memory: 16 bytes per entry plus 4 per id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

class IndexedMinHeap {
 public:
  using Id = std::uint32_t;
  using Key = std::uint64_t;

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  bool contains(Id id) const { return id < position_.size() && position_[id] != kAbsent; }
  /// The id of the least entry. Requires !empty().
  Id least() const { return entries_.front().id(); }
  /// The key `id` was pushed with. Requires contains(id).
  Key key(Id id) const { return entries_[position_[id]].key(); }

  /// Room for `n` entries and ids below `n` without reallocating.
  void reserve(std::size_t n) {
    entries_.reserve(n);
    position_.reserve(n);
  }

  /// Adds `id` (not contained) with `key`.
  void push(Id id, Key key) {
    if (id >= position_.size()) position_.resize(static_cast<std::size_t>(id) + 1, kAbsent);
    entries_.push_back(make_entry(key, id));
    rise(entries_.size() - 1, entries_.back());
  }

  /// Removes `id` if it is contained.
  void erase(Id id) {
    if (!contains(id)) return;
    const std::size_t at = position_[id];
    position_[id] = kAbsent;
    const Entry last = entries_.back();
    entries_.pop_back();
    if (at == entries_.size()) return;  // it was the last entry
    // The hole at `at` sinks to the bottom along the lesser children, one
    // compare per level, and the last entry refills it from there upwards.
    // The last entry is usually among the greatest (the newest leaf), so it
    // rises little: cheaper than sifting it down from `at`, which compares
    // twice per level. Any hole works so: the entries moved up along the
    // path are each not less than the parent they get.
    rise(sink_hole(at), last);
  }

 private:
  static constexpr std::uint32_t kAbsent = ~std::uint32_t{0};

  // Key and id in one unsigned 128-bit word, key above id: one integer
  // compare orders entries by (key, id).
  __extension__ using Order = unsigned __int128;

  struct Entry {
    Order order;
    Key key() const { return static_cast<Key>(order >> 32); }
    Id id() const { return static_cast<Id>(order); }
    bool operator<(const Entry& other) const { return order < other.order; }
  };

  static Entry make_entry(Key key, Id id) { return Entry{(static_cast<Order>(key) << 32) | id}; }

  // Puts `moving` into the hole at `at`, or higher: parents greater than it
  // move down into the hole.
  void rise(std::size_t at, const Entry moving) {
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!(moving < entries_[parent])) break;
      place(at, entries_[parent]);
      at = parent;
    }
    place(at, moving);
  }

  // Moves the lesser child up into the hole at `at` until the hole has no
  // child; returns where the hole ended.
  std::size_t sink_hole(std::size_t at) {
    const std::size_t n = entries_.size();
    for (;;) {
      std::size_t child = 2 * at + 1;
      if (child >= n) return at;
      if (child + 1 < n && entries_[child + 1] < entries_[child]) ++child;
      place(at, entries_[child]);
      at = child;
    }
  }

  void place(std::size_t at, const Entry& entry) {
    entries_[at] = entry;
    position_[entry.id()] = static_cast<std::uint32_t>(at);
  }

  std::vector<Entry> entries_;
  std::vector<std::uint32_t> position_;  // by id
};

}  // namespace prefixroute
