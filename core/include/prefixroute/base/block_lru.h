// BlockLru: a set of block hashes with least-recently-used eviction at a
// fixed capacity (a replica's cache as llm-d's prefix scorer models it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/flat_map.h"

namespace prefixroute {

/// A set of block hashes with LRU eviction at a fixed capacity. Each held hash
/// has a slot with the time of its latest touch (a per-set counter). Once the
/// set first has to evict, every touch is also appended to a log of (time,
/// slot), started from the slots in time order; the least recent hash is the
/// slot of the oldest log entry whose time is still its slot's (older entries
/// of a slot touched again are stale and skipped). This evicts exactly what a
/// recency-ordered list would; a touch writes only its own slot (and appends to
/// the log), never neighbours scattered in
/// memory, and a set that never fills keeps no order at all. The log is
/// compacted (stale entries dropped, times renumbered 1..n in order) when it
/// exceeds 2 x size() + 64 entries: amortised O(1) per touch, at most that
/// many entries, and times below 3 x capacity + 65. A set that has not filled
/// renumbers (and starts its log) should its counter reach 2^32 - 1.
/// Eviction reuses the least recent slot at once but leaves the evicted hash's
/// map entry in place (stale: its slot now holds another hash) until forget()
/// removes it, so callers can batch those removals; every lookup checks the
/// slot's hash, so a stale entry never counts as held.
class BlockLru {
 public:
  explicit BlockLru(std::uint64_t capacity) : capacity_(capacity) {}

  bool contains(std::uint64_t hash) const {
    const std::uint32_t* slot = slots_.find(hash);
    return slot != nullptr && nodes_[*slot].hash == hash;
  }
  /// Hashes held (at most the capacity).
  std::size_t size() const { return nodes_.size(); }
  void prefetch(std::uint64_t hash) const { slots_.prefetch(hash); }

  /// Makes `hash` the most recent entry. Returns true when it was not held;
  /// then `evicted` is the hash dropped to make room (0 if none was), whose
  /// stale map entry stays until forget(evicted).
  bool touch(std::uint64_t hash, std::uint64_t& evicted) {
    evicted = 0;
    std::uint32_t* mapped = slots_.find(hash);
    if (mapped != nullptr && nodes_[*mapped].hash == hash) {
      stamp(*mapped);
      return false;
    }
    std::uint32_t slot;
    if (nodes_.size() < capacity_) {
      slot = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(Node{hash, 0});
    } else {
      if (!logging_) start_log();
      slot = pop_least_recent();  // reuse the least recent entry's slot
      evicted = nodes_[slot].hash;
      nodes_[slot].hash = hash;
    }
    if (mapped != nullptr) *mapped = slot; else slots_.insert(hash, slot);  // a stale entry is reused
    stamp(slot);
    return true;
  }

  /// Removes `hash`'s map entry if it is stale (no-op when held or absent).
  void forget(std::uint64_t hash) {
    const std::uint32_t* slot = slots_.find(hash);
    if (slot != nullptr && nodes_[*slot].hash != hash) slots_.erase(hash);
  }

 private:
  struct Node {
    std::uint64_t hash;
    std::uint32_t last;  // time of the latest touch
  };
  struct Touch {
    std::uint32_t when;
    std::uint32_t slot;
  };
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};

  void stamp(std::uint32_t slot) {
    if (clock_ == ~std::uint32_t{0}) start_log();  // renumbers
    nodes_[slot].last = ++clock_;
    if (!logging_) return;
    log_.push_back(Touch{clock_, slot});
    if (log_.size() > 2 * nodes_.size() + 64) compact();
  }

  // The log of every slot in time order, renumbered 1..n (times are
  // distinct: each touch has its own). Placed by time in one pass when the
  // times span at most 8 x n values (the usual case: a set fills after few
  // repeated touches), else sorted.
  void start_log() {
    const std::size_t n = nodes_.size();
    log_.clear();
    if (clock_ <= 8 * n + 64) {
      std::vector<std::uint32_t> by_time(static_cast<std::size_t>(clock_) + 1, kNone);
      for (std::size_t i = 0; i < n; ++i) by_time[nodes_[i].last] = static_cast<std::uint32_t>(i);
      for (const std::uint32_t slot : by_time)
        if (slot != kNone) log_.push_back(Touch{nodes_[slot].last, slot});
    } else {
      log_.resize(n);
      for (std::size_t i = 0; i < n; ++i) log_[i] = Touch{nodes_[i].last, static_cast<std::uint32_t>(i)};
      std::sort(log_.begin(), log_.end(), [](const Touch& a, const Touch& b) { return a.when < b.when; });
    }
    for (std::size_t i = 0; i < log_.size(); ++i) {
      log_[i].when = static_cast<std::uint32_t>(i + 1);
      nodes_[log_[i].slot].last = log_[i].when;
    }
    oldest_ = 0;
    clock_ = static_cast<std::uint32_t>(log_.size());
    logging_ = true;
  }

  // The slot of the least recent hash, its log entry consumed. Only called
  // when the set is full (not empty): every slot has one live entry.
  std::uint32_t pop_least_recent() {
    for (;;) {
      const Touch t = log_[oldest_++];
      if (nodes_[t.slot].last == t.when) return t.slot;
    }
  }

  // Keeps the live entries, in order, renumbered 1..n.
  void compact() {
    std::size_t out = 0;
    std::uint32_t time = 0;
    for (std::size_t i = oldest_; i < log_.size(); ++i) {
      const Touch t = log_[i];
      if (nodes_[t.slot].last != t.when) continue;
      nodes_[t.slot].last = ++time;
      log_[out++] = Touch{time, t.slot};
    }
    log_.resize(out);
    oldest_ = 0;
    clock_ = time;
  }

  std::uint64_t capacity_;
  FlatMap<std::uint32_t> slots_;
  std::vector<Node> nodes_;
  std::vector<Touch> log_;   // touches in time order; [oldest_, end) not yet consumed
  std::size_t oldest_ = 0;
  std::uint32_t clock_ = 0;
  bool logging_ = false;  // whether log_ is kept (from the first eviction on)
};

}  // namespace prefixroute
