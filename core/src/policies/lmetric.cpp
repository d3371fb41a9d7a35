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
constexpr std::uint64_t kStreamSalt = 0x6c6d6574726963ULL;
}  // namespace

LMetric::LMetric(const LMetricParams& params, std::uint64_t seed)
    : params_(params), rng_(mix_seed(seed, kStreamSalt)) {
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
  }
  table_.set_replicas(n);
}

std::uint64_t LMetric::pending_tokens(std::size_t replica) const {
  return replica < pending_tokens_.size() ? pending_tokens_[replica] : 0;
}

std::uint64_t LMetric::pending_requests(std::size_t replica) const {
  return replica < pending_requests_.size() ? pending_requests_[replica] : 0;
}

std::size_t LMetric::choose(const RouteRequest& request, const ClusterView& cluster, Tick) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  ensure_replicas(n);
  table_.match(prompt, matched_);
  const std::uint64_t length = prompt.size();
  new_tokens_.resize(n);
  scores_.resize(n);
  tied_.clear();
  double best = 0;
  for (std::size_t r = 0; r < n; ++r) {
    new_tokens_[r] = length - hit_tokens(length, matched_[r], params_.block_size);
    scores_[r] = static_cast<double>(pending_tokens_[r] + new_tokens_[r]) *
                 static_cast<double>(pending_requests_[r] + 1);
    if (tied_.empty() || scores_[r] < best) {
      best = scores_[r];
      tied_.clear();
      tied_.push_back(r);
    } else if (scores_[r] == best) {
      tied_.push_back(r);
    }
  }
  const std::size_t chosen =
      tied_.size() == 1 ? tied_.front() : tied_[static_cast<std::size_t>(rng_.below(tied_.size()))];
  scored_prompt_tokens_ = prompt.size();
  scored_valid_ = true;
  predicted_ = static_cast<std::int64_t>(length - new_tokens_[chosen]);
  return chosen;
}

void LMetric::on_routed(const RoutedRequest& request) {
  ensure_replicas(request.replica + 1);
  // The new tokens choose() scored for this replica (the simulator calls
  // on_routed right after choose); a request routed without a choose() for
  // it is matched now.
  std::uint64_t tokens = 0;
  if (scored_valid_ && scored_prompt_tokens_ == request.prompt.size() && request.replica < new_tokens_.size()) {
    tokens = new_tokens_[request.replica];
  } else {
    table_.match(request.prompt, matched_);
    tokens = request.prompt.size() - hit_tokens(request.prompt.size(), matched_[request.replica], params_.block_size);
  }
  scored_valid_ = false;
  table_.insert(request.prompt, request.replica);
  pending_tokens_[request.replica] += tokens;
  ++pending_requests_[request.replica];
  pending_[request.id] = Pending{static_cast<std::uint32_t>(request.replica), tokens};
}

void LMetric::on_completed(std::uint64_t id, std::size_t, Tick) {
  const auto it = pending_.find(id);
  if (it == pending_.end()) return;
  pending_tokens_[it->second.replica] -= it->second.tokens;
  --pending_requests_[it->second.replica];
  pending_.erase(it);
}

}  // namespace prefixroute
