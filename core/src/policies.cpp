#include "prefixroute/policies.h"

namespace prefixroute {

std::size_t least_loaded_index(std::span<const Replica> replicas, Tick now, std::size_t start) {
  const std::size_t n = replicas.size();
  std::size_t best = start % n;
  Tick best_wait = replicas[best].projected_wait(now);
  // Scan the rest in rotated order; wrap by compare, not by a division per replica.
  std::size_t i = best;
  for (std::size_t k = 1; k < n; ++k) {
    if (++i == n) i = 0;
    const Tick wait = replicas[i].projected_wait(now);
    if (wait < best_wait) {
      best = i;
      best_wait = wait;
    }
  }
  return best;
}

namespace {

// Longest cached prefix (matched[i] for replica i) among replicas whose wait is
// <= wait_limit; ties to the least wait, then to the first in rotated order
// from `start`. Sets `matched_out` to the chosen replica's cached prefix.
std::size_t longest_prefix_index(const std::vector<std::size_t>& matched, std::span<const Replica> replicas,
                                 Tick now, Tick wait_limit, std::size_t start, std::int64_t& matched_out) {
  const std::size_t n = replicas.size();
  std::size_t best = n;
  std::size_t best_match = 0;
  Tick best_wait = 0;
  std::size_t i = start % n;
  for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    const Tick wait = replicas[i].projected_wait(now);
    if (wait > wait_limit) continue;
    if (best == n || matched[i] > best_match || (matched[i] == best_match && wait < best_wait)) {
      best = i;
      best_match = matched[i];
      best_wait = wait;
    }
  }
  matched_out = static_cast<std::int64_t>(best_match);
  return best;
}

}  // namespace

std::size_t RoundRobin::choose(TokenSpan, std::span<const Replica> replicas, Tick) {
  const std::size_t chosen = next_ % replicas.size();
  next_ = chosen + 1;
  return chosen;
}

std::size_t LeastLoaded::choose(TokenSpan, std::span<const Replica> replicas, Tick now) {
  const std::size_t chosen = least_loaded_index(replicas, now, start_);
  start_ = chosen + 1;
  return chosen;
}

std::size_t Affinity::choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) {
  constexpr Tick kNoLimit = INT64_MAX;
  match_all(tokens, replicas, CacheView::Engine, matched_);
  const std::size_t chosen = longest_prefix_index(matched_, replicas, now, kNoLimit, start_, predicted_);
  start_ = chosen + 1;
  return chosen;
}

std::size_t AffinityBalanced::choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) {
  const Tick min_wait = replicas[least_loaded_index(replicas, now)].projected_wait(now);
  // Saturate: w_min + slack beyond the Tick range means no limit (it must not wrap).
  const Tick limit = load_slack_ > INT64_MAX - min_wait ? INT64_MAX : min_wait + load_slack_;
  match_all(tokens, replicas, CacheView::Engine, matched_);
  const std::size_t chosen = longest_prefix_index(matched_, replicas, now, limit, start_, predicted_);
  start_ = chosen + 1;
  return chosen;
}

}  // namespace prefixroute
