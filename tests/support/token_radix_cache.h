// TokenRadixCache: the radix cache as it was before prompts became pieces of
// runs: edges are token arrays, every comparison reads tokens. Kept as the
// oracle of the run-based RadixCache (tests/cache/radix_cache_lockstep_test.cpp
// drives both with the same operations and compares every answer), with the
// same eviction, protection, pin and budget rules, documented in
// core/include/prefixroute/cache/radix_cache.h. Not used by the core.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prefixroute/base/indexed_min_heap.h"
#include "prefixroute/base/token.h"

#include "../../core/src/base/first_difference.h"
#include "../../core/src/base/text.h"
#include "../../core/src/cache/sorted_children.h"

namespace prefixroute::testsupport {

class TokenRadixCache {
 public:
  /// Default hit count from which a node is protected.
  static constexpr std::uint32_t kDefaultProtectAfterHits = 32;


  /// Names the node that ends an inserted path, for pin()/unpin(). Stays
  /// valid while the path is pinned (a pinned node is never evicted; a split
  /// keeps the lower part's id).
  using PathHandle = std::uint32_t;

  struct InsertResult {
    std::size_t cached_tokens = 0;   ///< leading tokens that were already cached
    std::size_t inserted_tokens = 0; ///< tokens newly added to the tree
    std::size_t evicted_tokens = 0;  ///< tokens evicted to restore the budget
    PathHandle path = 0;             ///< end of the inserted path (the root if nothing was inserted)
  };

  explicit TokenRadixCache(std::size_t capacity_tokens,
                      std::uint32_t protect_after_hits = kDefaultProtectAfterHits);

  /// Length of the longest cached prefix of `tokens` (partial edges count).
  std::size_t match(TokenSpan tokens) const;

  /// Caches `tokens` (at most the first capacity() of them) and evicts to budget.
  /// `known_cached`: a length the caller has just learnt is cached (a match of
  /// this cache, as a router's index gives it); the walk does not re-read
  /// those tokens' edges, which at hundreds of replicas are rarely in the CPU
  /// cache. It must not exceed match(tokens); 0 compares every token.
  InsertResult insert(TokenSpan tokens, std::size_t known_cached = 0);

  /// Pins every node of the path ending at `path` (a reference count).
  void pin(PathHandle path);
  /// Releases one pin of the path; an unpinned leaf becomes evictable again.
  void unpin(PathHandle path);
  /// Reserves private tokens (outputs of running requests) against the budget,
  /// evicting unpinned leaves as needed.
  void reserve(std::size_t tokens);
  void release(std::size_t tokens);

  /// Tokens in the tree.
  std::size_t size() const { return size_; }
  /// Tokens in the tree plus reserved private tokens: what counts against the budget.
  std::size_t used() const { return size_ + reserved_; }
  std::size_t reserved() const { return reserved_; }
  std::size_t capacity() const { return capacity_; }
  std::uint32_t protect_after_hits() const { return protect_after_hits_; }
  /// Nodes in the tree, root excluded.
  std::size_t node_count() const { return nodes_.size() - free_.size() - 1; }
  /// Total tokens evicted since construction.
  std::uint64_t evicted_total() const { return evicted_total_; }



  /// Verifies every invariant by walking the tree; returns "" or a description
  /// of the first violation. O(N log N); for tests.
  std::string check_invariants() const;

  /// Every cached path from the root to a leaf, as token sequences, in tree
  /// order (children by first token). For tests and debugging.
  std::vector<std::vector<Token>> leaf_paths() const;

 private:
  using NodeId = std::uint32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr NodeId kNone = ~NodeId{0};

  struct Child {
    Token first;
    NodeId node;
  };

  struct Node {
    std::vector<Token> edge;
    std::vector<Child> children;  // sorted by first token
    NodeId parent = kNone;
    std::uint64_t last_access = 0;
    std::uint32_t hits = 0;
    std::uint32_t pins = 0;  // running requests whose path passes through this node
  };

  // (protected, last_access) in one word, protected in the top bit (the
  // clock never reaches 2^63); with the id as the heap's tie-break, heap
  // order is the eviction order (protected, last_access, id).
  using CandidateKey = IndexedMinHeap::Key;

