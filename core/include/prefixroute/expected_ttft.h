// ExpectedTtft: route each request to the replica where it is expected to see
// its first token soonest, crediting cached prefixes a little extra so a
// tenant's prefix is not scattered for a marginal gain.
//
//   cost(r) = est_wait(r) + (uncached(r) - cache_credit x cached(r)) / rate
//
// cached(r) comes from the router's precise cache view (KV events, possibly
// lagged); est_wait(r) from the router's own model of each replica's FIFO
// prefill queue: every request it dispatches adds its estimated prefill time
// (uncached tokens by the view at dispatch / rate) behind the work already
// queued, and the queue drains in real time. When the first token of the
// request that was last in a replica's queue arrives, the router knows that
// queue is empty and resynchronises. It reads no engine truth, so it can be
// compared fairly with the production routers' policies. With an exact view
// (no lag) and the true rate its estimates equal the engine's.
//
// A request routed to a replica other than the policy's last choice (only
// possible when something else routes) is assumed to find nothing cached.
//
// Ties: the longer cached prefix, then fewer in-flight requests, then rotation
// (scan starts one past the previous choice). cache_credit = 0 is plain
// minimum expected TTFT; large credits approach naive affinity.
//
// Cost: one precise_view().match per replica per request (O(replicas x L)).
#pragma once

#include <vector>

#include "prefixroute/prefill_model.h"
#include "prefixroute/routing_policy.h"

namespace prefixroute {

struct ExpectedTtftParams {
  double cache_credit = 0.5;
  double prefill_tokens_per_s = 0;  ///< the router's estimate; 0 = the cluster's rate
};

class ExpectedTtft final : public RoutingPolicy {
 public:
  ExpectedTtft(const ExpectedTtftParams& params, double cluster_prefill_tokens_per_s);

  std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) override;
  std::string_view name() const override { return "expected_ttft"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;
  CacheView matched_view() const override { return CacheView::Precise; }

  /// The router's estimate of replica r's queued prefill at `now`.
  Tick estimated_wait(std::size_t r, Tick now) const;

 private:
  void ensure_size(std::size_t replicas);

  double cache_credit_;
  PrefillModel prefill_;  // the router's belief about the engines' prefill rate
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::size_t last_choice_ = ~std::size_t{0};  // consumed by the next on_routed
  std::size_t last_choice_tokens_ = 0;
  std::vector<Tick> est_busy_until_;      // per replica
  std::vector<std::uint64_t> last_in_queue_;  // per replica: id of the last request dispatched
  std::vector<std::size_t> matched_;          // scratch: per replica, precise_view() match
};

}  // namespace prefixroute
