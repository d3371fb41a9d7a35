// reservoir_least: the position that an argmin scan with reservoir
// tie-breaking picks, found from a TournamentTree of the keys without
// visiting every position.
//
// The scan it reproduces (smg's least_load, SGLang's router):
//
//   best = 0; tied = 1
//   for i in 1 .. n-1:
//     if key[i] <  key[best]: best = i; tied = 1
//     if key[i] == key[best]: tied += 1; if rng.below(tied) == 0: best = i
//
// Positions whose key is greater than the running least change nothing, so
// only the others are visited: from each visited position, the next is the
// first later one whose key is at most the running least
// (TournamentTree::first_at_most). They are the running least's records and
// every key equal to a running least, in position order: the same positions
// the scan acts on, in the same order, so the same `rng.below(tied)` draws
// (same count, same arguments) and the same pick.
//
// Requires keys with a total order (`a == b` exactly when neither is less:
// no NaN among doubles) and size() >= 1.
// Cost: O((records + ties) log n), where records is the number of times the
// running least falls (about ln n for keys in random order); the scan is O(n).
#pragma once

#include <cstddef>
#include <cstdint>

#include "prefixroute/base/random.h"
#include "prefixroute/base/tournament_tree.h"

namespace prefixroute {

template <typename Key>
std::size_t reservoir_least(const TournamentTree<Key>& keys, Rng& rng) {
  const std::size_t n = keys.size();
  std::size_t best = 0;
  Key least = keys[0];
  std::uint64_t tied = 1;
  for (std::size_t at = keys.first_at_most(1, least); at < n; at = keys.first_at_most(at + 1, least)) {
    if (keys[at] < least) {
      best = at;
      least = keys[at];
      tied = 1;
    } else {
      ++tied;
      if (rng.below(tied) == 0) best = at;
    }
  }
  return best;
}

}  // namespace prefixroute
