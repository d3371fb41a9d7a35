// ReferenceRadixCache: a trivially correct model of the rules in
// core/include/prefixroute/cache/radix_cache.h, for lockstep tests (GoogleTest
// tests/cache/radix_cache_test.cpp and the libFuzzer target
// fuzz/radix_lockstep_fuzzer.cpp drive the real cache and this model with the
// same operations and compare every answer).
//
// The model keeps no tree: the set of node end points as full token paths in
// an ordered map. A node's parent is its longest proper prefix in the map, its
// edge is the difference of the two lengths, it is a leaf when the next path
// in order does not extend it, and it is pinned when some pinned path starts
// with it. Every rule (split, hits, recency, protection, pins, reservations,
// eviction order) is applied by brute force on that set.
//
// Cost: every operation is O(nodes x prompt length) or worse; meant for caches
// of a few dozen tokens.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "prefixroute/cache/radix_cache.h"

namespace prefixroute::reference {

using Tokens = std::vector<Token>;
using Paths = std::vector<Tokens>;

inline bool starts_with(const Tokens& path, const Tokens& prefix) {
  return path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin());
}

inline std::size_t common_prefix(const Tokens& a, const Tokens& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

inline std::string show(const Tokens& t) {
  std::string s = "{";
  for (std::size_t i = 0; i < t.size(); ++i) s += (i ? "," : "") + std::to_string(t[i]);
  return s + "}";
}

/// The cached set as plain brute force over leaf paths: longest common prefix.
inline std::size_t brute_force_match(const Paths& leaves, const Tokens& p) {
  std::size_t best = 0;
  for (const Tokens& leaf : leaves) best = std::max(best, common_prefix(leaf, p));
  return best;
}

/// Tokens cached = distinct non-empty prefixes of the leaf paths: sorted, each
/// path adds its length minus what it shares with the one before.
inline std::size_t brute_force_size(Paths leaves) {
  std::sort(leaves.begin(), leaves.end());
  std::size_t total = 0;
  for (std::size_t i = 0; i < leaves.size(); ++i)
    total += leaves[i].size() - (i > 0 ? common_prefix(leaves[i], leaves[i - 1]) : 0);
  return total;
}

/// The model. Pins are named by the (kept) prompt path they were taken on.
class ReferenceRadixCache {
 public:
  ReferenceRadixCache(std::size_t capacity, std::uint32_t protect_after_hits)
      : capacity_(capacity), protect_after_hits_(protect_after_hits) {}

  std::size_t match(const Tokens& p) const {
    std::size_t best = 0;
    for (const auto& entry : nodes_) best = std::max(best, common_prefix(entry.first, p));
    return best;
  }

  RadixCache::InsertResult insert(Tokens p) {
    RadixCache::InsertResult r;
    if (p.size() > capacity_) p.resize(capacity_);
    if (p.empty()) return r;
    ++clock_;
    const std::size_t m = match(p);
    r.cached_tokens = m;
    // An insert ends a node at depth m (the split point, if m lies inside an
    // edge) and at depth |p| (the new leaf, or a split if p ends inside an edge).
    if (m > 0) split_at(Tokens(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(m)));
    // Every node lying entirely on the matched part counts a hit and is refreshed.
    for (auto& [path, node] : nodes_) {
      if (path.size() <= m && starts_with(p, path)) {
        ++node.hits;
        node.last_access = clock_;
      }
    }
    if (m < p.size()) {
      nodes_[p] = Node{clock_, 0};
      r.inserted_tokens = p.size() - m;
      size_ += r.inserted_tokens;
    }
    r.evicted_tokens = evict(&p);
    return r;
  }

  void pin(const Tokens& path) { pinned_.insert(path); }
  void unpin(const Tokens& path) { pinned_.erase(pinned_.find(path)); }
  std::size_t reserve(std::size_t tokens) {
    reserved_ += tokens;
    return evict(nullptr);
  }
  void release(std::size_t tokens) { reserved_ -= tokens; }

  std::size_t size() const { return size_; }
  std::size_t used() const { return size_ + reserved_; }
  std::size_t node_count() const { return nodes_.size(); }
  std::uint64_t evicted_total() const { return evicted_total_; }

  Paths leaf_paths() const {
    Paths leaves;
    for (auto it = nodes_.begin(); it != nodes_.end(); ++it)
      if (is_leaf(it)) leaves.push_back(it->first);
    return leaves;
  }

  /// Evictable leaves (unpinned), excluding `keep` when given.
  std::size_t candidates(const Tokens* keep) const {
    std::size_t n = 0;
    for (auto it = nodes_.begin(); it != nodes_.end(); ++it)
      if (is_leaf(it) && !is_pinned(it->first) && (keep == nullptr || it->first != *keep)) ++n;
    return n;
  }

  /// Set when two eviction candidates tied on (protected, last_access): the
  /// documented id tie-break would decide, which the model does not track.
  /// One insert stamps one root path, so such a tie is itself a finding.
  bool saw_recency_tie = false;

 private:
  struct Node {
    std::uint64_t last_access = 0;
    std::uint32_t hits = 0;
  };
  using Map = std::map<Tokens, Node>;

  bool is_leaf(Map::const_iterator it) const {
    const auto next = std::next(it);
    return next == nodes_.end() || !starts_with(next->first, it->first);
  }
  bool is_pinned(const Tokens& path) const {
    for (const Tokens& p : pinned_)
      if (starts_with(p, path)) return true;
    return false;
  }
  bool is_protected(const Node& n) const { return protect_after_hits_ > 0 && n.hits >= protect_after_hits_; }

  std::size_t parent_length(const Tokens& path) const {
    for (std::size_t len = path.size() - 1; len > 0; --len)
      if (nodes_.count(Tokens(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(len)))) return len;
    return 0;
  }

  // Makes `point` (a cached prefix) a node end, splitting the node whose edge
  // contains it (the shortest node path extending it): the new upper node
  // copies that node's recency and hits.
  void split_at(const Tokens& point) {
    if (nodes_.count(point)) return;
    const Tokens* below = nullptr;
    for (const auto& entry : nodes_)
      if (starts_with(entry.first, point) && (below == nullptr || entry.first.size() < below->size()))
        below = &entry.first;
    const Node copy = nodes_.at(*below);
    nodes_[point] = copy;
  }

  std::size_t evict(const Tokens* keep) {
    std::size_t evicted = 0;
    while (size_ + reserved_ > capacity_) {
      auto victim = nodes_.end();
      for (auto it = nodes_.begin(); it != nodes_.end(); ++it) {
        if (!is_leaf(it) || is_pinned(it->first) || (keep != nullptr && it->first == *keep)) continue;
        if (victim == nodes_.end()) {
          victim = it;
          continue;
        }
        const auto a = std::make_pair(is_protected(it->second), it->second.last_access);
        const auto b = std::make_pair(is_protected(victim->second), victim->second.last_access);
        if (a == b) saw_recency_tie = true;
        if (a < b) victim = it;
      }
      if (victim == nodes_.end()) break;  // everything left is pinned or kept
      const std::size_t edge = victim->first.size() - parent_length(victim->first);
      size_ -= edge;
      evicted += edge;
      nodes_.erase(victim);
    }
    evicted_total_ += evicted;
    return evicted;
  }

  std::size_t capacity_;
  std::uint32_t protect_after_hits_;
  std::size_t size_ = 0;
  std::size_t reserved_ = 0;
  std::uint64_t clock_ = 0;
  std::uint64_t evicted_total_ = 0;
  Map nodes_;
  std::multiset<Tokens> pinned_;
};

}  // namespace prefixroute::reference
