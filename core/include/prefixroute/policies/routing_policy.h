// RoutingPolicy: the decision prefixroute studies. Given a request's prompt and
// the replicas' state at its arrival, pick the replica that serves it.
//
// Contract: choose() returns an index < cluster.size() (the cluster is never
// empty); it may read any replica (cache peeks via match() do not change
// recency) but must not modify them; it may update the policy's own state
// (e.g. a round-robin cursor). A policy uses no unseeded randomness, so the
// same inputs give the same choice. One instance serves one simulation.
//
// What a policy may read: the four baseline policies read engine truth
// (cache().match, projected_wait), as the write-up's model does. Policies modelled on
// production routers read only what those routers see: in_flight(),
// scraped() metrics, precise_view() of the cache, or their own approximate
// state built from the lifecycle hooks below (called by the simulator in
// event order: on_routed right after choose, on_first_token when prefill
// ends, on_completed when decoding ends).
//
// The cluster: choose() receives a ClusterView (cluster_view.h), which
// answers "every replica's cached prefix" and "the least-wait replica" from
// the simulator's shared structures instead of one scan per replica. A policy
// that matches prompts says which caches it reads (matched_view()), so the
// simulator indexes those.
//
// A router queue: a policy may hold requests at the router instead of routing
// them at arrival (router_queue() and holds() below); the simulator parks
// them and offers them to choose() later, when holds() turns false after one
// of the policy's own lifecycle hooks (sim/router_queue.h).
//
// Each policy also has a spec (policy_spec.h): name, label, parameters and
// factory, listed in the catalogue (catalogue.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "prefixroute/base/content.h"
#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"
#include "prefixroute/policies/cluster_view.h"

namespace prefixroute {

/// A request to route: its prompt and what a router knows of it besides.
/// Converts from a prompt alone (a request of its own session, turn 0), so
/// code that routes bare prompts (tests, the library API) passes one.
struct RouteRequest {
  Prompt prompt;                   ///< valid during the call only
  std::uint64_t id = 0;            ///< index in the trace
  std::uint64_t session = 0;       ///< conversation or agent run it belongs to
  std::uint32_t turn = 0;          ///< its index within the session (0 = first)
  std::uint64_t output_tokens = 0; ///< what it will generate (0 when unknown or decode is off)

  RouteRequest() = default;
  RouteRequest(const Prompt& p) : prompt(p) {}                  // NOLINT(google-explicit-constructor)
  RouteRequest(const PromptPieces& p) : prompt(p.view()) {}     // NOLINT(google-explicit-constructor)
  RouteRequest(const Prompt& p, std::uint64_t request_id, std::uint64_t session_id, std::uint32_t turn_index,
               std::uint64_t output)
      : prompt(p), id(request_id), session(session_id), turn(turn_index), output_tokens(output) {}
};

/// A request the policy has just routed.
struct RoutedRequest {
  std::uint64_t id = 0;          ///< index in the trace
  std::size_t replica = 0;       ///< the policy's choice
  Prompt prompt;                 ///< the prompt (valid during the call only)
  std::uint64_t output_tokens = 0;
  Tick now = 0;
  std::uint64_t session = 0;     ///< as in RouteRequest
  std::uint32_t turn = 0;
};

/// The order in which a router queue releases the requests it holds.
enum class HoldOrder : std::uint8_t {
  Fcfs,                 ///< earliest arrival first (ties: trace order)
  ShortestPromptFirst,  ///< fewest prompt tokens first (ties: earliest arrival)
};

class RoutingPolicy {
 public:
  virtual ~RoutingPolicy() = default;

  /// The replica (an index < cluster.size()) that serves `request`, arriving at `now`.
  virtual std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) = 0;

  /// Stable identifier, as in results JSON ("round_robin", ...).
  virtual std::string_view name() const = 0;

  /// How many prompt tokens the policy expected the replica it chose last to
  /// have cached, from the signals it used; -1 when it makes no prediction.
  /// Compared with the engine's actual hit in the results.
  virtual std::int64_t predicted_cached_tokens() const { return -1; }

  virtual void on_routed(const RoutedRequest&) {}
  virtual void on_first_token(std::uint64_t /*id*/, std::size_t /*replica*/, Tick /*now*/) {}
  virtual void on_completed(std::uint64_t /*id*/, std::size_t /*replica*/, Tick /*now*/) {}

  /// Which caches choose() matches prompts against, if any: the simulator
  /// keeps a PrefixIndex of those for the ClusterView.
  virtual CacheView matched_view() const { return CacheView::None; }
  /// Whether choose() reads ClusterView::least_in_flight or most_in_flight:
  /// the simulator then keeps the shown counts in an InFlightOrder. Read once
  /// per run.
  virtual bool reads_in_flight_order() const { return false; }

  /// Whether the policy keeps a router queue, and its release order; none by
  /// default (every request is routed at its arrival). Read once per run.
  virtual std::optional<HoldOrder> router_queue() const { return std::nullopt; }
  /// With a router queue: whether a request arriving (or waiting) at `now`
  /// must be held because no replica has room by the policy's own rule. Read
  /// from the policy's state only; it may change only through choose() and
  /// the lifecycle hooks, which is when the simulator asks again.
  virtual bool holds(const ClusterView& /*cluster*/, Tick /*now*/) const { return false; }
};

}  // namespace prefixroute
