// RadixCache: one replica's prefix (KV) cache, as a compressed radix tree over
// token ids with a fixed budget in tokens and LRU eviction of leaves.
//
//   Edges hold stretches of tokens; a node's tokens are its edge's tokens. The
//   tree caches every prefix of every path from the root. An edge is kept as
//   pieces of runs of the cache's Content (base/content.h), not as a copy of
//   its tokens: a node costs a few pieces whatever its length, and comparing
//   a prompt with an edge of the same runs reads no token. The tree's shape
//   (where nodes split, what is evicted) depends only on the tokens, exactly
//   as a tree of token arrays would (tests/cache/radix_cache_lockstep_test.cpp).
//
//   insert [1 2 3 4]        insert [1 2 9] (split)      evict LRU leaf [3 4]
//
//     (root)                  (root)                       (root)
//       | 1 2 3 4               | 1 2      <- split node      | 1 2
//      (a)                     (m)                           (m)
//                             /   |                           |
//                          3 4    9                           9
//                          (a)   (b)  <- new leaf            (b)
//
//   size = 4 tokens         size = 5 tokens              size = 3 tokens
//
// Operations
//   match(tokens)  how many leading tokens are cached. Const: a peek changes
//                  nothing, so a router may probe every replica.
//   insert(tokens) caches the prompt (truncated to the budget), refreshes the
//                  recency of its whole path, splits an edge where the prompt
//                  diverges inside it, then evicts until size <= capacity.
//
// Eviction rule (exact)
//   Candidates are the leaves (nodes without children, never the root). The
//   victim is the candidate with the smallest key (protected, last_access, id):
//   unprotected before protected, then least recently used, then the older node
//   id. The whole victim node is removed (node-granular eviction, as SGLang's
//   radix cache does; a token-granular cache would trim the victim's tail
//   instead). Its parent becomes a candidate once it has no children. The
//   leaf that ends the prompt being inserted is never a candidate during that
//   insert, so an insert never evicts its own path; its ancestors are internal
//   nodes and so are never candidates either. Nodes are not re-merged after an
//   eviction leaves a parent with one child: the tree stays valid (just less
//   compressed) and node ids stay stable.
//
// Hot-prefix protection (exact)
//   Each node counts hits: the number of inserts whose prompt covered the whole
//   node while it already existed. When an insert diverges inside an edge, the
//   edge is split and the new upper node copies the old node's hits (then counts
//   this insert); the lower part keeps its count. A node is protected while
//   hits >= protect_after_hits (0 disables protection). Protection only orders
//   eviction: protected leaves go after every unprotected candidate.
//
// Recency
//   The cache has a logical clock advanced once per insert; every node on the
//   inserted path gets the new clock value. A parent is therefore never older
//   than its newest child. A prompt that ends inside an edge refreshes only its
//   matched part, because the insert splits the edge first; the unmatched tail
//   keeps its old recency and can be evicted on its own.
//
// Pins (KV of running requests)
//   A request being served keeps its prompt's path pinned until it completes
//   (pin/unpin count references on every node of the path, as SGLang's lock
//   refs do); a pinned node is never a candidate. Output tokens of running
//   requests are reserved (reserve/release): they count against the budget but
//   are not in the tree (their KV is private to the request). Eviction stops
//   when no unpinned candidate is left, so while pins and reservations exceed
//   the budget the cache is over budget (used() > capacity()): the model lets
//   memory overcommit instead of rejecting or preempting requests, and reports
//   usage above 1.0. Without pins and reservations (the baseline model) the budget
//   is never exceeded. pinned_tokens() counts the tokens of pinned nodes (each
//   node once, however many pins it holds): with reserved() it is the memory
//   running requests hold, which a paged engine (sim/batched_engine.h) keeps
//   within the budget by checking before it pins; probe() says how much of a
//   prompt is cached and how much of that is already pinned.
//
// Budget rule (exact)
//   Eviction runs only inside insert() and reserve() (as SGLang evicts when it
//   allocates, not when a request frees memory). It stops at used() <=
//   capacity() or when no candidate is left other than the node that ends the
//   prompt just inserted, which survives its own insert. unpin() and release()
//   never evict: a leaf unpinned while the cache is over budget stays cached
//   until the next insert() or reserve() restores the budget.
//
// Invariants (checked by check_invariants())
//   size() == sum of edge lengths == recount; children of a node have distinct
//   first tokens, sorted; capacity 0 caches nothing; a prompt longer than the
//   capacity keeps exactly its first capacity() tokens; and the budget rule:
//   unless an unpin() since the last eviction pass left the cache over budget,
//   used() <= capacity() or the only candidate is the last insert's own node.
//
// Cluster index
//   A cache attached to a PrefixIndex (attach_index, while empty) reports each
//   structural change to it (new leaf, split, evicted node) as it happens, so
//   the index can answer every replica's match() with one walk of the prompt.
//
// Content
//   The cache keeps pieces of one Content: the one given at construction
//   (every prompt inserted must be of it: the simulator's caches share the
//   trace's), or, when none is given, a TokenStore of its own, into which
//   insert(TokenSpan) and prompts of another content are copied (the library
//   API and tests, which hand the cache token arrays).
//
// Cost
//   match: O(P log F) for a prompt of P pieces along the path and fan-out F,
//   plus the tokens read where runs differ (usually one per node boundary).
//   insert: the same plus O(log N) per evicted node (N nodes). Memory:
//   O(nodes + pieces), independent of the tokens cached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <memory>

