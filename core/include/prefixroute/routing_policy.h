// RoutingPolicy: the decision prefixroute studies. Given a request's prompt and
// the replicas' state at its arrival, pick the replica that serves it.
//
// Contract: choose() returns an index < replicas.size() (replicas is never
// empty); it may read any replica (cache peeks via match() do not change
// recency) but must not modify them; it may update the policy's own state
// (e.g. a round-robin cursor). A policy uses no unseeded randomness, so the
// same inputs give the same choice. One instance serves one simulation.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "prefixroute/replica.h"
#include "prefixroute/time.h"
#include "prefixroute/token.h"

namespace prefixroute {

class RoutingPolicy {
 public:
  virtual ~RoutingPolicy() = default;

  virtual std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) = 0;

  /// Stable identifier, as in results JSON ("round_robin", ...).
  virtual std::string_view name() const = 0;
};

/// Index of the replica with the least projected wait at `now`. Ties go to the
/// first tied replica at or after `start` (cyclically), so a rotating `start`
/// spreads ties evenly instead of always favouring replica 0.
std::size_t least_loaded_index(std::span<const Replica> replicas, Tick now, std::size_t start = 0);

}  // namespace prefixroute
