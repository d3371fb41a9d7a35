// RankedKeys: n slots, each holding a key or nothing, and the held keys in
// order ((key, slot): equal keys in slot order), so "which is the k-th
// least?" and "how many are below x?" need no scan: a treap (a binary search
// tree whose nodes also obey a heap order on fixed pseudo-random priorities,
// which keeps its expected depth O(log n) whatever the order of updates),
// each node counting the nodes below it.
//
//   (5.0, slot 2) size 4
//     left:  (1.5, slot 3) size 2
//              right: (4.0, slot 1) size 1
//     right: (7.0, slot 0) size 1
//
//   slot_at(0) = 3, slot_at(3) = 0, count_below(5.0) = 2, count_at_most(5.0) = 3
//
// A slot's priority is a hash of the slot, so the shape, like every answer,
// depends only on the keys held.
//
// AibrixPrefix keeps its replicas' load scores in two (aibrix_load_ranks.h):
// the medians its normalisation needs are k-th least keys.
//
// Invariants: a node's children are its (key, slot) predecessors (left) and
// successors (right) in its subtree; no child has a higher priority than its
// parent; size is the number of nodes in the subtree.
// Cost: set, erase O(log n) expected; slot_at, count_below, count_at_most
// O(log n) expected; key, holds O(1). Memory: one node per slot.
// `Key` needs operator< and copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

template <typename Key>
class RankedKeys {
 public:
  /// n slots, none holding a key.
  explicit RankedKeys(std::size_t n = 0) : nodes_(n) {
    for (std::size_t s = 0; s < n; ++s) nodes_[s].priority = priority_of(s);
  }

  std::size_t slots() const { return nodes_.size(); }
  /// The keys held.
  std::size_t size() const { return size_of(root_); }
  bool holds(std::size_t slot) const { return nodes_[slot].held; }
  /// Slot `slot`'s key (requires holds(slot)).
  const Key& key(std::size_t slot) const { return nodes_[slot].key; }

  /// Slot `slot` (< slots()) holds `key` from now on.
  void set(std::size_t slot, const Key& key) {
    const auto x = static_cast<std::uint32_t>(slot);
    if (nodes_[x].held) {
      if (!(nodes_[x].key < key) && !(key < nodes_[x].key)) return;  // the same place
      root_ = remove(root_, x);
    }
    Node& node = nodes_[x];
    node.key = key;
    node.held = true;
    node.left = node.right = kNone;
    node.size = 1;
    root_ = insert(root_, x);
  }

  /// Slot `slot` holds nothing from now on.
  void erase(std::size_t slot) {
    const auto x = static_cast<std::uint32_t>(slot);
    if (!nodes_[x].held) return;
    root_ = remove(root_, x);
    nodes_[x].held = false;
  }

  /// The slot of the k-th least key, k counted from 0 (requires k < size()).
  std::size_t slot_at(std::size_t k) const {
    std::uint32_t t = root_;
    for (;;) {
      const std::size_t left = size_of(nodes_[t].left);
      if (k < left) {
        t = nodes_[t].left;
      } else if (k == left) {
        return t;
      } else {
        k -= left + 1;
        t = nodes_[t].right;
      }
    }
  }
  /// The k-th least key.
  const Key& key_at(std::size_t k) const { return nodes_[slot_at(k)].key; }

  /// The keys less than `bound`.
  std::size_t count_below(const Key& bound) const {
    std::size_t count = 0;
    for (std::uint32_t t = root_; t != kNone;) {
      if (nodes_[t].key < bound) {
        count += size_of(nodes_[t].left) + 1;
        t = nodes_[t].right;
      } else {
        t = nodes_[t].left;
      }
    }
    return count;
  }
  /// The keys not greater than `bound`.
  std::size_t count_at_most(const Key& bound) const {
    std::size_t count = 0;
    for (std::uint32_t t = root_; t != kNone;) {
      if (!(bound < nodes_[t].key)) {
        count += size_of(nodes_[t].left) + 1;
        t = nodes_[t].right;
      } else {
        t = nodes_[t].left;
      }
    }
    return count;
  }

 private:
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  struct Node {
    Key key{};
    std::uint32_t left = kNone, right = kNone, size = 0, priority = 0;
    bool held = false;
  };

  static std::uint32_t priority_of(std::size_t slot) {  // splitmix64's finaliser
    std::uint64_t z = static_cast<std::uint64_t>(slot) + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
  }
  std::uint32_t size_of(std::uint32_t t) const { return t == kNone ? 0 : nodes_[t].size; }
  void pull(std::uint32_t t) { nodes_[t].size = 1 + size_of(nodes_[t].left) + size_of(nodes_[t].right); }
  // Whether node a comes before node b: by key, then by slot.
  bool before(std::uint32_t a, std::uint32_t b) const {
    const Key& ka = nodes_[a].key;
    const Key& kb = nodes_[b].key;
    return ka < kb || (!(kb < ka) && a < b);
  }

  // Splits subtree t into the nodes before x (into l) and after x (into r).
  void split(std::uint32_t t, std::uint32_t x, std::uint32_t& l, std::uint32_t& r) {
    if (t == kNone) {
      l = r = kNone;
      return;
    }
    if (before(t, x)) {
      std::uint32_t right = kNone;
      split(nodes_[t].right, x, right, r);
      nodes_[t].right = right;
      l = t;
    } else {
      std::uint32_t left = kNone;
      split(nodes_[t].left, x, l, left);
      nodes_[t].left = left;
      r = t;
    }
    pull(t);
  }
  // Joins a and b, every node of a before every node of b.
  std::uint32_t merge(std::uint32_t a, std::uint32_t b) {
    if (a == kNone) return b;
    if (b == kNone) return a;
    if (nodes_[a].priority > nodes_[b].priority) {
      nodes_[a].right = merge(nodes_[a].right, b);
      pull(a);
      return a;
    }
    nodes_[b].left = merge(a, nodes_[b].left);
    pull(b);
    return b;
  }
  std::uint32_t insert(std::uint32_t t, std::uint32_t x) {
    if (t == kNone) return x;
    if (nodes_[x].priority > nodes_[t].priority) {
      std::uint32_t l = kNone, r = kNone;
      split(t, x, l, r);
      nodes_[x].left = l;
      nodes_[x].right = r;
      pull(x);
      return x;
    }
    if (before(x, t)) {
      nodes_[t].left = insert(nodes_[t].left, x);
    } else {
      nodes_[t].right = insert(nodes_[t].right, x);
    }
    ++nodes_[t].size;
    return t;
  }
  std::uint32_t remove(std::uint32_t t, std::uint32_t x) {
    if (t == x) return merge(nodes_[t].left, nodes_[t].right);
    if (before(x, t)) {
      nodes_[t].left = remove(nodes_[t].left, x);
    } else {
      nodes_[t].right = remove(nodes_[t].right, x);
    }
    --nodes_[t].size;
    return t;
  }

  std::vector<Node> nodes_;
  std::uint32_t root_ = kNone;
};

}  // namespace prefixroute