#include "prefixroute/base/content.h"
#include "prefixroute/base/indexed_min_heap.h"
#include "prefixroute/base/token.h"

namespace prefixroute {

class PrefixIndex;
namespace prefix_walk {
template <class Tree>
struct Access;
}  // namespace prefix_walk

class RadixCache {
 public:
  /// Default hit count from which a node is protected.
  static constexpr std::uint32_t kDefaultProtectAfterHits = 32;

  /// Heap bytes of a radix tree of `nodes` nodes holding `pieces` pieces, an
  /// upper estimate for memory budgets: ~200 per node (the node, its vectors,
  /// its eviction-heap entry) and one Piece per piece, whatever the tokens it
  /// holds. The same costs bound a PrefixIndex or an ApproxRadixTree. Checked
  /// against measured heap use in tests/experiment_memory_test.cpp.
  static constexpr double estimated_bytes(double nodes, double pieces) {
    return nodes * 200 + pieces * static_cast<double>(sizeof(Piece));
  }

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

  /// A cache of `content`'s runs; with `content` null, of a TokenStore of
  /// its own (see "Content" above).
  explicit RadixCache(std::size_t capacity_tokens, std::uint32_t protect_after_hits = kDefaultProtectAfterHits,
                      const Content* content = nullptr);

  /// Length of the longest cached prefix of `prompt` (partial edges count).
  /// The prompt may be of any content.
  std::size_t match(const Prompt& prompt) const;
  std::size_t match(TokenSpan tokens) const;

  /// match() and, of the matched prefix, the leading tokens that lie in
  /// pinned nodes (pins hold whole paths from the root, so the pinned part
  /// of any path is a prefix of it). One walk, as match().
  struct Probe {
    std::size_t matched = 0;
    std::size_t pinned = 0;  ///< <= matched
  };
  Probe probe(const Prompt& prompt) const;

  /// Caches `prompt` (at most the first capacity() tokens) and evicts to budget.
  /// The prompt must be of content(), unless the cache has its own store (it
  /// is then copied into it). `known_cached`: a length the caller has just
  /// learnt is cached (a match of this cache, as a router's index gives it);
  /// the walk does not re-compare those tokens' edges. It must not exceed
  /// match(prompt); 0 compares everything.
  InsertResult insert(const Prompt& prompt, std::size_t known_cached = 0);
  /// insert() of tokens copied into the cache's own store (a cache built
  /// without a content only).
  InsertResult insert(TokenSpan tokens);

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
  /// Tokens in pinned nodes: with reserved(), the memory that eviction cannot
  /// free. O(1).
  std::size_t pinned_tokens() const { return pinned_tokens_; }
  std::size_t capacity() const { return capacity_; }
  std::uint32_t protect_after_hits() const { return protect_after_hits_; }
  /// Nodes in the tree, root excluded.
  std::size_t node_count() const { return nodes_.size() - free_.size() - 1; }
  /// Total tokens evicted since construction.
  std::uint64_t evicted_total() const { return evicted_total_; }

  /// Reports every later structural change to `index` as replica `replica`'s.
  /// Attach while the cache is empty; the index must outlive the cache's use.
  void attach_index(PrefixIndex* index, std::uint32_t replica);

  /// A copy has the same tree (and a copy of the own store, if any); it is
  /// not attached to the original's index.
  RadixCache(const RadixCache& other);
  RadixCache& operator=(const RadixCache& other);
  RadixCache(RadixCache&&) noexcept = default;
  RadixCache& operator=(RadixCache&&) noexcept = default;
  ~RadixCache() = default;

