// child_links: the child links of every node of one radix tree (PrefixIndex,
// ApproxRadixTree). A node keeps its links in a vector sorted by first token
// (sorted_children.h: binary search) while it has at most kWide of them; past
// that they move to one hash map keyed by (node, first token) for the whole
// tree, and the node is "wide" until it is freed. Adding or removing a child
// of a wide node is then O(1) expected instead of a shift of the vector's
// tail: in a tree over many replicas a popular prefix's node has the cached
// continuations of every replica as children, a number that grows with the
// replicas.
//
// Children are only ever looked up by first token, so where a link is kept
// changes no answer. The node owns its vector and its wide flag, the tree
// owns the map (a WideLinks member, wide_links.h); these functions keep them
// consistent. Cost: find O(log kWide) or one hash lookup; insert/erase
// O(kWide) or O(1) expected; a node turning wide moves kWide + 1 links once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/token.h"
#include "prefixroute/cache/wide_links.h"
#include "cache/sorted_children.h"

namespace prefixroute::child_links {

/// Children past which a node's links move to the map.
inline constexpr std::size_t kWide = 64;

using prefixroute::WideLinks;

template <typename NodeId>
std::uint64_t key(NodeId parent, Token first) {
  return (static_cast<std::uint64_t>(parent) << 32) | first;
}

/// find() for a wide node: a call of its own, so that find() stays small
/// enough to be inlined into the trees' walks.
template <typename NodeId>
[[gnu::noinline]] NodeId find_wide(const WideLinks<NodeId>& map, NodeId parent, Token first, NodeId none) {
  const auto it = map.find(key(parent, first));
  return it == map.end() ? none : it->second;
}

/// The child of `parent` starting with `first`, or `none`.
template <typename Child, typename NodeId>
inline NodeId find(const WideLinks<NodeId>& map, const std::vector<Child>& children, bool wide, NodeId parent,
                   Token first, NodeId none) {
  if (!wide) return sorted_children::find(children, first, none);
  return find_wide(map, parent, first, none);
}

/// Moves a node's links from its vector to the map (it has just passed kWide).
template <typename Child, typename NodeId>
[[gnu::noinline]] void make_wide(WideLinks<NodeId>& map, std::vector<Child>& children, bool& wide, NodeId parent) {
  for (const Child& c : children) map.emplace(key(parent, c.first), c.node);
  children.clear();
  children.shrink_to_fit();
  wide = true;
}

template <typename NodeId>
[[gnu::noinline]] void insert_wide(WideLinks<NodeId>& map, NodeId parent, Token first, NodeId node) {
  map.emplace(key(parent, first), node);
}

/// Adds `child` (no sibling starts with the same token); may make the node wide.
template <typename Child, typename NodeId>
inline void insert(WideLinks<NodeId>& map, std::vector<Child>& children, bool& wide, NodeId parent,
                   const Child& child) {
  if (wide) return insert_wide(map, parent, child.first, child.node);
  sorted_children::insert(children, child);
  if (children.size() > kWide) make_wide(map, children, wide, parent);
}

/// Removes the child starting with `first`, which must exist.
template <typename Child, typename NodeId>
void erase(WideLinks<NodeId>& map, std::vector<Child>& children, bool wide, NodeId parent, Token first) {
  if (wide) {
    map.erase(key(parent, first));
  } else {
    sorted_children::erase(children, first);
  }
}

/// Points the child starting with `first`, which must exist, at `node`.
template <typename Child, typename NodeId>
void replace(WideLinks<NodeId>& map, std::vector<Child>& children, bool wide, NodeId parent, Token first,
             NodeId node) {
  if (wide) {
    map.find(key(parent, first)).value() = node;
  } else {
    sorted_children::replace(children, first, node);
  }
}

/// Every node's children sorted by first token, from its vector or the map
/// (`Node` has `children` and `wide`). A map link under a node that is not
/// wide is counted in `stray`. O(N + links log links); for invariant checks.
template <typename Child, typename NodeId, typename Node>
std::vector<std::vector<Child>> all(const WideLinks<NodeId>& map, const std::vector<Node>& nodes,
                                    std::size_t& stray) {
  std::vector<std::vector<Child>> out(nodes.size());
  for (std::size_t id = 0; id < nodes.size(); ++id) out[id] = nodes[id].children;
  stray = 0;
  for (const auto& [k, node] : map) {
    const auto parent = static_cast<std::size_t>(k >> 32);
    if (parent >= nodes.size() || !nodes[parent].wide) {
      ++stray;
      continue;
    }
    out[parent].push_back(Child{static_cast<Token>(k & 0xffffffffu), node});
  }
  for (std::size_t id = 0; id < nodes.size(); ++id)
    if (nodes[id].wide)
      std::sort(out[id].begin(), out[id].end(), [](const Child& x, const Child& y) { return x.first < y.first; });
  return out;
}

}  // namespace prefixroute::child_links
