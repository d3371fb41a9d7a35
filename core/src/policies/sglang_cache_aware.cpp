#include "prefixroute/policies/sglang_cache_aware.h"

#include <algorithm>

namespace prefixroute {

const PolicySpec& sglang_cache_aware_policy_spec() {
  static const PolicySpec spec = policy_spec<SglangCacheAwareParams>(
      {"sglang_cache_aware", "SGLang cache-aware",
       "SGLang router: approximate radix tree of routed prompts, least loaded when imbalanced.",
       {"#db2777", "#f472b6"}},
      {param<&SglangCacheAwareParams::balance_abs>(
           "balance_abs", "Imbalance gate, absolute", 0, 1e9, "requests",
           "Imbalance gate: max - min in-flight above this (and the relative test) -> least loaded."),
       param<&SglangCacheAwareParams::balance_rel>(
           "balance_rel", "Imbalance gate, relative", 1, 1e6, "",
           "Imbalance gate: max in-flight above this x min (and the absolute test)."),
       param<&SglangCacheAwareParams::cache_threshold>(
           "cache_threshold", "Cache threshold", 0, 1, "",
           "Matched / prompt above this routes to the replica holding the match."),
       param<&SglangCacheAwareParams::eviction_interval_s>("eviction_interval_s", "Tree trim interval", 1e-3, 1e6,
                                                           "s", "How often the router trims its approximate trees."),
       param<&SglangCacheAwareParams::max_tree_tokens>("max_tree_tokens", "Tree size after trim", 1, 1e10, "tokens",
                                                       "Per-replica approximate tree size after a trim."),
       param<&SglangCacheAwareParams::smallest_tree_fallback>(
           "smallest_tree_fallback", "Smallest-tree fallback", 0, 1, "",
           "1: below the threshold route to the smallest tree (older rule); 0: least loaded."),
       choice<&SglangCacheAwareParams::gate>(
           "gate", "Imbalance gate", "fleet,per_request",
           "fleet: max - min in-flight over the fleet (as shipped); per_request: only the chosen replica against "
           "the fleet mean.")},
      [](const SglangCacheAwareParams& p, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<SglangCacheAware>(p);
      });
  return spec;
}

SglangCacheAware::SglangCacheAware(const SglangCacheAwareParams& params)
    : params_(params),
      interval_(std::max<Tick>(1, seconds_to_ticks(params.eviction_interval_s))),
      next_trim_(interval_) {}

std::size_t SglangCacheAware::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::span<const Replica> replicas = cluster.replicas();
  const std::size_t n = replicas.size();
  tree_.set_replicas(n);
  if (now >= next_trim_) {
    for (std::size_t r = 0; r < tree_.replicas(); ++r) tree_.trim(r, params_.max_tree_tokens);
    // The next boundary strictly after now: missed boundaries collapse into this trim.
    next_trim_ += ((now - next_trim_) / interval_ + 1) * interval_;
  }

  // The fewest (first such replica), the most and the total in flight: kept
  // by the simulator (InFlightOrder, the running total), else scans.
  const std::size_t least = cluster.least_in_flight();
  const std::uint32_t min_load = replicas[least].in_flight();
  const std::uint32_t max_load = cluster.most_in_flight();

  // The replicas holding part of the prompt, with their own match.
  const std::size_t matched = tree_.match_held(prompt, held_);
  const bool imbalanced = params_.gate == SglangGate::Fleet &&
                          static_cast<double>(max_load - min_load) > params_.balance_abs &&
                          static_cast<double>(max_load) > params_.balance_rel * static_cast<double>(min_load);
  const bool hit = !prompt.empty() && static_cast<double>(matched) / static_cast<double>(prompt.size()) >
                                          params_.cache_threshold;
  std::size_t chosen = least;
  if (imbalanced) {
    rule_ = Rule::Imbalance;
  } else if (hit) {
    // The deepest node's holders are exactly the replicas whose own match is
    // the overall match (matched > 0 here, since the ratio beat a threshold >= 0).
    rule_ = Rule::CacheMatch;
    std::size_t best = n;
    for (const ApproxRadixTree::Held& h : held_) {
      if (h.replica >= n) break;
      if (h.matched != matched) continue;
      if (best == n || replicas[h.replica].in_flight() < replicas[best].in_flight()) best = h.replica;
    }
    if (best < n) chosen = best;
    if (params_.gate == SglangGate::PerRequest) {
      // The chosen replica against the fleet mean: above by abs AND by rel -> least loaded.
      const double mean = static_cast<double>(cluster.total_in_flight()) / static_cast<double>(n);
      const double load = replicas[chosen].in_flight();
      if (load > mean + params_.balance_abs && load > params_.balance_rel * mean) {
        rule_ = Rule::Imbalance;
        chosen = least;
      }
    }
  } else if (params_.smallest_tree_fallback != 0) {
    rule_ = Rule::SmallestTree;
    chosen = 0;
    for (std::size_t i = 1; i < n; ++i)
      if (tree_.replica_tokens(i) < tree_.replica_tokens(chosen)) chosen = i;
  } else {
    rule_ = Rule::LeastLoaded;
  }
  predicted_ = static_cast<std::int64_t>(held_length(held_, chosen));
  tree_.insert(prompt, chosen);
  return chosen;
}

}  // namespace prefixroute
