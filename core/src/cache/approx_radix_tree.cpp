#include "prefixroute/cache/approx_radix_tree.h"

#include <cassert>

#include <algorithm>

#include "base/text.h"
#include "cache/child_links.h"
#include "cache/prefix_walk.h"

namespace prefixroute {

ApproxRadixTree::ApproxRadixTree() { nodes_.emplace_back(); }  // the root: no edge, no holders

ApproxRadixTree::NodeId ApproxRadixTree::allocate() {
  if (!free_.empty()) {
    const NodeId id = free_.back();
    free_.pop_back();
    return id;
  }
  nodes_.emplace_back();
  return static_cast<NodeId>(nodes_.size() - 1);
}

std::size_t ApproxRadixTree::wide_node_count() const {
  return static_cast<std::size_t>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.wide; }));
}

ApproxRadixTree::NodeId ApproxRadixTree::find_child(NodeId parent, Token first) const {
  const Node& node = nodes_[parent];
  return child_links::find(wide_links_, node.children, node.wide, parent, first, kNone);
}

void ApproxRadixTree::add_child(NodeId parent, NodeId child) {
  Node& node = nodes_[parent];
  nodes_[child].parent = parent;
  child_links::insert(wide_links_, node.children, node.wide, parent, Child{nodes_[child].first, child});
}

void ApproxRadixTree::remove_child(NodeId parent, Token first) {
  child_links::erase(wide_links_, nodes_[parent].children, nodes_[parent].wide, parent, first);
}

ApproxRadixTree::Holder* ApproxRadixTree::find_holder(Node& node, std::size_t replica) {
  auto it = std::lower_bound(node.holders.begin(), node.holders.end(), replica,
                             [](const Holder& h, std::size_t r) { return h.replica < r; });
  return (it != node.holders.end() && it->replica == replica) ? &*it : nullptr;
}

const ApproxRadixTree::Holder* ApproxRadixTree::find_holder(const Node& node, std::size_t replica) {
  return find_holder(const_cast<Node&>(node), replica);
}

void ApproxRadixTree::set_edge(NodeId id, const Prompt& source, std::size_t from, std::size_t n) {
  scratch_.clear();
  scratch_.append(source, from, n);
  Node& node = nodes_[id];
  node.edge.assign(scratch_.pieces.begin(), scratch_.pieces.end());
  node.length = n;
  node.first = content_->token(node.edge[0].run, node.edge[0].offset);
}

std::size_t ApproxRadixTree::match(const Prompt& prompt, std::vector<std::size_t>& per_replica) const {
  per_replica.assign(tokens_.size(), 0);
  if (content_ == nullptr) return 0;  // nothing inserted yet
  return prefix_walk::match(*this, prompt, [&](const auto& step) {
    // Holders shrink down the path, so each replica's last write is its own depth.
    const std::size_t pos = step.depth + step.common;
    for (const Holder& h : nodes_[step.child].holders) per_replica[h.replica] = pos;
  }).depth;
}

std::size_t ApproxRadixTree::match_held(const Prompt& prompt, std::vector<Held>& held) const {
  held.clear();
  if (content_ == nullptr) return 0;  // nothing inserted yet
  return prefix_walk::match(*this, prompt, [&](const auto& step) {
    const std::vector<Holder>& holders = nodes_[step.child].holders;
    const std::size_t pos = step.depth + step.common;
    if (step.parent == kRoot) {
      for (const Holder& h : holders) held.push_back(Held{h.replica, pos});
      return;
    }
    // A child's holders are a subset of its parent's, both sorted by
    // replica: one merge pass moves each of them to the new depth.
    std::size_t j = 0;
    for (const Holder& h : holders) {
      while (held[j].replica != h.replica) {
        ++j;
        assert(j < held.size() && "a child's holders are a subset of its parent's");
      }
      held[j].matched = pos;
    }
  }).depth;
}

