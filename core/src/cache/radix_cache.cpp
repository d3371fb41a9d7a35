#include "prefixroute/cache/radix_cache.h"

#include <algorithm>
#include <cassert>

#include "base/text.h"

#include "prefixroute/cache/prefix_index.h"

#include "cache/prefix_walk.h"
#include "cache/sorted_children.h"

namespace prefixroute {

RadixCache::RadixCache(std::size_t capacity_tokens, std::uint32_t protect_after_hits, const Content* content)
    : capacity_(capacity_tokens),
      protect_after_hits_(protect_after_hits),
      own_store_(content == nullptr ? std::make_unique<TokenStore>() : nullptr),
      content_(content != nullptr ? content : own_store_.get()) {
  // A cache holds dozens of nodes within its first requests: room for them
  // up front spares the first doublings' moves and frees (at 256 replicas,
  // where each cache sees few requests, they are a visible share).
  nodes_.reserve(kInitialNodes);
  candidates_.reserve(kInitialNodes);
  nodes_.emplace_back();  // the root: empty edge, never evicted
}

RadixCache::RadixCache(const RadixCache& other)
    : capacity_(other.capacity_),
      protect_after_hits_(other.protect_after_hits_),
      size_(other.size_),
      reserved_(other.reserved_),
      pinned_tokens_(other.pinned_tokens_),
      clock_(other.clock_),
      evicted_total_(other.evicted_total_),
      nodes_(other.nodes_),
      free_(other.free_),
      candidates_(other.candidates_),
      own_store_(other.own_store_ ? std::make_unique<TokenStore>(*other.own_store_) : nullptr),
      content_(own_store_ ? own_store_.get() : other.content_),
      last_kept_(other.last_kept_),
      eviction_deferred_(other.eviction_deferred_) {}

RadixCache& RadixCache::operator=(const RadixCache& other) {
  if (this != &other) *this = RadixCache(other);
  return *this;
}

void RadixCache::attach_index(PrefixIndex* index, std::uint32_t replica) {
  index_ = index;
  index_replica_ = replica;
  if (index != nullptr) index->attach(replica, this);
}

RadixCache::NodeId RadixCache::allocate() {
  if (!free_.empty()) {
    const NodeId id = free_.back();
    free_.pop_back();
    return id;
  }
  nodes_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

// Inline: it runs once per evicted node, inside the eviction pass.
inline void RadixCache::free_node(NodeId id) {
  Node& node = nodes_[id];
  node.edge.clear();  // keeps its capacity for the node's next use
  node.length = 0;
  node.first = 0;
  node.children.clear();
  node.parent = kNone;
  node.hits = 0;
  node.pins = 0;
  node.last_access = 0;
  free_.push_back(id);
}

void RadixCache::set_edge(NodeId id, const Prompt& source, std::size_t from, std::size_t n, Token first) {
  Node& node = nodes_[id];
  node.edge.clear();  // keeps its capacity
  append_pieces(node.edge, source, from, n);
  node.length = n;
  node.first = first;
}

void RadixCache::drop_edge_front(NodeId id, std::size_t n) {
  Node& node = nodes_[id];
  node.length -= n;
  std::vector<Piece>& edge = node.edge;
  std::size_t whole = 0;  // pieces dropped entirely
  while (n >= edge[whole].length) n -= edge[whole++].length;
  edge[whole].offset += static_cast<std::uint32_t>(n);
  edge[whole].length -= static_cast<std::uint32_t>(n);
  edge.erase(edge.begin(), edge.begin() + static_cast<std::ptrdiff_t>(whole));
  node.first = content_->token(edge.front().run, edge.front().offset);
}

RadixCache::NodeId RadixCache::find_child(NodeId parent, Token first) const {
  return sorted_children::find(nodes_[parent].children, first, kNone);
}

void RadixCache::replace_child(NodeId parent, Token first, NodeId child) {
  sorted_children::replace(nodes_[parent].children, first, child);
}

void RadixCache::add_child(NodeId parent, NodeId child) {
  sorted_children::insert(nodes_[parent].children, Child{nodes_[child].first, child});
  nodes_[child].parent = parent;
}

void RadixCache::remove_child(NodeId parent, Token first) {
  sorted_children::erase(nodes_[parent].children, first);
}

bool RadixCache::is_protected(const Node& node) const {
  return protect_after_hits_ > 0 && node.hits >= protect_after_hits_;
}

RadixCache::CandidateKey RadixCache::key_of(NodeId id) const {
  const Node& node = nodes_[id];
  return (CandidateKey{is_protected(node)} << 63) | node.last_access;
}

void RadixCache::drop_candidate(NodeId id) { candidates_.erase(id); }

// Re-files a node after its recency, hits, pins or children changed: it is a
// candidate exactly when it is an unpinned non-root leaf. Callers must drop_candidate()
// *before* changing last_access or hits, since the stored key is derived from them.
void RadixCache::refresh_candidate(NodeId id) {
  const Node& node = nodes_[id];
  const bool should = id != kRoot && node.children.empty() && node.pins == 0;
  const bool is = candidates_.contains(id);
  if (should && !is) {
    candidates_.push(id, key_of(id));
  } else if (!should && is) {
    candidates_.erase(id);
  }
}

void RadixCache::file_if_candidate(NodeId id) {
  assert(!candidates_.contains(id));
  const Node& node = nodes_[id];
  if (id != kRoot && node.children.empty() && node.pins == 0) candidates_.push(id, key_of(id));
}

std::size_t RadixCache::match(const Prompt& prompt) const {
  return prefix_walk::match(*this, prompt, [](const auto&) {}).depth;
}

RadixCache::Probe RadixCache::probe(const Prompt& prompt) const {
  Probe result;
  bool pinned = true;  // the root's path is trivially pinned
  result.matched = prefix_walk::match(*this, prompt, [&](const auto& step) {
    pinned = pinned && nodes_[step.child].pins > 0;
    if (pinned) result.pinned += step.common;
  }).depth;
  return result;
}

std::size_t RadixCache::match(TokenSpan tokens) const {
  const SpanContent content(tokens);
  return match(content.prompt());
}

// Splits node `id` so its first `at` tokens become a new parent node. Returns
// the new upper node. The lower node keeps its id, recency and hits, so its
// candidate key is unchanged.
RadixCache::NodeId RadixCache::split(NodeId id, std::size_t at) {
  const NodeId upper = allocate();
  const NodeId parent = nodes_[id].parent;
  if (index_ != nullptr) index_->on_split(index_replica_, id, upper, at, nodes_[id].length);
  // The upper part copies the edge's head; the lower part keeps the edge's
  // storage without its head (no allocation), unless that leaves more than
  // kSpareEdgePieces unused: kept, the storage of a trace's many-piece
  // prompts would be ~1.5x their pieces (22.2 instead of 14.5 MiB peak on
  // the conversation trace repeated 100 times).
  set_edge(upper, edge(id), 0, at, nodes_[id].first);
  drop_edge_front(id, at);
  std::vector<Piece>& lower_edge = nodes_[id].edge;
  if (lower_edge.capacity() - lower_edge.size() > kSpareEdgePieces) lower_edge.shrink_to_fit();
  Node& lower = nodes_[id];
  Node& up = nodes_[upper];
  up.hits = lower.hits;
  up.pins = lower.pins;  // every pinned path through the lower part passes the upper
  up.last_access = lower.last_access;
  up.parent = parent;
  up.children.push_back(Child{lower.first, id});
  lower.parent = upper;
  replace_child(parent, up.first, upper);
  return upper;
}

RadixCache::InsertResult RadixCache::insert(TokenSpan tokens) {
  // Only a cache with its own store can keep tokens given as an array.
  assert(own_store_ != nullptr);
  if (own_store_ == nullptr) return {};
  const PromptPieces prompt = own_store_->prompt(tokens);
  return insert(prompt.view());
}

RadixCache::InsertResult RadixCache::insert(const Prompt& given, std::size_t known_cached) {
  // A prompt of another content is copied into the cache's own store (the
  // edges must be runs of content_), which is content_ when there is one.
  if (given.content != content_) {
    assert(own_store_ != nullptr);
    if (own_store_ == nullptr) return {};
    std::vector<Token> tokens;
    given.materialize(tokens);
    const PromptPieces copied = own_store_->prompt(tokens);
    return insert(copied.view(), known_cached);
  }
  // A known length beyond the real match would cache tokens that are not in
  // the prompt. Checked in debug builds (the sanitizer tests).
  assert(known_cached <= match(given));
  InsertResult result;
  Prompt prompt = given;
  if (prompt.length > capacity_) prompt.length = capacity_;  // its first capacity() tokens
  if (prompt.empty()) return result;
  ++clock_;
  const NodeId last = prefix_walk::insert(
      *this, kRoot, prompt, known_cached,
      [&](NodeId parent, std::size_t depth, Token first) {
        // Divergence at a node boundary: the rest of the prompt becomes one new leaf.
        const NodeId leaf = allocate();
        set_edge(leaf, prompt, depth, prompt.size() - depth, first);
        nodes_[leaf].last_access = clock_;
        add_child(parent, leaf);
        if (index_ != nullptr) index_->on_new_leaf(index_replica_, parent, leaf, edge(leaf));
        drop_candidate(parent);  // the parent is no longer a leaf
        result.inserted_tokens = prompt.size() - depth;
        size_ += result.inserted_tokens;
        return leaf;
      },
      [&](const auto& step) {
        // The child lies entirely on the prompt's path (split first): count
        // the hit, refresh it. It leaves the candidates until the end of the
        // insert (only the path's last node can be a leaf; the others have
        // children).
        drop_candidate(step.child);
        Node& node = nodes_[step.child];
        ++node.hits;
        node.last_access = clock_;
        result.cached_tokens += step.common;
      }).node;
  // The path's last node is filed as a candidate (if it is an unpinned leaf)
  // only after the eviction pass, which must not evict it.
  result.evicted_tokens = evict_until_within_budget(last);
  file_if_candidate(last);
  result.path = last;
  return result;
}

void RadixCache::pin(PathHandle path) {
  for (NodeId id = path; id != kRoot; id = nodes_[id].parent) {
    if (nodes_[id].pins++ == 0) {
      drop_candidate(id);
      pinned_tokens_ += nodes_[id].length;
    }
  }
}

void RadixCache::unpin(PathHandle path) {
  for (NodeId id = path; id != kRoot; id = nodes_[id].parent) {
    if (--nodes_[id].pins == 0) {
      pinned_tokens_ -= nodes_[id].length;
      refresh_candidate(id);
    }
  }
  // unpin() does not evict (see "Budget rule"): the next insert()/reserve() will.
  if (used() > capacity_) eviction_deferred_ = true;
}

void RadixCache::reserve(std::size_t tokens) {
  reserved_ += tokens;
  evict_until_within_budget(kRoot);
}

void RadixCache::release(std::size_t tokens) { reserved_ -= tokens; }

std::size_t RadixCache::evict_until_within_budget(NodeId keep) {
  last_kept_ = keep;
  eviction_deferred_ = false;
  if (used() <= capacity_) return 0;
  // `keep` (the prompt's own last node, which must survive its insert, or
  // the root) is not a candidate: insert() files it only after this pass.
  // Its ancestors are internal nodes and never candidates. A prompt ending
  // inside an edge ends at an internal node (the split's upper part), which
  // becomes a leaf when its child is evicted: it must not become a candidate
  // then either.
  assert(!candidates_.contains(keep));
  std::size_t evicted = 0;
  while (used() > capacity_ && !candidates_.empty()) {
    const NodeId victim = candidates_.least();
    drop_candidate(victim);
    Node& node = nodes_[victim];
    const NodeId parent = node.parent;
    evicted += node.length;
    size_ -= node.length;
    remove_child(parent, node.first);
    if (index_ != nullptr) index_->on_evict(index_replica_, victim, node.length);
    free_node(victim);
    // The parent had a child, so it was no candidate; it becomes one when
    // that was its last child (and it is unpinned, and not `keep`).
    if (parent != keep) file_if_candidate(parent);
  }
  evicted_total_ += evicted;
  return evicted;
}

std::string RadixCache::check_invariants() const {
  Text problem;
  std::size_t recount = 0;
  std::size_t pinned_recount = 0;
  std::size_t leaves = 0;
  std::size_t reachable = 0;
  std::vector<NodeId> stack{kRoot};
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    const Node& node = nodes_[id];
    if (id != kRoot) {
      ++reachable;
      if (node.length == 0) problem << "node " << id << " has an empty edge; ";
      std::size_t pieces_length = 0;
      for (const Piece& p : node.edge) {
        if (p.length == 0) problem << "node " << id << " has an empty piece; ";
        pieces_length += p.length;
      }
      if (pieces_length != node.length) problem << "node " << id << " length != its pieces' total; ";
      if (node.length > 0 && content_->token(node.edge[0].run, node.edge[0].offset) != node.first)
        problem << "node " << id << " first token wrong; ";
      recount += node.length;
      if (node.pins > 0) pinned_recount += node.length;
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
      if (nodes_[c.node].length == 0 || nodes_[c.node].first != c.first)
        problem << "child key of " << c.node << " wrong; ";
      stack.push_back(c.node);
    }
  }
  if (recount != size_) problem << "size counter " << size_ << " != recount " << recount << "; ";
  if (pinned_recount != pinned_tokens_)
    problem << "pinned counter " << pinned_tokens_ << " != recount " << pinned_recount << "; ";
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

std::vector<std::vector<Token>> RadixCache::leaf_paths() const {
  std::vector<std::vector<Token>> paths;
  std::vector<Token> prefix;
  // Iterative DFS in child order, carrying each node's prefix length.
  struct Frame { NodeId id; std::size_t depth; };
  std::vector<Frame> stack{{kRoot, 0}};
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    const Node& node = nodes_[f.id];
    prefix.resize(f.depth + node.length);
    if (node.length > 0) edge(f.id).copy(0, node.length, prefix.data() + f.depth);
    if (f.id != kRoot && node.children.empty()) paths.push_back(prefix);
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it)
      stack.push_back({it->node, prefix.size()});
  }
  return paths;
}

}  // namespace prefixroute
