#include "prefixroute/cache/approx_radix_tree.h"

#include <algorithm>

#include "common_prefix.h"
#include "sorted_children.h"
#include "../base/text.h"

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

ApproxRadixTree::NodeId ApproxRadixTree::find_child(const Node& node, Token first) const {
  return sorted_children::find(node.children, first, kNone);
}

void ApproxRadixTree::add_child(NodeId parent, NodeId child) {
  sorted_children::insert(nodes_[parent].children, Child{nodes_[child].edge.front(), child});
  nodes_[child].parent = parent;
}

void ApproxRadixTree::remove_child(NodeId parent, Token first) {
  sorted_children::erase(nodes_[parent].children, first);
}

ApproxRadixTree::Holder* ApproxRadixTree::find_holder(Node& node, std::size_t replica) {
  auto it = std::lower_bound(node.holders.begin(), node.holders.end(), replica,
                             [](const Holder& h, std::size_t r) { return h.replica < r; });
  return (it != node.holders.end() && it->replica == replica) ? &*it : nullptr;
}

const ApproxRadixTree::Holder* ApproxRadixTree::find_holder(const Node& node, std::size_t replica) {
  return find_holder(const_cast<Node&>(node), replica);
}

std::size_t ApproxRadixTree::match(TokenSpan tokens, std::vector<std::size_t>& per_replica) const {
  per_replica.assign(tokens_.size(), 0);
  NodeId node = kRoot;
  std::size_t pos = 0;
  while (pos < tokens.size()) {
    const NodeId child = find_child(nodes_[node], tokens[pos]);
    if (child == kNone) break;
    const std::vector<Token>& edge = nodes_[child].edge;
    // The first token matched by find_child.
    const std::size_t k =
        first_difference(edge.data(), tokens.data() + pos, 1, std::min(edge.size(), tokens.size() - pos));
    pos += k;
    // Holders shrink down the path, so each replica's last write is its own depth.
    for (const Holder& h : nodes_[child].holders) per_replica[h.replica] = pos;
    if (k < edge.size()) break;
    node = child;
  }
  return pos;
}

// Splits node `id` after `at` tokens of its edge. The new upper node takes the
// first `at` tokens and a copy of the holders (each holding exactly one child:
// the lower part); the lower part keeps its id, so leaf keys stay valid.
ApproxRadixTree::NodeId ApproxRadixTree::split(NodeId id, std::size_t at) {
  const NodeId upper = allocate();
  Node& lower = nodes_[id];
  Node& up = nodes_[upper];
  up.edge.assign(lower.edge.begin(), lower.edge.begin() + static_cast<std::ptrdiff_t>(at));
  lower.edge.erase(lower.edge.begin(), lower.edge.begin() + static_cast<std::ptrdiff_t>(at));
  up.holders = lower.holders;
  for (Holder& h : up.holders) h.children = 1;
  const NodeId parent = lower.parent;
  sorted_children::replace(nodes_[parent].children, up.edge.front(), upper);
  up.parent = parent;
  up.children.push_back(Child{lower.edge.front(), id});
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
  tokens_[replica] += node.edge.size();
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

void ApproxRadixTree::insert(TokenSpan tokens, std::size_t replica) {
  set_replicas(replica + 1);
  ++clock_;
  NodeId node = kRoot;
  std::size_t pos = 0;
  while (pos < tokens.size()) {
    NodeId child = find_child(nodes_[node], tokens[pos]);
    if (child == kNone) {
      child = allocate();
      nodes_[child].edge.assign(tokens.begin() + static_cast<std::ptrdiff_t>(pos), tokens.end());
      size_ += nodes_[child].edge.size();
      add_child(node, child);
      touch(child, replica);
      node = child;
      break;
    }
    const std::size_t edge_size = nodes_[child].edge.size();
    const std::size_t k =
        first_difference(nodes_[child].edge.data(), tokens.data() + pos, 1, std::min(edge_size, tokens.size() - pos));
    if (k < edge_size) child = split(child, k);
    touch(child, replica);
    pos += k;
    node = child;
  }
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
  tokens_[replica] -= node.edge.size();
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
    size_ -= node.edge.size();
    remove_child(parent, node.edge.front());
    node.edge.clear();
    node.edge.shrink_to_fit();
    node.children.clear();
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

std::string ApproxRadixTree::check_invariants() const {
  Text err;
  const auto fail = [&err](const Text&) { return err.str(); };
  std::vector<std::uint64_t> tokens(tokens_.size(), 0);
  std::vector<std::set<LeafKey>> leaves(tokens_.size());
  std::uint64_t size = 0;
  std::size_t reached = 0;
  std::vector<NodeId> stack = {kRoot};
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    ++reached;
    const Node& node = nodes_[id];
    if (id != kRoot) {
      if (node.edge.empty()) return fail(err << "node " << id << " has an empty edge");
      if (node.holders.empty()) return fail(err << "node " << id << " has no holder");
      size += node.edge.size();
    }
    for (std::size_t i = 0; i < node.holders.size(); ++i) {
      const Holder& h = node.holders[i];
      if (i > 0 && node.holders[i - 1].replica >= h.replica)
        return fail(err << "node " << id << ": holders not sorted");
      if (h.replica >= tokens_.size()) return fail(err << "node " << id << ": unknown replica");
      tokens[h.replica] += node.edge.size();
      std::uint32_t holding_children = 0;
      for (const Child& c : node.children)
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
    for (std::size_t i = 0; i < node.children.size(); ++i) {
      const Child& c = node.children[i];
      const Node& child = nodes_[c.node];
      if (i > 0 && node.children[i - 1].first >= c.first)
        return fail(err << "node " << id << ": children not sorted");
      if (child.parent != id || child.edge.empty() || child.edge.front() != c.first)
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