// Splits node `id` after `at` tokens of its edge. The new upper node takes the
// first `at` tokens and a copy of the holders (each holding exactly one child:
// the lower part); the lower part keeps its id, so leaf keys stay valid.
ApproxRadixTree::NodeId ApproxRadixTree::split(NodeId id, std::size_t at) {
  const NodeId upper = allocate();
  PromptPieces old_edge;
  old_edge.content = content_;
  old_edge.pieces = std::move(nodes_[id].edge);
  old_edge.length = nodes_[id].length;
  set_edge(upper, old_edge.view(), 0, at);
  set_edge(id, old_edge.view(), at, old_edge.length - at);
  Node& lower = nodes_[id];
  Node& up = nodes_[upper];
  up.holders = lower.holders;
  for (Holder& h : up.holders) h.children = 1;
  const NodeId parent = lower.parent;
  child_links::replace(wide_links_, nodes_[parent].children, nodes_[parent].wide, parent, up.first, upper);
  up.parent = parent;
  up.children.push_back(Child{lower.first, id});
  lower.parent = upper;
  return upper;
}

void ApproxRadixTree::touch(NodeId id, std::size_t replica) {
  Node& node = nodes_[id];
  if (Holder* h = find_holder(node, replica)) {
    if (h->children == 0) leaves_[replica].erase(LeafKey{h->last_access, id});
    h->last_access = clock_;
    return;
  }
  auto it = std::lower_bound(node.holders.begin(), node.holders.end(), replica,
                             [](const Holder& x, std::size_t r) { return x.replica < r; });
  node.holders.insert(it, Holder{static_cast<std::uint32_t>(replica), 0, clock_});
  tokens_[replica] += node.length;
  if (node.parent != kRoot) {
    // The parent was touched just before: it holds the replica and is out of the leaf set.
    ++find_holder(nodes_[node.parent], replica)->children;
  }
}

void ApproxRadixTree::set_replicas(std::size_t n) {
  if (n <= tokens_.size()) return;
  tokens_.resize(n, 0);
  leaves_.resize(n);
}

void ApproxRadixTree::insert(const Prompt& prompt, std::size_t replica) {
  set_replicas(replica + 1);
  if (content_ == nullptr) content_ = prompt.content;
  assert(prompt.content == content_);  // one content per tree (see "Content")
  ++clock_;
  const NodeId node = prefix_walk::insert(
      *this, kRoot, prompt, 0,
      [&](NodeId parent, std::size_t depth, Token) {
        const NodeId leaf = allocate();
        set_edge(leaf, prompt, depth, prompt.size() - depth);
        size_ += nodes_[leaf].length;
        add_child(parent, leaf);
        touch(leaf, replica);
        return leaf;
      },
      [&](const auto& step) { touch(step.child, replica); }).node;
  if (node != kRoot) {
    const Holder* h = find_holder(nodes_[node], replica);
    if (h->children == 0) leaves_[replica].insert(LeafKey{h->last_access, node});
  }
}

void ApproxRadixTree::evict_leaf(std::size_t replica) {
  const LeafKey victim = *leaves_[replica].begin();
  leaves_[replica].erase(leaves_[replica].begin());
  const NodeId id = victim.second;
  Node& node = nodes_[id];
  tokens_[replica] -= node.length;
  auto it = std::lower_bound(node.holders.begin(), node.holders.end(), replica,
                             [](const Holder& x, std::size_t r) { return x.replica < r; });
  node.holders.erase(it);
  const NodeId parent = node.parent;
  if (parent != kRoot) {
    Holder* up = find_holder(nodes_[parent], replica);
    if (--up->children == 0) leaves_[replica].insert(LeafKey{up->last_access, parent});
  }
  if (node.holders.empty()) {
    // No holder left: no child can have one either (subset rule), so the node is a leaf.
    size_ -= node.length;
    remove_child(parent, node.first);
    node.edge.clear();
    node.edge.shrink_to_fit();
    node.length = 0;
    node.children.clear();  // a freed node is a leaf: no links in wide_links_ either
    node.wide = false;
    node.holders.clear();
    node.holders.shrink_to_fit();
    node.parent = kNone;
    free_.push_back(id);
  }
}

