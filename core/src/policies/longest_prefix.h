// The rule Affinity and AffinityBalanced share: the longest cached prefix
// among the replicas whose wait is within a limit. Internal to core/src.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/policies/cluster_view.h"

namespace prefixroute {

// Longest cached prefix among replicas whose wait is <= wait_limit; ties to the
// least wait, then to the first in rotated order from `start`. `held` lists
// the replicas with a non-empty cached prefix (in replica order); when none of
// them is eligible, every eligible replica matches 0 and the choice is the
// first in rotated order with the least wait: least_loaded(), called only
// then (it is least_loaded_index(replicas, now, start), whose wait is within
// any limit). Sets `matched_out` to the chosen replica's cached prefix.
template <typename LeastLoaded>
std::size_t longest_prefix_index(const std::vector<PrefixIndex::Held>& held, const ClusterView& cluster, Tick now,
                                 Tick wait_limit, std::size_t start, const LeastLoaded& least_loaded,
                                 std::int64_t& matched_out) {
  const std::size_t n = cluster.size();
  std::size_t best = n;
  std::size_t best_match = 0;
  Tick best_wait = 0;
  const auto consider = [&](const PrefixIndex::Held& h) {
    const Tick wait = cluster[h.replica].projected_wait(now);
    if (wait > wait_limit) return;
    if (best == n || h.matched > best_match || (h.matched == best_match && wait < best_wait)) {
      best = h.replica;
      best_match = h.matched;
      best_wait = wait;
    }
  };
  // Rotated order: the holders at or after `start`, then those before it.
  const auto from = static_cast<std::uint32_t>(start % n);
  const auto split = std::lower_bound(held.begin(), held.end(), from,
                                      [](const PrefixIndex::Held& h, std::uint32_t r) { return h.replica < r; });
  for (auto it = split; it != held.end(); ++it) consider(*it);
  for (auto it = held.begin(); it != split; ++it) consider(*it);
  if (best == n) {
    best = least_loaded();
    best_match = 0;
  }
  matched_out = static_cast<std::int64_t>(best_match);
  return best;
}

}  // namespace prefixroute
