#include "prefixroute/policies/replicating_ttft.h"

#include <algorithm>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/time.h"

namespace prefixroute {

const PolicySpec& replicating_ttft_policy_spec() {
  static const PolicySpec spec = policy_spec<ReplicatingTtftParams>(
      {"replicating_ttft", "Replicating TTFT (prefixroute)",
       "Expected TTFT, plus: a busy holder's prefix is copied to an idle replica while the copy evicts nothing.",
       {"#4d7c0f", "#bef264"}},
      {param<&ReplicatingTtftParams::cache_credit>(
           "cache_credit", "Cache credit", 0, 1e3, "",
           "Extra credit per cached token, in prefill tokens (0 = plain minimum expected TTFT)."),
       param<&ReplicatingTtftParams::prefill_tokens_per_s>(
           "prefill_tokens_per_s", "Router's prefill rate", 0, 1e9, "tokens/s",
           "The router's estimate of the prefill rate (0 = the cluster's true rate).")},
      [](const ReplicatingTtftParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<ReplicatingTtft>(p, context.cluster.prefill.tokens_per_s,
                                                 seconds_to_ticks_saturating(context.router.kv_event_lag_ms / 1e3));
      });
  return spec;
}

ReplicatingTtft::ReplicatingTtft(const ReplicatingTtftParams& params, double cluster_prefill_tokens_per_s,
                                 Tick event_lag)
    : cache_credit_(params.cache_credit),
      prefill_{params.prefill_tokens_per_s > 0 ? params.prefill_tokens_per_s : cluster_prefill_tokens_per_s},
      side_ttl_(event_lag) {
  if (side_ttl_ > 0) side_ = std::make_unique<ApproxRadixTree>();
}

Tick ReplicatingTtft::estimated_wait(std::size_t r, Tick now) const {
  if (r >= est_busy_until_.size()) return 0;
  return est_busy_until_[r] > now ? est_busy_until_[r] - now : 0;
}

void ReplicatingTtft::ensure_size(std::size_t replicas) {
  if (est_busy_until_.size() >= replicas) return;
  est_busy_until_.resize(replicas, 0);
  last_in_queue_.resize(replicas, ~std::uint64_t{0});
}

void ReplicatingTtft::expire_side(Tick now) {
  // As DynamoKv's side index: entries fed at t expire at t + TTL.
  std::uint64_t cutoff = 0;
  while (!side_fed_.empty() && side_fed_.front().first <= now - side_ttl_) {
    cutoff = side_fed_.front().second + 1;
    side_fed_.pop_front();
  }
  if (cutoff == 0) return;
  for (std::size_t r = 0; r < side_->replicas(); ++r) side_->trim_before(r, cutoff);
}

namespace {
// The prefix key: the prompt's first tokens, as ExpectedTtft's home key.
constexpr std::size_t kReplicatingKeyTokens = 64;
}  // namespace

std::uint64_t ReplicatingTtft::prefix_key(const Prompt& prompt) {
  hashing::Fnv1a64 hash;
  key_tokens_.resize(std::min(prompt.size(), kReplicatingKeyTokens));
  prompt.copy(0, key_tokens_.size(), key_tokens_.data());
  hash.feed_tokens(key_tokens_.data(), key_tokens_.size());
  return hash.value;
}

std::uint32_t ReplicatingTtft::queued_with_key(std::size_t replica, std::uint64_t key) const {
  const auto it = queued_.find(slot(replica, key));
  return it == queued_.end() ? 0 : it->second;
}

std::size_t ReplicatingTtft::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::span<const Replica> replicas = cluster.replicas();
  const std::size_t n = replicas.size();
  ensure_size(n);
  cluster.match_all(prompt, CacheView::Precise, matched_);
  // Rule 4: while events lag, this router's own recent decisions count as cached.
  if (side_) {
    expire_side(now);
    side_->set_replicas(n);
    side_->match(prompt, side_matched_);
    for (std::size_t i = 0; i < n; ++i) matched_[i] = std::max(matched_[i], side_matched_[i]);
  }
  // Rule 1: the least expected TTFT (ExpectedTtft's scan and tie order).
  std::size_t best = n;
  double best_cost = 0;
  std::size_t best_match = 0;
  std::uint32_t best_in_flight = 0;
  std::size_t i = start_ % n;
  for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    const std::size_t matched = matched_[i];
    const double cost = static_cast<double>(estimated_wait(i, now) + prefill_.prefill_ticks(prompt.size() - matched)) -
                        cache_credit_ * static_cast<double>(prefill_.prefill_ticks(matched));
    const std::uint32_t in_flight = replicas[i].in_flight();
    if (best == n || cost < best_cost ||
        (cost == best_cost && (matched > best_match || (matched == best_match && in_flight < best_in_flight)))) {
      best = i;
      best_cost = cost;
      best_match = matched;
      best_in_flight = in_flight;
    }
  }
  // Rule 2: ExpectedTtft's home on a full miss: a cost tie goes to the replica the key last went to.
  const std::uint64_t key = prefix_key(prompt);
  if (best_match == 0) {
    const auto home = home_.find(key);
    if (home != home_.end() && home->second < n && home->second != best && matched_[home->second] == 0) {
      const std::size_t h = home->second;
      const double home_cost = static_cast<double>(estimated_wait(h, now) + prefill_.prefill_ticks(prompt.size()));
      if (home_cost <= best_cost) best = h;
    }
  }
  // Rule 3: a hot prefix on a busy holder (its queue is longer than this
  // request's own prefill there, and holds another request with this key)
  // is copied to an idle replica (nothing of this router's in flight there,
  // so no queue and no decode the copy would slow) with room for it.
  if (best_match > 0 && estimated_wait(best, now) > prefill_.prefill_ticks(prompt.size() - best_match) &&
      queued_with_key(best, key) > 0) {
    std::size_t copy = n;
    std::size_t copy_match = 0;
    i = start_ % n;
    for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
      if (i == best || estimated_wait(i, now) > 0 || replicas[i].in_flight() > 0) continue;
      const RadixCache& view = replicas[i].precise_view();
      if (view.used() + (prompt.size() - matched_[i]) > view.capacity()) continue;
      if (copy == n || matched_[i] > copy_match) {  // ties: the first in the rotation
        copy = i;
        copy_match = matched_[i];
      }
    }
    if (copy != n) {
      best = copy;
      best_match = copy_match;
    }
  }
  home_[key] = best;
  predicted_ = static_cast<std::int64_t>(best_match);
  last_choice_ = best;
  last_choice_tokens_ = prompt.size();
  last_choice_matched_ = best_match;
  start_ = best + 1;
  return best;
}

