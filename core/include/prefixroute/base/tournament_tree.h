// TournamentTree: n keys and, above them, a complete binary tree whose every
// node holds the least key below it, so "which is least?" and "which is the
// first, from position p on, whose key is at most x?" take one walk of the
// tree instead of a scan of all n.
//
// The simulator keeps one over its replicas: of the time each replica's next
// first token is due (the next event of the whole run is the least), and of
// when each replica's queued prefill drains (the least-wait replica is the
// first at or after a rotating start whose queue drains no later than
// max(now, the earliest): every idle replica ties at wait 0). A scan of R
// replicas per request reads R scattered records; these read ~2 log2 R nodes
// from one small array, so the per-request cost stays nearly flat from 4 to
// 256 replicas (docs/performance.md).
//
// Invariants: node i (1 <= i < width) holds min(node 2i, node 2i+1); leaves
// are nodes width .. width + n - 1, key j at node width + j; the padding
// leaves past n hold `empty` (a key no query asks for), so they never win.
// Ties go to the lower position.
//
// Cost: set() O(log n); assign() (every key at once) O(n); update() O(log n),
// up to the first node whose least is unchanged (a changed key changes the
// least only of the subtrees whose least it was or becomes); least() O(1);
// first_at_most() and position_of_least() O(log n). Memory: 2 * width keys, width = n rounded up
// to a power of two.
// `Key` needs operator< and copy (update(): operator== too).
#pragma once

#include <bit>
#include <cstddef>
#include <vector>

namespace prefixroute {

template <typename Key>
class TournamentTree {
 public:
  /// n keys, all `empty`: a key greater than any the tree will be asked about.
  TournamentTree(std::size_t n, Key empty)
      : size_(n), width_(std::bit_ceil(n == 0 ? std::size_t{1} : n)), nodes_(2 * width_, empty) {}

  std::size_t size() const { return size_; }
  const Key& operator[](std::size_t position) const { return nodes_[width_ + position]; }

  /// Sets key `position` (< size()) and the least keys above it.
  // set() and update() each spell out the children's compare: one helper for
  // both made the compiler inline the simulator's routing step differently
  // (+0.6 % instructions for every policy on the reference scenario).
  void set(std::size_t position, const Key& key) {
    std::size_t node = width_ + position;
    nodes_[node] = key;
    for (node >>= 1; node >= 1; node >>= 1) {
      const Key& left = nodes_[2 * node];
      const Key& right = nodes_[2 * node + 1];
      nodes_[node] = right < left ? right : left;
    }
  }
  /// set(), climbing only while the least keys change: the nodes above the
  /// first that keeps its least keep theirs too. For keys that change often
  /// and are rarely a large subtree's least, a few levels instead of log n;
  /// each level compares once more than set(). Needs Key's operator==.
  void update(std::size_t position, const Key& key) {
    std::size_t node = width_ + position;
    nodes_[node] = key;
    for (node >>= 1; node >= 1; node >>= 1) {
      const Key& left = nodes_[2 * node];
      const Key& right = nodes_[2 * node + 1];
      const Key& least = right < left ? right : left;
      if (least == nodes_[node]) return;
      nodes_[node] = least;
    }
  }

  /// Sets every key, key p = key_of(p), then each node's least from the
  /// bottom up: O(n), where n calls of set() take O(n log n). The same tree
  /// as those calls give (each node's least depends only on the keys below).
  template <typename KeyOf>
  void assign(KeyOf&& key_of) {
    for (std::size_t p = 0; p < size_; ++p) nodes_[width_ + p] = key_of(p);
    for (std::size_t node = width_ - 1; node >= 1; --node) {
      const Key& left = nodes_[2 * node];
      const Key& right = nodes_[2 * node + 1];
      nodes_[node] = right < left ? right : left;
    }
  }

  /// The least key (`empty` when size() is 0).
  const Key& least() const { return nodes_[1]; }

  /// The lowest position whose key is least().
  std::size_t position_of_least() const { return descend_to_first_at_most(1, nodes_[1]); }

  /// The lowest position >= `from` whose key is not greater than `bound`,
  /// or size() when there is none.
  std::size_t first_at_most(std::size_t from, const Key& bound) const {
    if (from >= size_) return size_;
    std::size_t node = width_ + from;
    // Climb until a subtree right of the path holds a key <= bound: the node
    // itself when it is the leaf `from`, else the right sibling of a left
    // child on the way up.
    if (bound < nodes_[node]) {
      for (;;) {
        if (node == 1) return size_;
        if ((node & 1) == 0 && !(bound < nodes_[node + 1])) {
          ++node;
          break;
        }
        node >>= 1;
      }
    }
    const std::size_t position = descend_to_first_at_most(node, bound);
    return position < size_ ? position : size_;
  }

 private:
  // The leftmost leaf under `node` (whose least key is <= bound) with key <= bound.
  std::size_t descend_to_first_at_most(std::size_t node, const Key& bound) const {
    while (node < width_) {
      node *= 2;
      if (bound < nodes_[node]) ++node;
    }
    return node - width_;
  }

  std::size_t size_;
  std::size_t width_;
  std::vector<Key> nodes_;  // nodes_[0] unused; 1 is the root
};

}  // namespace prefixroute
