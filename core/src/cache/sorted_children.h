// The child links of a radix-tree node, kept in a vector sorted by the first
// token of each child's edge (at most one child per first token). Shared by
// RadixCache, ApproxRadixTree and PrefixIndex, whose Child types are all
// { Token first; NodeId node; }.
//
// Cost: lookups are a binary search, O(log children); inserting and erasing
// shift the tail of the vector, O(children), which stays small (a node's
// children are the distinct next tokens after its prefix).
#pragma once

#include <algorithm>
#include <vector>

#include "prefixroute/base/token.h"

namespace prefixroute::sorted_children {

/// The first child whose first token is >= `first`.
template <typename Child>
auto lower_bound(std::vector<Child>& children, Token first) {
  return std::lower_bound(children.begin(), children.end(), first,
                          [](const Child& c, Token t) { return c.first < t; });
}

/// The child starting with `first`, or `none`.
template <typename Child, typename NodeId>
NodeId find(const std::vector<Child>& children, Token first, NodeId none) {
  const auto it = std::lower_bound(children.begin(), children.end(), first,
                                   [](const Child& c, Token t) { return c.first < t; });
  return (it != children.end() && it->first == first) ? it->node : none;
}

/// Adds a child; no child may start with the same token.
template <typename Child>
void insert(std::vector<Child>& children, const Child& child) {
  children.insert(lower_bound(children, child.first), child);
}

/// Removes the child starting with `first`, which must exist.
template <typename Child>
void erase(std::vector<Child>& children, Token first) {
  children.erase(lower_bound(children, first));
}

/// Points the child starting with `first`, which must exist, at `node`.
template <typename Child, typename NodeId>
void replace(std::vector<Child>& children, Token first, NodeId node) {
  lower_bound(children, first)->node = node;
}

}  // namespace prefixroute::sorted_children
