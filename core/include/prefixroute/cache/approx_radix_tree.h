// ApproxRadixTree: a router's own picture of what each replica has cached,
// built only from the prompts the router itself sent there.
//
// Routers such as SGLang's cache-aware router and Preble's global scheduler
// never see the engines' caches. They keep one radix tree of the prompts they
// routed, shared by all replicas, whose nodes record which replicas were sent
// a prompt through them and when each last was. Each replica's "share" of the
// tree is the set of nodes it holds; it stands for that replica's cache as the
// router believes it to be. The router is never told what an engine evicted,
// so a share only shrinks when the router trims it itself.
//
//   route [1 2 3 4] to r0, then [1 2 9] to r1:
//
//     (root)
//       | 1 2          holders {r0, r1}   <- split: the upper part keeps both
//      (m)
//     /    |
//   3 4    9
//  {r0}   {r1}
//
//   match([1 2 3 7]) = 3 overall; per replica r0 = 3 (partial edge counts),
//   r1 = 2. The holders of the deepest matched node ({r0}) are exactly the
//   replicas whose own match equals the overall match.
//
// Operations
//   match(tokens, per_replica)  longest match over the whole tree and, in the
//                               same single walk, each replica's own match.
//                               Const: a peek refreshes nothing.
//   insert(tokens, r)           adds the prompt to r's share and makes every
//                               node of its path r's most recent.
//   trim(r, max_tokens)         removes r's least recently used leaves (nodes
//                               r holds and none of whose children r holds)
//                               until r's share is <= max_tokens. A node left
//                               with no holder is removed from the tree.
//   trim_before(r, clock)       removes r's leaves last inserted before a
//                               given clock value (a share with a TTL).
//
// Invariants (checked by check_invariants())
//   Every node but the root has at least one holder, and a child's holders are
//   a subset of its parent's (an insert marks the whole path; a trim only takes
//   a replica's leaves). For each replica, a parent's last access is >= its
//   children's. replica_tokens(r) is the sum of the edge lengths of r's nodes.
//   Recency is a logical clock advanced once per insert, so LRU order is exact
//   and ties (nodes of one path) break by node id.
//
// Content
//   Edges are pieces of the routed prompts' Content (base/content.h), the
//   content of the first prompt inserted; every later insert must be of it.
//
// Children
//   A sorted vector per node, moved to a hash map past 64 children
//   (core/src/cache/child_links.h): the routed continuations of a popular
//   prefix grow with the replicas, and adding or removing one is then O(1)
//   expected instead of a shift of the vector's tail.
//
// Cost
//   match: O(L log F + H) for L prompt tokens, fan-out F and H holder entries
//   on the matched path (at most path nodes x replicas), plus O(R) to clear the
//   per-replica answer. insert: O(L log F + P log N) for P path nodes (each
//   holder lookup is a binary search over at most R entries). trim: O(log N)
//   per removed leaf. Memory: O(nodes + pieces + holder entries), not of tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/base/token.h"
#include "prefixroute/cache/held_prefix.h"
#include "prefixroute/cache/wide_links.h"

namespace prefixroute {

namespace prefix_walk {
template <class Tree>
struct Access;
}  // namespace prefix_walk

class ApproxRadixTree {
 public:
  ApproxRadixTree();

  /// Longest prefix of `tokens` held by any replica. `per_replica` is resized
  /// to replicas() and receives each replica's own longest held prefix.
  std::size_t match(const Prompt& prompt, std::vector<std::size_t>& per_replica) const;

  /// A replica holding part of a prompt and its own longest held prefix.
  using Held = HeldPrefix;
  /// match() without the per-replica clear: the longest prefix held by any
  /// replica, and in `held` (replica order) each replica whose own match is
  /// not empty (every other replica matches 0). O(L log F + H), nothing per
  /// replica holding none of it.
  std::size_t match_held(const Prompt& prompt, std::vector<Held>& held) const;

  /// Adds `prompt` to `replica`'s share (replicas() grows to cover it).
  void insert(const Prompt& prompt, std::size_t replica);

