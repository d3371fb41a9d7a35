// InFlightOrder: the in-flight counts the replicas show (Replica::in_flight(),
// the routing instance's own counts) in order structures, so a policy that
// reads the fewest or the most requests in flight need not scan them:
// a TournamentTree of the counts (the least count, and the lowest-index
// replica holding it) and a CountTally (base/count_tally.h: the replicas at
// each count, the most).
//
// The simulator keeps one when a policy asks for it
// (RoutingPolicy::reads_in_flight_order): RouterInstances sets a replica's
// count at each dispatch and completion of the current instance and every
// count when another instance enters. Policies read it through ClusterView
// (least_in_flight, most_in_flight).
//
// Invariants: count(r) is replica r's shown count; tally_ holds every
// replica's count.
// Cost: set O(log R) (the most moves one count at a time, so lowering it is
// O(1) per unit of change); least, first_least O(1) / O(log R); most, at O(1).
// Memory: 2 x R rounded up to a power of two counts, plus one per count value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "prefixroute/base/count_tally.h"
#include "prefixroute/base/tournament_tree.h"

namespace prefixroute {

class InFlightOrder {
 public:
  /// `n` replicas, every count 0.
  explicit InFlightOrder(std::size_t n)
      : counts_(n, std::numeric_limits<std::uint32_t>::max()), tally_(n) {
    for (std::size_t r = 0; r < n; ++r) counts_.set(r, 0);
  }

  std::size_t size() const { return counts_.size(); }
  std::uint32_t count(std::size_t r) const { return counts_[r]; }

  /// Sets replica r's count.
  void set(std::size_t r, std::uint32_t count) {
    const std::uint32_t old = counts_[r];
    if (old == count) return;
    tally_.move(old, count);
    counts_.set(r, count);
  }

  /// The fewest in flight (requires size() > 0).
  std::uint32_t least() const { return counts_.least(); }
  /// The lowest-index replica with the fewest in flight.
  std::size_t first_least() const { return counts_.position_of_least(); }
  /// The most in flight.
  std::uint32_t most() const { return tally_.most(); }
  /// The replicas with exactly `count` in flight.
  std::uint32_t at(std::uint32_t count) const { return tally_.at(count); }

 private:
  TournamentTree<std::uint32_t> counts_;
  CountTally tally_;
};

}  // namespace prefixroute
