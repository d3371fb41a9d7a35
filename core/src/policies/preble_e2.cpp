#include "prefixroute/policies/preble_e2.h"

#include <algorithm>
#include <limits>

namespace prefixroute {

const PolicySpec& preble_e2_policy_spec() {
  static const PolicySpec spec = policy_spec<PrebleE2Params>(
      {"preble_e2", "Preble E2", "Preble: exploit a long cached match, else explore the least loaded replica.",
       {"#65a30d", "#a3e635"}},
      {param<&PrebleE2Params::window_s>("window_s", "Load window", 1e-3, 1e6, "s", "Load history window."),
       param<&PrebleE2Params::rebalance_ratio>(
           "rebalance_ratio", "Rebalance ratio", 1, 1e6, "",
           "Rebalance when the heaviest replica's load exceeds this x the lightest's.")},
      [](const PrebleE2Params& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<PrebleE2>(p, context.cluster.prefill,
                                          seconds_to_ticks(context.cluster.decode_ms_per_token / 1000.0),
                                          context.cluster.cache_tokens);
      });
  return spec;
}

PrebleE2::PrebleE2(const PrebleE2Params& params, const PrefillModel& prefill, Tick tick_per_output_token,
                   std::uint64_t cache_tokens_per_replica)
    : params_(params),
      prefill_(prefill),
      tick_per_output_token_(tick_per_output_token),
      cache_tokens_(cache_tokens_per_replica),
      window_(seconds_to_ticks(params.window_s)) {}

void PrebleE2::set_replicas(std::size_t n) {
  if (n <= prefill_load_.size()) return;
  prefill_load_.resize(n, 0);
  decode_load_.resize(n, 0);
  tree_.set_replicas(n);
  lightest_ = TournamentTree<Tick>(n, std::numeric_limits<Tick>::max());
  heaviest_ = TournamentTree<Tick>(n, std::numeric_limits<Tick>::max());
  for (std::size_t r = 0; r < n; ++r) refresh_load(r);
}

void PrebleE2::refresh_load(std::size_t replica) {
  const Tick load = prefill_load_[replica] + decode_load_[replica];
  lightest_.set(replica, load);
  heaviest_.set(replica, -load);
}

void PrebleE2::slide_window(Tick now) {
  while (!routed_.empty() && !in_window(routed_.front().at, now)) {
    const Routed& front = routed_.front();
    prefill_load_[front.replica] -= front.work;
    refresh_load(front.replica);
    routed_.pop_front();
  }
}

Tick PrebleE2::load(std::size_t replica, Tick now) const {
  if (replica >= prefill_load_.size()) return 0;
  Tick prefill = prefill_load_[replica];
  for (const Routed& r : routed_) {
    if (r.replica != replica) continue;
    if (in_window(r.at, now)) break;
    prefill -= r.work;
  }
  return prefill + decode_load_[replica];
}

std::size_t PrebleE2::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  set_replicas(n);
  slide_window(now);

  // The lightest replica (lowest index among the least loaded) and the
  // heaviest load, from the trees. The trees may cover replicas past the
  // cluster (hooks of a larger one): then scan the cluster's replicas.
  std::size_t lightest = lightest_.position_of_least();
  Tick heaviest = -heaviest_.least();
  if (lightest_.size() > n) {
    lightest = 0;
    heaviest = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (current_load(i) < current_load(lightest)) lightest = i;
      heaviest = std::max(heaviest, current_load(i));
    }
  }

  const std::size_t matched = tree_.match_held(prompt, held_);
  std::size_t chosen = lightest;
  if (static_cast<double>(heaviest) > params_.rebalance_ratio * static_cast<double>(current_load(lightest))) {
    rule_ = Rule::Rebalance;
  } else if (matched > prompt.size() - matched) {
    // The deepest node's holders are the replicas whose own match is the
    // overall one; held_ lists them in replica order, so the first least
    // loaded is the lowest index.
    rule_ = Rule::Exploit;
    std::size_t best = n;
    for (const ApproxRadixTree::Held& h : held_) {
      if (h.matched != matched || h.replica >= n) continue;
      if (best == n || current_load(h.replica) < current_load(best)) best = h.replica;
    }
    if (best < n) chosen = best;
  } else {
    rule_ = Rule::Explore;
  }

  const std::size_t believed = held_length(held_, chosen);
  predicted_ = static_cast<std::int64_t>(believed);
  const Tick work = prefill_.prefill_ticks(prompt.size() - believed);
  routed_.push_back(Routed{now, chosen, work});
  prefill_load_[chosen] += work;
  refresh_load(chosen);
  if (cache_tokens_ > 0) {
    // At most a cache's worth of the prompt: its first cache_tokens_ tokens.
    Prompt kept = prompt;
    kept.length = static_cast<std::size_t>(std::min<std::uint64_t>(prompt.size(), cache_tokens_));
    tree_.insert(kept, chosen);
  }
  tree_.trim(chosen, cache_tokens_);
  return chosen;
}

void PrebleE2::on_routed(const RoutedRequest& request) {
  set_replicas(request.replica + 1);
  const Tick work = static_cast<Tick>(request.output_tokens) * tick_per_output_token_;
  if (work == 0) return;
  decode_load_[request.replica] += work;
  refresh_load(request.replica);
  decode_of_[request.id] = work;
}

void PrebleE2::on_completed(std::uint64_t id, std::size_t replica, Tick) {
  const auto it = decode_of_.find(id);
  if (it == decode_of_.end()) return;
  decode_load_[replica] -= it->second;
  refresh_load(replica);
  decode_of_.erase(it);
}

}  // namespace prefixroute
