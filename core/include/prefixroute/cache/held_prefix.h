// HeldPrefix: one replica's cached prefix of a prompt, as the prefix
// structures report only the replicas holding some of it (PrefixIndex's
// match_held for the engines' caches, ApproxRadixTree's for a router's own
// tree). A list of them is in replica order; a replica not in it holds none.
//
// Cost: held_length is O(log holders).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace prefixroute {

struct HeldPrefix {
  std::uint32_t replica;
  std::size_t matched;  ///< tokens of the prompt's prefix the replica holds
};

/// The prefix `replica` holds, from `held` (replica order): 0 when absent.
inline std::size_t held_length(std::span<const HeldPrefix> held, std::size_t replica) {
  const auto it = std::lower_bound(held.begin(), held.end(), replica,
                                   [](const HeldPrefix& h, std::size_t r) { return h.replica < r; });
  return it != held.end() && it->replica == replica ? it->matched : 0;
}

}  // namespace prefixroute
