#include "prefixroute/policies/lmetric.h"

#include <algorithm>

namespace prefixroute {

const PolicySpec& lmetric_policy_spec() {
  static const PolicySpec spec = policy_spec<LMetricParams>(
      {"lmetric", "LMetric (AIBrix)",
       "AIBrix l-metric-local: least (pending + this request's uncached tokens) x (pending requests + 1).",
       {"#0d9488", "#2dd4bf"}},
      {param<&LMetricParams::block_size>("block_size", "Prefix block size", 1, 65536, "tokens",
                                         "Block of the router's prefix table: hits count whole blocks.")},
      [](const LMetricParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<LMetric>(p, context.seed);
      });
  return spec;
}

namespace {
// Salt of the policy's random stream ("lmetric" in ASCII).
constexpr std::uint64_t kLmetricStreamSalt = 0x6c6d6574726963ULL;
}  // namespace

LMetric::LMetric(const LMetricParams& params, std::uint64_t seed)
    : params_(params), rng_(mix_seed(seed, kLmetricStreamSalt)) {
  if (params_.block_size == 0) params_.block_size = 1;
}

std::uint64_t LMetric::hit_tokens(std::uint64_t prompt_tokens, std::uint64_t matched_tokens, std::uint32_t block) {
  const std::uint64_t blocks = prompt_tokens / block;
  if (blocks == 0) return 0;
  const std::uint64_t percent = (matched_tokens / block) * 100 / blocks;
  return prompt_tokens * percent / 100;
}

void LMetric::ensure_replicas(std::size_t n) {
  if (pending_tokens_.size() < n) {
    pending_tokens_.resize(n, 0);
    pending_requests_.resize(n, 0);
    idle_ = OrderStatisticSet(n);
    for (std::size_t r = 0; r < n; ++r)
      if (pending_requests_[r] == 0) idle_.insert(r);
  }
  table_.set_replicas(n);
}

std::uint64_t LMetric::pending_tokens(std::size_t replica) const {
  return replica < pending_tokens_.size() ? pending_tokens_[replica] : 0;
}

std::uint64_t LMetric::pending_requests(std::size_t replica) const {
  return replica < pending_requests_.size() ? pending_requests_[replica] : 0;
}

std::uint64_t LMetric::scored_new_tokens(std::size_t r) const {
  return scored_prompt_tokens_ - hit_tokens(scored_prompt_tokens_, held_length(held_, r), params_.block_size);
}

const std::vector<double>& LMetric::last_scores() const {
  scores_.resize(scored_n_);
  for (std::size_t r = 0; r < scored_n_; ++r) scores_[r] = score(r, scored_new_tokens(r));
  return scores_;
}

const std::vector<std::uint64_t>& LMetric::last_new_tokens() const {
  new_tokens_.resize(scored_n_);
  for (std::size_t r = 0; r < scored_n_; ++r) new_tokens_[r] = scored_new_tokens(r);
  return new_tokens_;
}

std::size_t LMetric::choose(const RouteRequest& request, const ClusterView& cluster, Tick) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  ensure_replicas(n);
  table_.match_held(prompt, held_);
  scored_prompt_tokens_ = prompt.size();
  scored_n_ = n;
  scored_valid_ = true;
  // The idle non-holders (all at score L) decide unless none exists, the
  // prompt is empty (every score may then be 0), or the counts cover more
  // replicas than the view (a replica beyond it is idle but no candidate).
  // More idle replicas than holders leaves an idle non-holder without
  // counting the idle holders.
  std::size_t idle_holders = 0;
  if (idle_.size() <= held_.size())
    for (const ApproxRadixTree::Held& h : held_) idle_holders += h.replica < n && pending_requests_[h.replica] == 0;
  const bool idle_decide = prompt.size() > 0 && pending_tokens_.size() == n && idle_.size() > idle_holders;
  const std::size_t chosen = idle_decide ? choose_among_idle(n) : choose_by_scan(n);
  predicted_ = static_cast<std::int64_t>(scored_prompt_tokens_ - scored_new_tokens(chosen));
  return chosen;
}

