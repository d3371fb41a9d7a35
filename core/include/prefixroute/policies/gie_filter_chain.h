// GieFilterChain: the Gateway API Inference Extension's original scheduler,
// a decision tree of filters over scraped metrics, re-implemented from its
// source (kubernetes-sigs/gateway-api-inference-extension :
// pkg/epp/scheduling/filter.go and scheduler.go, before the plugin
// framework's scorers).
//
// The tree. Each filter keeps a subset of the replicas; "success" means the
// subset is not empty; on success the next filter receives the subset, on
// failure the input it was given.
//
//   low queue: queue < queue_threshold (128)
//     success -> LoRA affinity -> least queue -> least KV
//     failure -> least queue -> LoRA affinity -> least KV
//   then a uniform (seeded) pick among what remains.
//
//   least queue  with min and max the queue lengths of the n replicas it
//                receives, keeps those with queue in [min, min + (max - min)
//                / n] -- an integer division, as in Go.
//   least KV     the same band over KV usage: [min, min + (max - min) / n].
//   LoRA         keeps replicas with the request's adapter loaded, or with
//                room for it (p = 0.999). The simulated requests name no
//                adapter and replicas load none, so the filter passes its
//                input through unchanged in both branches; it is named for
//                the tree's shape only.
//
// Signals: scraped metrics only (scraped().queue_length as the waiting
// queue, scraped().kv_usage as KV usage), as stale as
// router.scrape_period_ms. Simplifications, named: every request is
// "critical" (the sheddable branch -- queue 0 and KV <= 0.8, else drop --
// would drop requests, which the simulator cannot); no LoRA (above).
// The pick is one Rng::below over the remaining replicas in index order,
// drawn (only when more than one remains) from the policy's own Rng, seeded
// from the scenario seed.
//
// Filters that read scraped metrics alone give the same remaining replicas
// for every request between two scrapes, so the tree runs once per scrape
// (ClusterView::scrape_count) and each request only draws from its result.
// A view without a scrape count runs the tree every request.
// Cost: O(R) per scrape; O(1) per request between scrapes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// GIE's original filter tree over scraped queue and KV usage.
struct GieFilterChainParams {
  std::uint32_t queue_threshold = 128;  ///< low-queue filter: queue strictly below this
};

class GieFilterChain final : public RoutingPolicy {
 public:
  GieFilterChain(const GieFilterChainParams& params, std::uint64_t seed);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "gie_filter_chain"; }

  /// GIE's least-queue band of `in` into `out` (never empty for a non-empty input).
  static void least_queue(const ClusterView& cluster, const std::vector<std::size_t>& in,
                          std::vector<std::size_t>& out);
  /// GIE's least-KV band of `in` into `out`.
  static void least_kv(const ClusterView& cluster, const std::vector<std::size_t>& in, std::vector<std::size_t>& out);

  // ---- inspection, for tests ----
  /// The replicas left for the final pick in the last choose().
  const std::vector<std::size_t>& last_remaining() const { return remaining_; }
  /// Whether the low-queue filter succeeded in the last choose().
  bool last_low_queue() const { return low_queue_; }

 private:
  // The filter tree over the current scrape into remaining_.
  void filter(const ClusterView& cluster);

  GieFilterChainParams params_;
  Rng rng_;
  std::optional<std::uint64_t> filtered_count_;  // the scrape remaining_ is of
  const Replica* filtered_replicas_ = nullptr;
  std::size_t filtered_n_ = 0;
  std::vector<std::size_t> all_, low_, band_, remaining_;
  bool low_queue_ = false;
};

/// GieFilterChain's entry in the policy catalogue.
const PolicySpec& gie_filter_chain_policy_spec();

}  // namespace prefixroute