  /// Removes `replica`'s LRU leaves until its share holds <= max_tokens.
  /// Node-granular: the last removal may leave it below max_tokens.
  void trim(std::size_t replica, std::uint64_t max_tokens);

  /// Removes `replica`'s leaves whose last access is before `clock` (a value
  /// of clock()), repeatedly, so the replica's share keeps only nodes
  /// inserted or refreshed at clock values >= `clock`. O(log N) per removed
  /// leaf. For a share with a time-to-live: record clock() after each insert.
  void trim_before(std::size_t replica, std::uint64_t clock);
  /// The logical clock: the value the last insert gave its path's nodes.
  std::uint64_t clock() const { return clock_; }

  /// Makes replicas [0, n) known (an empty share each); never shrinks.
  void set_replicas(std::size_t n);
  /// Replicas the tree knows: match() answers for this many.
  std::size_t replicas() const { return tokens_.size(); }
  /// Tokens in `replica`'s share (0 for a replica never inserted).
  std::uint64_t replica_tokens(std::size_t replica) const {
    return replica < tokens_.size() ? tokens_[replica] : 0;
  }
  /// Tokens in the tree (the union of all shares).
  std::uint64_t size() const { return size_; }
  /// Nodes whose children are in the hash map (over 64 children). O(N); for tests.
  std::size_t wide_node_count() const;
  /// Nodes in the tree, root excluded.
  std::size_t node_count() const { return nodes_.size() - free_.size() - 1; }

  /// Verifies every invariant by walking the tree; "" or the first violation.
  /// O(N log N); for tests.
  std::string check_invariants() const;

 private:
  // The descent of match(), match_held() and insert(), shared with the other
  // radix trees (core/src/cache/prefix_walk.h), reads the nodes through it.
  friend struct prefix_walk::Access<ApproxRadixTree>;

  using NodeId = std::uint32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr NodeId kNone = ~NodeId{0};

  struct Child {
    Token first;
    NodeId node;
  };
  /// One replica's membership of a node.
  struct Holder {
    std::uint32_t replica;
    std::uint32_t children;    ///< children of this node that the replica also holds
    std::uint64_t last_access;
  };
  struct Node {
    std::vector<Piece> edge;      ///< pieces of content_
    std::size_t length = 0;       ///< tokens in edge
    Token first = 0;              ///< the edge's first token
    std::vector<Child> children;  ///< sorted by first token; empty when wide
    bool wide = false;            ///< the children are in wide_links_ (more than 64)
    std::vector<Holder> holders;  ///< sorted by replica
    NodeId parent = kNone;
  };
  /// (last_access, node): a replica's leaves in eviction order.
  using LeafKey = std::pair<std::uint64_t, NodeId>;

  NodeId allocate();
  NodeId find_child(NodeId parent, Token first) const;
  void add_child(NodeId parent, NodeId child);
  void remove_child(NodeId parent, Token first);
  static Holder* find_holder(Node& node, std::size_t replica);
  static const Holder* find_holder(const Node& node, std::size_t replica);
  NodeId split(NodeId id, std::size_t at);
  /// Makes `id` (whose parent already holds `replica`) part of the replica's
  /// share at the current clock; takes it out of the replica's leaf set.
  void touch(NodeId id, std::size_t replica);
  void evict_leaf(std::size_t replica);
  void set_edge(NodeId id, const Prompt& source, std::size_t from, std::size_t n);

  std::vector<Node> nodes_;
  std::vector<NodeId> free_;
  WideLinks<NodeId> wide_links_;  // (node, first token) -> child of a wide node
  std::vector<std::uint64_t> tokens_;        // per replica
  std::vector<std::set<LeafKey>> leaves_;    // per replica
  std::uint64_t size_ = 0;
  std::uint64_t clock_ = 0;
  const Content* content_ = nullptr;  // of the routed prompts, from the first insert
  PromptPieces scratch_;              // edge pieces being built
};

}  // namespace prefixroute