void ReplicatingTtft::on_routed(const RoutedRequest& request) {
  ensure_size(request.replica + 1);
  const bool ours = request.replica == last_choice_ && request.prompt.size() == last_choice_tokens_;
  const std::size_t cached = ours ? last_choice_matched_ : 0;
  last_choice_ = ~std::size_t{0};
  Tick& busy = est_busy_until_[request.replica];
  busy = std::max(busy, request.now) + prefill_.prefill_ticks(request.prompt.size() - cached);
  last_in_queue_[request.replica] = request.id;
  const std::uint64_t at = slot(request.replica, prefix_key(request.prompt));
  ++queued_[at];
  pending_[request.id] = at;
  if (side_) {
    side_->insert(request.prompt, request.replica);
    side_fed_.emplace_back(request.now, side_->clock());
  }
}

void ReplicatingTtft::on_first_token(std::uint64_t id, std::size_t replica, Tick now) {
  // The last request queued on this replica has its first token: its queue is empty.
  if (replica < last_in_queue_.size() && last_in_queue_[replica] == id) est_busy_until_[replica] = now;
  const auto p = pending_.find(id);
  if (p == pending_.end()) return;
  const auto q = queued_.find(p->second);
  if (q != queued_.end() && --q->second == 0) queued_.erase(q);
  pending_.erase(p);
}

}  // namespace prefixroute
