#include "prefixroute/policies/policies.h"

#include <algorithm>

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

// Longest cached prefix among replicas whose wait is <= wait_limit; ties to the
// least wait, then to the first in rotated order from `start`. `held` lists
// the replicas with a non-empty cached prefix (in replica order); when none of
// them is eligible, every eligible replica matches 0 and the choice is the
// first in rotated order with the least wait: least_loaded(), called only
// then (it is least_loaded_index(replicas, now, start), whose wait is within
// any limit). Sets `matched_out` to the chosen replica's cached prefix.
template <typename LeastLoaded>
std::size_t longest_prefix_index(const std::vector<PrefixIndex::Held>& held, std::span<const Replica> replicas,
                                 Tick now, Tick wait_limit, std::size_t start, const LeastLoaded& least_loaded,
                                 std::int64_t& matched_out) {
  const std::size_t n = replicas.size();
  std::size_t best = n;
  std::size_t best_match = 0;
  Tick best_wait = 0;
  const auto consider = [&](const PrefixIndex::Held& h) {
    const Tick wait = replicas[h.replica].projected_wait(now);
    if (wait > wait_limit) return;
    if (best == n || h.matched > best_match || (h.matched == best_match && wait < best_wait)) {
      best = h.replica;
      best_match = h.matched;
      best_wait = wait;
    }
  };
  // Rotated order: the holders at or after `start`, then those before it.
  const std::uint32_t from = static_cast<std::uint32_t>(start % n);
  const auto split = std::lower_bound(held.begin(), held.end(), from,
                                      [](const PrefixIndex::Held& h, std::uint32_t r) { return h.replica < r; });
  for (auto it = split; it != held.end(); ++it) consider(*it);
  for (auto it = held.begin(); it != split; ++it) consider(*it);
  if (best == n) {
    best = least_loaded();
    best_match = 0;
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
  const std::size_t chosen = least_wait(replicas, now, start_);
  start_ = chosen + 1;
  return chosen;
}

std::size_t Affinity::choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) {
  constexpr Tick kNoLimit = INT64_MAX;
  match_held(tokens, replicas, CacheView::Engine, held_);
  const std::size_t chosen = longest_prefix_index(
      held_, replicas, now, kNoLimit, start_, [&] { return least_wait(replicas, now, start_); }, predicted_);
  start_ = chosen + 1;
  return chosen;
}

std::size_t AffinityBalanced::choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) {
  // The least-wait replica first in rotated order from start_: its wait is
  // w_min, and it is the choice when no eligible replica has any of the prompt.
  const std::size_t least = least_wait(replicas, now, start_);
  const Tick min_wait = replicas[least].projected_wait(now);
  // Saturate: w_min + slack beyond the Tick range means no limit (it must not wrap).
  const Tick limit = load_slack_ > INT64_MAX - min_wait ? INT64_MAX : min_wait + load_slack_;
  match_held(tokens, replicas, CacheView::Engine, held_);
  const std::size_t chosen =
      longest_prefix_index(held_, replicas, now, limit, start_, [least] { return least; }, predicted_);
  start_ = chosen + 1;
  return chosen;
}

}  // namespace prefixroute
