#include "prefixroute/sim/router_instances.h"

namespace prefixroute {

RouterInstances::RouterInstances(std::span<RoutingPolicy* const> policies, std::vector<Replica>& replicas)
    : policies_(policies), replicas_(replicas) {
  const std::optional<HoldOrder> order = policies_.front()->router_queue();
  if (order) queues_.assign(policies_.size(), RouterQueue(*order));
  if (policies_.front()->reads_in_flight_order()) order_.emplace(replicas_.size());
  if (policies_.size() > 1) {
    counts_.assign(policies_.size() * replicas_.size(), 0);
    total_.assign(replicas_.size(), 0);
  }
}

void RouterInstances::enter(std::size_t instance) {
  if (instance == current_) return;
  const std::size_t n = replicas_.size();
  const std::uint32_t* counts = counts_.data() + instance * n;
  shown_in_flight_ = 0;
  for (std::size_t r = 0; r < n; ++r) {
    replicas_[r].set_router_in_flight(counts[r]);
    shown_in_flight_ += counts[r];
    if (order_) order_->set(r, counts[r]);
  }
  current_ = instance;
}

void RouterInstances::dispatched(std::size_t instance, std::size_t replica) {
  if (instance == current_) {
    replicas_[replica].router_dispatched();
    ++shown_in_flight_;
    if (order_) order_->set(replica, replicas_[replica].in_flight());
  }
  if (policies_.size() == 1) return;
  ++counts_[instance * replicas_.size() + replica];
  ++total_[replica];
}

void RouterInstances::completed(std::size_t instance, std::size_t replica) {
  if (instance == current_) {
    replicas_[replica].router_completed();
    --shown_in_flight_;
    if (order_) order_->set(replica, replicas_[replica].in_flight());
  }
  if (policies_.size() == 1) return;
  --counts_[instance * replicas_.size() + replica];
  --total_[replica];
}

}  // namespace prefixroute
