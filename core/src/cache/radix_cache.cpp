#include "prefixroute/cache/radix_cache.h"

#include <algorithm>
#include <cassert>

#include "../base/text.h"

#include "prefixroute/cache/prefix_index.h"

#include "common_prefix.h"
#include "sorted_children.h"

namespace prefixroute {

RadixCache::RadixCache(std::size_t capacity_tokens, std::uint32_t protect_after_hits)
    : capacity_(capacity_tokens), protect_after_hits_(protect_after_hits) {
  nodes_.emplace_back();  // the root: empty edge, never evicted
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
    if (!spare_edges_.empty()) {
      nodes_[id].edge = std::move(spare_edges_.back());
      spare_edges_.pop_back();
    }
    return id;
  }
  nodes_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

void RadixCache::free_node(NodeId id) {
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

RadixCache::NodeId RadixCache::find_child(const Node& node, Token first) const {
  return sorted_children::find(node.children, first, kNone);
}

void RadixCache::replace_child(NodeId parent, Token first, NodeId child) {
  sorted_children::replace(nodes_[parent].children, first, child);
}

void RadixCache::add_child(NodeId parent, NodeId child) {
  sorted_children::insert(nodes_[parent].children, Child{nodes_[child].edge.front(), child});
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

std::size_t RadixCache::match(TokenSpan tokens) const {
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
RadixCache::NodeId RadixCache::split(NodeId id, std::size_t at) {
  const NodeId upper = allocate();
  Node& lower = nodes_[id];  // reference taken after allocate(): nodes_ may have grown
  Node& up = nodes_[upper];
  const NodeId parent = lower.parent;
  if (index_ != nullptr) index_->on_split(index_replica_, id, upper, at, lower.edge.size());
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

RadixCache::InsertResult RadixCache::insert(TokenSpan tokens, std::size_t known_cached) {
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
      if (index_ != nullptr) index_->on_new_leaf(index_replica_, current, leaf, node.edge);
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

void RadixCache::pin(PathHandle path) {
  for (NodeId id = path; id != kRoot; id = nodes_[id].parent) {
    if (nodes_[id].pins++ == 0) drop_candidate(id);
  }
}

void RadixCache::unpin(PathHandle path) {
  for (NodeId id = path; id != kRoot; id = nodes_[id].parent) {
    if (--nodes_[id].pins == 0) refresh_candidate(id);
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
    if (index_ != nullptr) index_->on_evict(index_replica_, victim, node.edge.size());
    free_node(victim);
    if (parent != keep) refresh_candidate(parent);
  }
  refresh_candidate(keep);
  evicted_total_ += evicted;
  return evicted;
}

std::string RadixCache::check_invariants() const {
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
    prefix.resize(f.depth);
    prefix.insert(prefix.end(), node.edge.begin(), node.edge.end());
    if (f.id != kRoot && node.children.empty()) paths.push_back(prefix);
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it)
      stack.push_back({it->node, prefix.size()});
  }
  return paths;
}

}  // namespace prefixroute
