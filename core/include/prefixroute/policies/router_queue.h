// RouterQueue: the requests a router holds back instead of routing them at
// arrival, and the order it releases them in.
//
// What it models. NVIDIA Dynamo's router queue (ai-dynamo/dynamo :
// lib/kv-router/src/queue.rs, SchedulerQueue; flags --router-queue-threshold
// and --router-queue-policy in docs/components/router/README.md): a request
// that arrives while every worker is above the policy's threshold is parked
// in a priority queue; whenever a request of that router finishes prefill or
// completes, the router pops and routes held requests, best first, until the
// workers are busy again or the queue is empty. Routing happens at release,
// with the state of that moment. The rule deciding "busy" belongs to the
// policy (RoutingPolicy::holds()); this class is only the queue.
//
// Orders: fcfs releases the earliest arrival first (Dynamo's fcfs); spf the
// shortest prompt first, ties by arrival (Dynamo's wspt, (1 + priority) /
// input tokens, with every priority 0: prefixroute's requests carry none).
// A request's arrival order is its id (the trace is sorted by arrival, ties
// in trace order), so fcfs is "smallest id first".
//
// Invariants: each held request is released exactly once; the order of
// release depends only on (key, id), never on container iteration order.
// Cost: push and pop O(log H) for H held requests; memory one held request
// (its prompt's pieces copied) per entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/policies/routing_policy.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

/// A request waiting at the router: its id (index in the trace) and the
/// request as the source gave it (its arrival is when it reached the router).
struct HeldRequest {
  std::uint64_t id = 0;
  SourcedRequest request;
};

class RouterQueue {
 public:
  explicit RouterQueue(HoldOrder order = HoldOrder::Fcfs) : order_(order) {}

  HoldOrder order() const { return order_; }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

  /// Holds `request` (request id `id`).
  void push(std::uint64_t id, const SourcedRequest& request);
  /// Removes the next request to release into `out`. Precondition: !empty().
  void pop(HeldRequest& out);

 private:
  struct Entry {
    std::uint64_t key;  // fcfs: 0; spf: prompt tokens
    std::uint64_t id;
    std::uint32_t slot;  // in held_
    // std::priority_queue keeps the largest on top: "larger" = released later.
    bool operator<(const Entry& other) const {
      return key != other.key ? key > other.key : id > other.id;
    }
  };

  HoldOrder order_;
  std::priority_queue<Entry> heap_;
  std::vector<HeldRequest> held_;        // slots; a released slot is reused
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace prefixroute