  /// The content whose runs the cache's edges are.
  const Content& content() const { return *content_; }

  /// Node `node`'s edge (a node id as PathHandle names it), as pieces of
  /// content(). Valid until the node is split or evicted.
  Prompt edge(PathHandle node) const {
    const Node& n = nodes_[node];
    return Prompt{n.edge, n.length, content_};
  }

  /// Verifies every invariant by walking the tree; returns "" or a description
  /// of the first violation. O(N log N); for tests.
  std::string check_invariants() const;

  /// Every cached path from the root to a leaf, as token sequences, in tree
  /// order (children by first token). For tests and debugging.
  std::vector<std::vector<Token>> leaf_paths() const;

 private:
  // The descent of match(), probe() and insert(), shared with the other
  // radix trees (core/src/cache/prefix_walk.h), reads the nodes through it.
  friend struct prefix_walk::Access<RadixCache>;

  using NodeId = std::uint32_t;
  static constexpr NodeId kRoot = 0;
  static constexpr NodeId kNone = ~NodeId{0};

  struct Child {
    Token first;
    NodeId node;
  };

  struct Node {
    std::vector<Piece> edge;      // its tokens, as pieces of content_
    std::size_t length = 0;       // tokens in edge
    Token first = 0;              // the edge's first token (its key in the parent)
    std::vector<Child> children;  // sorted by first token
    NodeId parent = kNone;
    std::uint64_t last_access = 0;
    std::uint32_t hits = 0;
    std::uint32_t pins = 0;  // running requests whose path passes through this node
  };

  // Unused pieces a split may leave in the lower part's edge storage; more
  // are given back (split()), so a node's storage stays O(its pieces).
  static constexpr std::size_t kSpareEdgePieces = 4;
  // Nodes (and eviction candidates) a new cache has room for (constructor).
  static constexpr std::size_t kInitialNodes = 32;

  // (protected, last_access) in one word, protected in the top bit (the
  // clock never reaches 2^63); with the id as the heap's tie-break, heap
  // order is the eviction order (protected, last_access, id).
  using CandidateKey = IndexedMinHeap::Key;

  NodeId allocate();
  void free_node(NodeId id);
  NodeId find_child(NodeId parent, Token first) const;
  void replace_child(NodeId parent, Token first, NodeId child);
  void add_child(NodeId parent, NodeId child);
  void remove_child(NodeId parent, Token first);
  bool is_protected(const Node& node) const;
  CandidateKey key_of(NodeId id) const;
  void drop_candidate(NodeId id);
  void refresh_candidate(NodeId id);
  /// refresh_candidate() of a node known not to be a candidate: files it if
  /// it is an unpinned non-root leaf.
  void file_if_candidate(NodeId id);
  NodeId split(NodeId id, std::size_t at);
  std::size_t evict_until_within_budget(NodeId keep);
  /// Sets node `id`'s edge to tokens [from, from + n) of `source`, whose
  /// first is `first`. `source` must not view the node's own edge.
  void set_edge(NodeId id, const Prompt& source, std::size_t from, std::size_t n, Token first);
  /// Removes the first `n` (< length) tokens of node `id`'s edge, in place.
  void drop_edge_front(NodeId id, std::size_t n);

  std::size_t capacity_;
  std::uint32_t protect_after_hits_;
  std::size_t size_ = 0;
  std::size_t reserved_ = 0;
  std::size_t pinned_tokens_ = 0;  // tokens of nodes with pins > 0
  std::uint64_t clock_ = 0;
  std::uint64_t evicted_total_ = 0;
  std::vector<Node> nodes_;
  std::vector<NodeId> free_;
  IndexedMinHeap candidates_;  // the unpinned non-root leaves, by CandidateKey
  std::unique_ptr<TokenStore> own_store_;  // when built without a content
  const Content* content_;                  // own_store_ or the given content
  // For check_invariants()' budget rule: the node the last eviction pass had
  // to keep (kRoot after reserve()), and whether an unpin() since then made a
  // leaf evictable while over budget (eviction deferred to the next pass).
  NodeId last_kept_ = kRoot;
  bool eviction_deferred_ = false;
  PrefixIndex* index_ = nullptr;  // not owned
  std::uint32_t index_replica_ = 0;
};

}  // namespace prefixroute
