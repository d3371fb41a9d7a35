// WideLinks: the child links of a tree's wide nodes, (node, first token) ->
// child, in one open-addressing hash table for the whole tree (PrefixIndex,
// ApproxRadixTree; child_links.h keeps a node's links either here or in its
// own sorted vector).
//
// The table is tsl::robin_map (Debian's robin-map-dev, header-only): one
// array of buckets, so adding or removing a link allocates nothing except when
// the table grows. A node-based std::unordered_map allocates and frees a
// node per link: at 256 replicas (a popular prefix with a continuation per
// replica, a root with a child per tenant) that is about 120 instructions a
// request more for the prefix-index policies (docs/performance.md, "4 to 256
// replicas").
//
// The key packs the parent's id in the high half and the token in the low
// half; the table indexes buckets by the hash's low bits, so the hash mixes
// both halves (splitmix64's finalizer) instead of std::hash's identity, under
// which every parent's link of one first token would share a bucket.
// Links are only ever looked up, never iterated in an order that matters
// (child_links::all sorts them), so the table's layout changes no result.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tsl/robin_map.h>

namespace prefixroute {

/// splitmix64's finalizer: every output bit depends on every input bit.
struct WideLinkHash {
  std::size_t operator()(std::uint64_t x) const {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::size_t>(x ^ (x >> 31));
  }
};

/// (parent << 32 | first token) -> child, for the wide nodes of one tree.
template <typename NodeId>
using WideLinks = tsl::robin_map<std::uint64_t, NodeId, WideLinkHash>;

}  // namespace prefixroute
