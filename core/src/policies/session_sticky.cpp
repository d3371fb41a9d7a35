#include "prefixroute/policies/session_sticky.h"

#include <algorithm>

namespace prefixroute {

const PolicySpec& session_sticky_policy_spec() {
  static const PolicySpec spec = policy_spec<SessionStickyParams>(
      {"session_sticky", "Session affinity (Dynamo)",
       "Dynamo session affinity: a session's first call binds it to the KV router's choice, kept while active "
       "and ttl_s after (hard) or preferred by a cost bonus (soft).",
       {"#9f1239", "#fda4af"}},
      {choice<&SessionStickyParams::mode>("mode", "Affinity mode", "hard,soft",
                                          "hard: a bound session always goes to its replica; soft: its replica "
                                          "gets a cost bonus in the KV router's choice."),
       param<&SessionStickyParams::ttl_s>("ttl_s", "Binding TTL", 0, 3.2e7, "s",
                                          "A binding lives while the session has a request in flight and this "
                                          "long after its last activity."),
       param<&SessionStickyParams::soft_bonus_blocks>(
           "soft_bonus_blocks", "Soft bonus", 0, 1e9, "blocks",
           "Soft mode: the bound replica's Dynamo cost is lowered by this many blocks.")},
      [](const SessionStickyParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<SessionSticky>(p, context.seed);
      },
      [](const SessionStickyParams&, const PolicyContext&, const RoutedSize& size) {
        // A binding per session (at most one per request), an in-flight entry
        // per request and an expiry candidate per completion: hash-map nodes
        // and buckets and deque slots, ~160 bytes a request at most.
        return size.requests * 160.0;
      });
  return spec;
}

SessionSticky::SessionSticky(const SessionStickyParams& params, std::uint64_t seed)
    : params_(params), ttl_(seconds_to_ticks_saturating(params.ttl_s)), base_(DynamoKvParams{}, seed) {}

void SessionSticky::sweep(Tick now) {
  while (!expiries_.empty() && expiries_.front().first <= now) {
    const auto it = bindings_.find(expiries_.front().second);
    if (it != bindings_.end() && !live(it->second, now)) bindings_.erase(it);
    expiries_.pop_front();
  }
}

std::int64_t SessionSticky::bound_replica(std::uint64_t session, Tick now) const {
  const auto it = bindings_.find(session);
  return it != bindings_.end() && live(it->second, now) ? static_cast<std::int64_t>(it->second.replica) : -1;
}

std::size_t SessionSticky::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  sweep(now);
  const std::size_t base_choice = base_.choose(request, cluster, now);
  std::size_t chosen = base_choice;
  followed_ = false;
  const auto it = bindings_.find(request.session);
  if (it != bindings_.end() && live(it->second, now) && it->second.replica < cluster.size()) {
    const std::size_t bound = it->second.replica;
    if (params_.mode == SessionAffinityMode::Hard) {
      chosen = bound;
    } else {
      if (base_.last_cost(bound) - params_.soft_bonus_blocks <= base_.last_cost(base_choice)) chosen = bound;
    }
    followed_ = chosen == bound;
  }
  predicted_ = chosen == base_choice ? base_.predicted_cached_tokens()
                                     : static_cast<std::int64_t>(base_.overlap_of(chosen) *
                                                                 base_.params().block_size);
  return chosen;
}

void SessionSticky::on_routed(const RoutedRequest& request) {
  base_.on_routed(request);
  // Bind (or rebind) the session to where this call went.
  Binding& b = bindings_[request.session];
  b.replica = static_cast<std::uint32_t>(request.replica);
  ++b.active;
  b.last_activity = std::max(b.last_activity, request.now);
  session_of_[request.id] = request.session;
}

void SessionSticky::on_first_token(std::uint64_t id, std::size_t replica, Tick now) {
  base_.on_first_token(id, replica, now);
}

void SessionSticky::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  base_.on_completed(id, replica, now);
  const auto s = session_of_.find(id);
  if (s == session_of_.end()) return;
  const auto it = bindings_.find(s->second);
  if (it != bindings_.end()) {
    Binding& b = it->second;
    if (b.active > 0) --b.active;
    b.last_activity = std::max(b.last_activity, now);
    if (b.active == 0) expiries_.emplace_back(expiry(b), s->second);
  }
  session_of_.erase(s);
}

}  // namespace prefixroute