  NodeId allocate();
  void free_node(NodeId id);
  NodeId find_child(const Node& node, Token first) const;
  void replace_child(NodeId parent, Token first, NodeId child);
  void add_child(NodeId parent, NodeId child);
  void remove_child(NodeId parent, Token first);
  bool is_protected(const Node& node) const;
  CandidateKey key_of(NodeId id) const;
  void drop_candidate(NodeId id);
  void refresh_candidate(NodeId id);
  NodeId split(NodeId id, std::size_t at);
  std::size_t evict_until_within_budget(NodeId keep);

  std::size_t capacity_;
  std::uint32_t protect_after_hits_;
  std::size_t size_ = 0;
  std::size_t reserved_ = 0;
  std::uint64_t clock_ = 0;
  std::uint64_t evicted_total_ = 0;
  std::vector<Node> nodes_;
  std::vector<NodeId> free_;
  IndexedMinHeap candidates_;  // the unpinned non-root leaves, by CandidateKey
  // Emptied edge buffers of freed nodes, handed to the next allocated nodes
  // (no malloc/free pair per evicted and new leaf). Bounded: at most
  // kSpareEdges buffers of at most kSpareEdgeTokens tokens (16 KB per cache).
  static constexpr std::size_t kSpareEdges = 4;
  static constexpr std::size_t kSpareEdgeTokens = 1024;
  std::vector<std::vector<Token>> spare_edges_;
  // For check_invariants()' budget rule: the node the last eviction pass had
  // to keep (kRoot after reserve()), and whether an unpin() since then made a
  // leaf evictable while over budget (eviction deferred to the next pass).
  NodeId last_kept_ = kRoot;
  bool eviction_deferred_ = false;
};



inline TokenRadixCache::TokenRadixCache(std::size_t capacity_tokens, std::uint32_t protect_after_hits)
    : capacity_(capacity_tokens), protect_after_hits_(protect_after_hits) {
  nodes_.emplace_back();  // the root: empty edge, never evicted
}


inline TokenRadixCache::NodeId TokenRadixCache::allocate() {
  if (!free_.empty()) {
    const NodeId id = free_.back();
    free_.pop_back();
    if (!spare_edges_.empty()) {
      nodes_[id].edge = std::move(spare_edges_.back());
      spare_edges_.pop_back();
    }
    return id;
  }
  nodes_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

inline void TokenRadixCache::free_node(NodeId id) {
  Node& node = nodes_[id];
  node.edge.clear();
  // Keep a few small buffers for the next new nodes: an insert that evicts
  // usually frees a leaf about the size of the one it just allocated.
  if (spare_edges_.size() < kSpareEdges && node.edge.capacity() <= kSpareEdgeTokens) {
    spare_edges_.push_back(std::move(node.edge));
    node.edge = {};
  } else {
    node.edge.shrink_to_fit();
  }
  node.children.clear();
  node.parent = kNone;
  node.hits = 0;
  node.pins = 0;
  node.last_access = 0;
  free_.push_back(id);
}

inline TokenRadixCache::NodeId TokenRadixCache::find_child(const Node& node, Token first) const {
  return sorted_children::find(node.children, first, kNone);
}

inline void TokenRadixCache::replace_child(NodeId parent, Token first, NodeId child) {
  sorted_children::replace(nodes_[parent].children, first, child);
}

inline void TokenRadixCache::add_child(NodeId parent, NodeId child) {
  sorted_children::insert(nodes_[parent].children, Child{nodes_[child].edge.front(), child});
  nodes_[child].parent = parent;
}

inline void TokenRadixCache::remove_child(NodeId parent, Token first) {
  sorted_children::erase(nodes_[parent].children, first);
}

inline bool TokenRadixCache::is_protected(const Node& node) const {
  return protect_after_hits_ > 0 && node.hits >= protect_after_hits_;
}

inline TokenRadixCache::CandidateKey TokenRadixCache::key_of(NodeId id) const {
  const Node& node = nodes_[id];
  return (CandidateKey{is_protected(node)} << 63) | node.last_access;
}

inline void TokenRadixCache::drop_candidate(NodeId id) { candidates_.erase(id); }

// Re-files a node after its recency, hits, pins or children changed: it is a
// candidate exactly when it is an unpinned non-root leaf. Callers must drop_candidate()
// *before* changing last_access or hits, since the stored key is derived from them.
inline void TokenRadixCache::refresh_candidate(NodeId id) {
  const Node& node = nodes_[id];
  const bool should = id != kRoot && node.children.empty() && node.pins == 0;
  const bool is = candidates_.contains(id);
  if (should && !is) {
    candidates_.push(id, key_of(id));
  } else if (!should && is) {
    candidates_.erase(id);
  }
}

inline std::size_t TokenRadixCache::match(TokenSpan tokens) const {
  std::size_t matched = 0;
  NodeId current = kRoot;
  while (matched < tokens.size()) {
    const NodeId child = find_child(nodes_[current], tokens[matched]);
    if (child == kNone) break;
    const auto& edge = nodes_[child].edge;
    const std::size_t limit = std::min(edge.size(), tokens.size() - matched);
    // The first token matched through find_child.
    const std::size_t common = first_difference(edge.data(), tokens.data() + matched, 1, limit);
    matched += common;
    if (common < edge.size()) break;
    current = child;
  }
  return matched;
}

// Splits node `id` so its first `at` tokens become a new parent node. Returns
// the new upper node. The lower node keeps its id, recency and hits, so its
// candidate key is unchanged.
inline TokenRadixCache::NodeId TokenRadixCache::split(NodeId id, std::size_t at) {
  const NodeId upper = allocate();
  Node& lower = nodes_[id];  // reference taken after allocate(): nodes_ may have grown
  Node& up = nodes_[upper];
  const NodeId parent = lower.parent;
  up.edge.assign(lower.edge.begin(), lower.edge.begin() + static_cast<std::ptrdiff_t>(at));
  lower.edge.erase(lower.edge.begin(), lower.edge.begin() + static_cast<std::ptrdiff_t>(at));
  up.hits = lower.hits;
  up.pins = lower.pins;  // every pinned path through the lower part passes the upper
  up.last_access = lower.last_access;
  up.parent = parent;
  up.children.push_back(Child{lower.edge.front(), id});
  lower.parent = upper;
  replace_child(parent, up.edge.front(), upper);
  return upper;
}

inline TokenRadixCache::InsertResult TokenRadixCache::insert(TokenSpan tokens, std::size_t known_cached) {
  // A known length beyond the real match would cache tokens that are not in
  // the prompt. Checked in debug builds (the sanitizer tests); O(L).
  assert(known_cached <= match(tokens));
  InsertResult result;
  if (tokens.size() > capacity_) tokens = tokens.first(capacity_);
  if (tokens.empty()) return result;
  ++clock_;
  NodeId current = kRoot;
  std::size_t pos = 0;
  while (pos < tokens.size()) {
    NodeId child = find_child(nodes_[current], tokens[pos]);
    if (child == kNone) {
      // Divergence at a node boundary: the rest of the prompt becomes one new leaf.
      const NodeId leaf = allocate();
      Node& node = nodes_[leaf];
      node.edge.assign(tokens.begin() + static_cast<std::ptrdiff_t>(pos), tokens.end());
      node.last_access = clock_;
      add_child(current, leaf);
          refresh_candidate(current);  // the parent is no longer a leaf
      refresh_candidate(leaf);
      result.inserted_tokens = tokens.size() - pos;
      size_ += result.inserted_tokens;
      current = leaf;
      pos = tokens.size();
      break;
    }
    const auto& edge = nodes_[child].edge;
    const std::size_t limit = std::min(edge.size(), tokens.size() - pos);
    // Compare from the first token not known to match: the first matched
    // through find_child, and those up to known_cached are known.
    const std::size_t from = known_cached > pos ? std::min(known_cached - pos, limit) : 1;
    const std::size_t common = first_difference(edge.data(), tokens.data() + pos, from, limit);
    if (common < edge.size()) child = split(child, common);
    // `child` now lies entirely on the prompt's path: count the hit, refresh it.
    drop_candidate(child);
    Node& node = nodes_[child];
    ++node.hits;
    node.last_access = clock_;
    refresh_candidate(child);
    pos += common;
    result.cached_tokens += common;
    current = child;
  }
  result.evicted_tokens = evict_until_within_budget(current);
  result.path = current;
  return result;
}

inline void TokenRadixCache::pin(PathHandle path) {
  for (NodeId id = path; id != kRoot; id = nodes_[id].parent) {
    if (nodes_[id].pins++ == 0) drop_candidate(id);
  }
}

inline void TokenRadixCache::unpin(PathHandle path) {
  for (NodeId id = path; id != kRoot; id = nodes_[id].parent) {
    if (--nodes_[id].pins == 0) refresh_candidate(id);
  }
  // unpin() does not evict (see "Budget rule"): the next insert()/reserve() will.
  if (used() > capacity_) eviction_deferred_ = true;
}

inline void TokenRadixCache::reserve(std::size_t tokens) {
  reserved_ += tokens;
  evict_until_within_budget(kRoot);
}

inline void TokenRadixCache::release(std::size_t tokens) { reserved_ -= tokens; }

inline std::size_t TokenRadixCache::evict_until_within_budget(NodeId keep) {
  last_kept_ = keep;
  eviction_deferred_ = false;
  if (used() <= capacity_) return 0;
  // The prompt's own last node must survive its insert; its ancestors are
  // internal nodes and never candidates. A prompt ending inside an edge ends
  // at an internal node (the split's upper part), which becomes a leaf when
  // its child is evicted: it must not become a candidate then either.
  drop_candidate(keep);
  std::size_t evicted = 0;
  while (used() > capacity_ && !candidates_.empty()) {
    const NodeId victim = candidates_.least();
    drop_candidate(victim);
    Node& node = nodes_[victim];
    const NodeId parent = node.parent;
    evicted += node.edge.size();
    size_ -= node.edge.size();
    remove_child(parent, node.edge.front());
      free_node(victim);
    if (parent != keep) refresh_candidate(parent);
  }
  refresh_candidate(keep);
  evicted_total_ += evicted;
  return evicted;
}

inline std::string TokenRadixCache::check_invariants() const {
  Text problem;
  std::size_t recount = 0;
  std::size_t leaves = 0;
  std::size_t reachable = 0;
  std::vector<NodeId> stack{kRoot};
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    const Node& node = nodes_[id];
    if (id != kRoot) {
      ++reachable;
      if (node.edge.empty()) problem << "node " << id << " has an empty edge; ";
      recount += node.edge.size();
      const bool evictable = node.children.empty() && node.pins == 0;
      if (evictable) ++leaves;
      if (evictable != candidates_.contains(id)) problem << "node " << id << " candidate membership wrong; ";
      if (node.pins > nodes_[node.parent].pins && node.parent != kRoot)
        problem << "node " << id << " pinned more than its parent; ";
      if (candidates_.contains(id) && candidates_.key(id) != key_of(id))
        problem << "node " << id << " filed under a stale candidate key; ";
      const Node& parent = nodes_[node.parent];
      if (node.last_access > parent.last_access && node.parent != kRoot)
        problem << "node " << id << " newer than its parent; ";
    }
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      const Child& c = node.children[i];
      if (i > 0 && !(node.children[i - 1].first < c.first))
        problem << "children of " << id << " not sorted/distinct; ";
      if (nodes_[c.node].parent != id) problem << "parent link of " << c.node << " wrong; ";
      if (nodes_[c.node].edge.empty() || nodes_[c.node].edge.front() != c.first)
        problem << "child key of " << c.node << " wrong; ";
      stack.push_back(c.node);
    }
  }
  if (recount != size_) problem << "size counter " << size_ << " != recount " << recount << "; ";
  const bool only_kept_left =
      candidates_.empty() ||
      (candidates_.size() == 1 && candidates_.least() == last_kept_);
  if (!eviction_deferred_ && used() > capacity_ && !only_kept_left)
    problem << "used " << used() << " exceeds capacity " << capacity_
            << " with evictable nodes other than the last insert's left; ";
  if (candidates_.size() != leaves) problem << "candidate set size != evictable leaf count; ";
  if (reachable != node_count()) problem << "unreachable nodes; ";
  return problem.str();
}

inline std::vector<std::vector<Token>> TokenRadixCache::leaf_paths() const {
  std::vector<std::vector<Token>> paths;
  std::vector<Token> prefix;
  // Iterative DFS in child order, carrying each node's prefix length.
  struct Frame { NodeId id; std::size_t depth; };
  std::vector<Frame> stack{{kRoot, 0}};
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    const Node& node = nodes_[f.id];
    prefix.resize(f.depth);
    prefix.insert(prefix.end(), node.edge.begin(), node.edge.end());
    if (f.id != kRoot && node.children.empty()) paths.push_back(prefix);
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it)
      stack.push_back({it->node, prefix.size()});
  }
  return paths;
}


}  // namespace prefixroute::testsupport
