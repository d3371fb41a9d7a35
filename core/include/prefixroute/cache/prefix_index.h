// PrefixIndex: one radix tree over the union of a cluster's prefix caches, whose
// nodes record which replicas hold them, so a router matches a prompt once and
// learns every replica's cached prefix length (what RadixCache::match would
// return on each replica), instead of walking the prompt once per replica.
//
//   replica 0 caches [1 2 3 4], replica 1 caches [1 2 9]:
//
//     (root)                          every replica node boundary is a node
//       | 1 2     {0,1}               boundary here (the union of the
//      (s)                            replicas' split points), so a node is
//     /    \                          wholly held or not held by a replica
//   3 4     9                         and a bitset per node says which.
//   {0}    {1}
//
//   match_all([1 2 3 7]) walks (s) then [3 4]: replica 0 matched 3, replica 1
//   matched 2 (it leaves the set at the end of (s)).
//
// Maintenance. Each indexed RadixCache reports its structural changes (a new
// leaf, a split, an evicted node) as it makes them, and the index mirrors
// them: a new leaf of replica r walks the shared tree from the node where r's
// parent ends, sets bit r along the way and splits a shared node where the
// leaf ends inside it; a split of r's node at depth d splits the shared node
// containing d (all its holders keep holding both parts); an eviction clears
// bit r on the shared nodes the evicted node covered and frees those no
// replica holds any more (they are leaves then). Recency, hits and pins are
// not indexed: they never change what a cache matches.
//
// Invariants (checked by check_invariants()): every non-root node has a
// non-empty holder set; a node's holders are a subset of its parent's (each
// cache is prefix-closed); children have distinct first tokens, sorted; a
// node's depth is its parent's plus its edge. Every boundary of every indexed
// cache's nodes is a boundary here, and match_all equals each cache's own
// match (the lockstep test in tests/cache/prefix_index_test.cpp drives both).
//
// Children: a sorted vector per node, moved to a hash map past 64
// (core/src/cache/child_links.h): a popular tenant's prefix has the cached
// turns of every replica as children, a number that grows with the replicas.
//
// Cost: match_all is O(L log F + D * R / 64 + R), match_held the same without the R, plus O(holders), and
// match_groups without either, for a prompt of L tokens,
// D shared nodes on its path and R replicas (F <= 64: wider nodes are hashed). Maintenance is O(new tokens + nodes on the changed path) per
// reported change. Memory: O(tokens in the
// union + nodes * R / 64) plus one id per cache node.
//
// Edges are pieces of the indexed caches' Content (base/content.h), copied
// from the caches' edges: a few pieces per node, whatever its length.
//
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/base/token.h"
#include "prefixroute/cache/held_groups.h"
#include "prefixroute/cache/held_prefix.h"
#include "prefixroute/cache/wide_links.h"

namespace prefixroute {

class RadixCache;
namespace prefix_walk {
template <class Tree>
struct Access;
}  // namespace prefix_walk

class PrefixIndex {
 public:
  explicit PrefixIndex(std::size_t replicas);

  std::size_t replicas() const { return replicas_; }

  /// out[r] = the cached prefix length of `prompt` on replica r, for every
  /// replica (out is resized to replicas()). The prompt may be of any content.
  void match_all(const Prompt& prompt, std::vector<std::size_t>& out) const;

  /// A replica with a non-empty cached prefix and its length.
  using Held = HeldPrefix;
  /// The replicas whose cached prefix of `tokens` is not empty, in replica
  /// order, with its length (every other replica matches 0). O(L log F +
  /// D * R / 64 + holders): no per-replica cost for replicas holding none of it.
  void match_held(const Prompt& prompt, std::vector<Held>& out) const;

  /// The same replicas as match_held, as one replica set per matched length
  /// (cache/held_groups.h): O(L log F + D * R / 64), nothing per holder.
  void match_groups(const Prompt& prompt, HeldGroups& out) const;

  // ---- changes reported by replica `replica`'s RadixCache ----
  /// Registers replica `replica`'s cache; RadixCache::attach_index calls it.
  /// Every indexed cache must keep runs of the same content.
  void attach(std::uint32_t replica, const RadixCache* cache);
  /// A new leaf `leaf` with edge `edge` under cache node `parent` (0 = root).
  void on_new_leaf(std::uint32_t replica, std::uint32_t parent, std::uint32_t leaf, const Prompt& edge);
  /// Cache node `lower`, whose edge had `lower_length` tokens, was split after
  /// its first `at` tokens into a new upper node `upper`.
  void on_split(std::uint32_t replica, std::uint32_t lower, std::uint32_t upper, std::size_t at,
                std::size_t lower_length);
  /// Cache leaf `node` with an edge of `length` tokens is being evicted.
  void on_evict(std::uint32_t replica, std::uint32_t node, std::size_t length);

  /// Nodes whose children are in the hash map (over 64 children). O(N); for tests.
  std::size_t wide_node_count() const;

  /// Nodes in the shared tree, root excluded.
  std::size_t node_count() const { return nodes_.size() - free_.size() - 1; }

  /// "" or a description of the first violated invariant; O(N * R / 64). For tests.
  std::string check_invariants() const;

 private:
  // The descent of walk() and on_new_leaf(), shared with the other radix
  // trees (core/src/cache/prefix_walk.h), reads the nodes through it.
  friend struct prefix_walk::Access<PrefixIndex>;

  /// The single walk behind match_all, match_held and match_groups (prefix_index.cpp).
  template <typename Drop>
  const std::uint64_t* walk(const Prompt& prompt, Drop&& drop) const;
  using NodeId = std::uint32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr NodeId kNone = ~NodeId{0};

  struct Child {
    Token first;
    NodeId node;
  };

  struct Node {
    std::vector<Piece> edge;      // pieces of content_
    std::vector<Child> children;  // sorted by first token; empty when wide
    bool wide = false;            // the children are in wide_links_
    NodeId parent = kNone;
    std::size_t end_depth = 0;  // prompt position just past this node's edge
    std::size_t length = 0;     // edge length
    Token first = 0;            // the edge's first token
  };

  Prompt edge_of(NodeId id) const { return Prompt{nodes_[id].edge, nodes_[id].length, content_}; }
  void set_edge(NodeId id, const Prompt& source, std::size_t from, std::size_t n);
  NodeId allocate();
  void free_node(NodeId id);
  NodeId find_child(NodeId parent, Token first) const;
  void add_child(NodeId parent, NodeId child);

  NodeId split(NodeId id, std::size_t at);
  std::uint64_t* bits(NodeId id) { return &bits_[static_cast<std::size_t>(id) * words_]; }
  const std::uint64_t* bits(NodeId id) const { return &bits_[static_cast<std::size_t>(id) * words_]; }
  void set_bit(NodeId id, std::uint32_t replica);
  bool clear_bit(NodeId id, std::uint32_t replica);  // true when no holder is left
  NodeId& end_of(std::uint32_t replica, std::uint32_t cache_node);

  std::size_t replicas_;
  std::size_t words_;               // 64-bit words per holder set
  std::vector<Node> nodes_;
  std::vector<std::uint64_t> bits_;  // nodes_.size() * words_ holder bits
  std::vector<NodeId> free_;
  WideLinks<NodeId> wide_links_;  // (node, first token) -> child of a wide node
  // end_[r][n]: the shared node at whose end replica r's cache node n ends.
  std::vector<std::vector<NodeId>> end_;
  mutable std::vector<std::size_t> depth_;  // match_held's scratch, per replica
  const Content* content_ = nullptr;        // of every indexed cache
  PromptPieces scratch_;                     // edge pieces being built
};

}  // namespace prefixroute
