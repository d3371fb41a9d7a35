// RouterInstances: N replicas of the router in front of one cluster, each
// with its own policy state, as a gateway deployed with several replicas runs
// (router.instances; smg-project/smg#1621: with N gateway replicas each sees
// about 1/N of the in-flight requests).
//
// What it models. Requests are spread over the instances round-robin in
// arrival order: request i (its index in the trace, which is its arrival
// order) goes to instance i mod N. Each instance is its own RoutingPolicy
// object (counters, trees, tables, random stream), sees only its own
// requests (choose() and the lifecycle hooks of those), keeps its own
// router-local in-flight counts (Replica::in_flight() shows the counts of
// the instance routing) and, when its policy has one, its own router queue.
// What instances share is what the engines publish: scraped metrics and
// KV events (the precise cache view), and the engines' own state.
//
// What it simplifies. The spread is exactly round-robin (a load balancer in
// front of the routers; no client stickiness); instances never synchronise
// state (Dynamo's --router-replica-sync and the like are not modelled); they
// all scrape at the same instants.
//
// Invariants: for every instance k and replica r, the count k shows equals
// the requests k dispatched to r and not yet completed; total(r) is their
// sum over instances; the replicas' in_flight() are instance current()'s.
// With one instance this is exactly the single router's bookkeeping.
// When the policy reads the fewest and most in flight
// (RoutingPolicy::reads_in_flight_order), the shown counts are also kept in an
// InFlightOrder: O(log R) more per dispatch and completion, O(R log R) per
// enter() of another instance.
// Cost: O(1) per dispatch and completion; enter() of another instance is
// O(replicas) (it loads that instance's counts into the replicas), so a run
// with N > 1 pays O(replicas) per request; memory N x replicas counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "prefixroute/policies/routing_policy.h"
#include "prefixroute/cluster/in_flight_order.h"
#include "prefixroute/cluster/replica.h"
#include "prefixroute/policies/router_queue.h"

namespace prefixroute {

class RouterInstances {
 public:
  /// One instance per policy (at least one), in front of `replicas`.
  RouterInstances(std::span<RoutingPolicy* const> policies, std::vector<Replica>& replicas);

  std::size_t size() const { return policies_.size(); }
  /// The instance that routes request `id`.
  std::size_t of(std::uint64_t id) const {
    return policies_.size() == 1 ? 0 : static_cast<std::size_t>(id % policies_.size());
  }
  RoutingPolicy& policy(std::size_t instance) const { return *policies_[instance]; }
  /// Instance `instance`'s router queue, or null when its policy keeps none.
  RouterQueue* queue(std::size_t instance) { return queues_.empty() ? nullptr : &queues_[instance]; }
  bool has_queues() const { return !queues_.empty(); }

  /// Makes the replicas' in_flight() show `instance`'s counts.
  void enter(std::size_t instance);
  std::size_t current() const { return current_; }

  /// `instance` dispatched a request to `replica`, or one it dispatched there completed.
  void dispatched(std::size_t instance, std::size_t replica);
  void completed(std::size_t instance, std::size_t replica);
  /// The sum of the replicas' in_flight() as they show now (the current
  /// instance's counts), kept as they change: ClusterView::total_in_flight.
  const std::uint64_t& shown_in_flight() const { return shown_in_flight_; }
  /// The shown counts in order (ClusterView::least_in_flight, most_in_flight),
  /// or null when the policy reads neither.
  const InFlightOrder* in_flight_order() const { return order_ ? &*order_ : nullptr; }
  /// Requests dispatched to `replica` by every instance and not yet completed.
  std::uint32_t total(std::size_t replica) const {
    return policies_.size() == 1 ? replicas_[replica].in_flight() : total_[replica];
  }

 private:
  std::span<RoutingPolicy* const> policies_;
  std::vector<Replica>& replicas_;
  std::vector<RouterQueue> queues_;     // per instance, when the policy keeps one
  std::vector<std::uint32_t> counts_;   // N > 1: counts_[instance * replicas + replica]
  std::vector<std::uint32_t> total_;    // N > 1: per replica
  std::size_t current_ = 0;
  std::uint64_t shown_in_flight_ = 0;   // sum of replicas_[r].in_flight()
  std::optional<InFlightOrder> order_;  // of replicas_[r].in_flight(), when read
};

}  // namespace prefixroute