std::size_t LMetric::choose_by_scan(std::size_t n) {
  tied_.clear();
  double best = 0;
  std::size_t next_held = 0;  // held_ is in replica order
  // Most replicas share a few matched lengths (0, a tenant's prefix): the
  // hit's divisions are redone only when the length changes.
  std::size_t last_matched = 0;
  std::uint64_t fresh = scored_prompt_tokens_ - hit_tokens(scored_prompt_tokens_, 0, params_.block_size);
  for (std::size_t r = 0; r < n; ++r) {
    std::size_t matched = 0;
    while (next_held < held_.size() && held_[next_held].replica < r) ++next_held;
    if (next_held < held_.size() && held_[next_held].replica == r) matched = held_[next_held].matched;
    if (matched != last_matched) {
      last_matched = matched;
      fresh = scored_prompt_tokens_ - hit_tokens(scored_prompt_tokens_, matched, params_.block_size);
    }
    const double s = score(r, fresh);
    if (tied_.empty() || s < best) {
      best = s;
      tied_.clear();
      tied_.push_back(r);
    } else if (s == best) {
      tied_.push_back(r);
    }
  }
  return tied_.size() == 1 ? tied_.front() : tied_[static_cast<std::size_t>(rng_.below(tied_.size()))];
}

std::size_t LMetric::choose_among_idle(std::size_t n) {
  // Every idle non-holder scores L, every busy one more: the least is the
  // least of L and the holders' scores.
  const std::uint64_t length = scored_prompt_tokens_;
  double best = static_cast<double>(length);
  tied_.clear();  // the holders at the least score, in replica order
  // Holders mostly share a few matched lengths (a tenant's prefix): the hit's
  // divisions are redone only when the length changes.
  std::size_t last_matched = ~std::size_t{0};
  std::uint64_t fresh = 0;
  idle_holders_.clear();
  for (const ApproxRadixTree::Held& h : held_) {
    if (h.replica >= n) break;
    if (pending_requests_[h.replica] == 0) idle_holders_.push_back(h.replica);
    if (h.matched != last_matched) {
      last_matched = h.matched;
      fresh = length - hit_tokens(length, h.matched, params_.block_size);
    }
    const double s = score(h.replica, fresh);
    if (s < best) {
      best = s;
      tied_.clear();
    }
    if (s == best) tied_.push_back(h.replica);
  }
  const bool idle_tie = best == static_cast<double>(length);
  const std::size_t idle_others = idle_.size() - idle_holders_.size();
  const std::size_t count = tied_.size() + (idle_tie ? idle_others : 0);
  const std::size_t k = count == 1 ? 0 : static_cast<std::size_t>(rng_.below(count));
  if (!idle_tie) return tied_[k];
  // The k-th of the tied holders merged, in replica order, with the idle
  // non-holders. m-th idle non-holder: the m-th idle replica, stepping over
  // the idle holders at or before it.
  const auto idle_other = [&](std::size_t m) {
    std::size_t at = idle_.kth(m);
    for (const std::size_t h : idle_holders_) {
      if (h > at) break;
      at = idle_.kth(++m);
    }
    return at;
  };
  std::size_t idle_holders_before = 0;  // idle holders below tied_[j]
  for (std::size_t j = 0; j < tied_.size(); ++j) {
    const std::size_t t = tied_[j];
    while (idle_holders_before < idle_holders_.size() && idle_holders_[idle_holders_before] < t) ++idle_holders_before;
    const std::size_t before = j + idle_.count_below(t) - idle_holders_before;  // tied replicas below t
    if (k < before) return idle_other(k - j);
    if (k == before) return t;
  }
  return idle_other(k - tied_.size());
}

void LMetric::on_routed(const RoutedRequest& request) {
  ensure_replicas(request.replica + 1);
  // The new tokens choose() scored for this replica (the simulator calls
  // on_routed right after choose); a request routed without a choose() for
  // it is matched now.
  std::uint64_t tokens = 0;
  if (scored_valid_ && scored_prompt_tokens_ == request.prompt.size()) {
    tokens = scored_new_tokens(request.replica);
  } else {
    table_.match(request.prompt, matched_);
    tokens = request.prompt.size() - hit_tokens(request.prompt.size(), matched_[request.replica], params_.block_size);
  }
  scored_valid_ = false;
  table_.insert(request.prompt, request.replica);
  pending_tokens_[request.replica] += tokens;
  if (pending_requests_[request.replica]++ == 0) idle_.erase(request.replica);
  pending_[request.id] = Pending{static_cast<std::uint32_t>(request.replica), tokens};
}

void LMetric::on_completed(std::uint64_t id, std::size_t, Tick) {
  const auto it = pending_.find(id);
  if (it == pending_.end()) return;
  const std::uint32_t r = it->second.replica;
  pending_tokens_[r] -= it->second.tokens;
  if (--pending_requests_[r] == 0) idle_.insert(r);
  pending_.erase(it);
}

}  // namespace prefixroute