void ApproxRadixTree::trim(std::size_t replica, std::uint64_t max_tokens) {
  if (replica >= tokens_.size()) return;
  while (tokens_[replica] > max_tokens && !leaves_[replica].empty()) evict_leaf(replica);
}

void ApproxRadixTree::trim_before(std::size_t replica, std::uint64_t clock) {
  if (replica >= tokens_.size()) return;
  // A parent's last access is >= its children's, so a parent that becomes a
  // leaf here is older than `clock` only if it was never refreshed after.
  while (!leaves_[replica].empty() && leaves_[replica].begin()->first < clock) evict_leaf(replica);
}

std::string ApproxRadixTree::check_invariants() const {
  Text err;
  const auto fail = [&err](const Text&) { return err.str(); };
  std::vector<std::uint64_t> tokens(tokens_.size(), 0);
  std::vector<std::set<LeafKey>> leaves(tokens_.size());
  std::uint64_t size = 0;
  std::size_t reached = 0;
  std::size_t stray = 0;
  const std::vector<std::vector<Child>> children = child_links::all<Child>(wide_links_, nodes_, stray);
  if (stray != 0) return fail(err << stray << " map links under nodes that are not wide");
  std::vector<NodeId> stack = {kRoot};
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    ++reached;
    const Node& node = nodes_[id];
    const std::vector<Child>& kids = children[id];
    if (node.wide && !node.children.empty()) return fail(err << "wide node " << id << " has vector children");
    if (id != kRoot) {
      if (node.length == 0) return fail(err << "node " << id << " has an empty edge");
      if (node.holders.empty()) return fail(err << "node " << id << " has no holder");
      size += node.length;
    }
    for (std::size_t i = 0; i < node.holders.size(); ++i) {
      const Holder& h = node.holders[i];
      if (i > 0 && node.holders[i - 1].replica >= h.replica)
        return fail(err << "node " << id << ": holders not sorted");
      if (h.replica >= tokens_.size()) return fail(err << "node " << id << ": unknown replica");
      tokens[h.replica] += node.length;
      std::uint32_t holding_children = 0;
      for (const Child& c : kids)
        if (const Holder* ch = find_holder(nodes_[c.node], h.replica)) {
          ++holding_children;
          if (ch->last_access > h.last_access)
            return fail(err << "node " << c.node << " is newer than its parent for replica " << h.replica);
        }
      if (holding_children != h.children)
        return fail(err << "node " << id << ": child count of replica " << h.replica << " is " << h.children
                    << ", recount " << holding_children);
      if (h.children == 0) leaves[h.replica].insert(LeafKey{h.last_access, id});
    }
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const Child& c = kids[i];
      const Node& child = nodes_[c.node];
      if (i > 0 && kids[i - 1].first >= c.first)
        return fail(err << "node " << id << ": children not sorted");
      if (child.parent != id || child.length == 0 || child.first != c.first)
        return fail(err << "node " << c.node << ": bad link to parent " << id);
      if (id != kRoot)
        for (const Holder& h : child.holders)
          if (!find_holder(node, h.replica))
            return fail(err << "node " << c.node << " holds replica " << h.replica << " its parent lacks");
      stack.push_back(c.node);
    }
  }
  if (reached != node_count() + 1) return fail(err << "unreachable nodes");
  if (size != size_) return fail(err << "size " << size_ << ", recount " << size);
  for (std::size_t r = 0; r < tokens_.size(); ++r) {
    if (tokens[r] != tokens_[r])
      return fail(err << "replica " << r << " tokens " << tokens_[r] << ", recount " << tokens[r]);
    if (leaves[r] != leaves_[r]) return fail(err << "replica " << r << ": leaf set differs");
  }
  return "";
}

}  // namespace prefixroute
