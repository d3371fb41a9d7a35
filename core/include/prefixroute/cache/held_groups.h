// HeldGroups: the replicas holding some of a prompt, grouped by the length of
// the prefix they hold: one replica set (a bit set, 64 replicas a word) per
// distinct non-zero length. PrefixIndex::match_groups fills it from one walk
// of the shared tree: the replicas leaving the holder set at a node boundary
// all hold the prompt up to that boundary, so they form one group whatever
// their number. A policy whose score of a replica depends on the matched
// length (and on per-replica state it keeps as bit sets) scores a group once
// instead of once per holder.
//
// Invariants (PrefixIndex::match_groups, ClusterView::match_groups): lengths
// are ascending, distinct and non-zero; the groups' sets are non-empty and
// disjoint; their union is `all`, the replicas whose match is non-zero.
// Every set has `words` words; a replica past the cluster size is never set.
//
// Cost: length_of is O(groups); group() is O(1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

struct HeldGroups {
  std::size_t words = 0;              ///< 64-bit words per replica set
  std::vector<std::uint64_t> all;     ///< every holder: the union of the groups
  std::vector<std::size_t> lengths;   ///< per group: the prefix its replicas hold (ascending)
  std::vector<std::uint64_t> members; ///< per group: its replicas, `words` words each

  std::size_t size() const { return lengths.size(); }
  const std::uint64_t* group(std::size_t g) const { return members.data() + g * words; }

  /// Empties it for sets of `word_count` words (keeps the buffers' capacity).
  void reset(std::size_t word_count) {
    words = word_count;
    all.resize(word_count);
    for (std::uint64_t& w : all) w = 0;
    lengths.clear();
    members.clear();
  }
  /// Appends an empty group of `length` tokens; returns its set to fill.
  std::uint64_t* add_group(std::size_t length) {
    lengths.push_back(length);
    members.resize(members.size() + words);
    std::uint64_t* set = members.data() + (lengths.size() - 1) * words;
    for (std::size_t w = 0; w < words; ++w) set[w] = 0;
    return set;
  }
  /// The prefix `replica` holds: 0 when it is in no group.
  std::size_t length_of(std::size_t replica) const {
    const std::size_t w = replica / 64;
    if (w >= words || (all[w] >> (replica % 64) & 1) == 0) return 0;
    for (std::size_t g = 0; g < lengths.size(); ++g)
      if ((members[g * words + w] >> (replica % 64) & 1) != 0) return lengths[g];
    return 0;  // unreachable while the invariants hold
  }
};

}  // namespace prefixroute
