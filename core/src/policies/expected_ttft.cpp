#include "prefixroute/policies/expected_ttft.h"

#include <cmath>
#include <limits>

#include <algorithm>

#include "prefixroute/base/hashing.h"

namespace prefixroute {

const PolicySpec& expected_ttft_policy_spec() {
  static const PolicySpec spec = policy_spec<ExpectedTtftParams>(
      {"expected_ttft", "Expected TTFT (prefixroute)",
       "The least expected time to first token: queue estimate plus uncached prefill, with a credit for cache.",
       {"#0284c7", "#38bdf8"}},
      {param<&ExpectedTtftParams::cache_credit>(
           "cache_credit", "Cache credit", 0, 1e3, "",
           "Extra credit per cached token, in prefill tokens (0 = plain minimum expected TTFT)."),
       param<&ExpectedTtftParams::prefill_tokens_per_s>(
           "prefill_tokens_per_s", "Router's prefill rate", 0, 1e9, "tokens/s",
           "The router's estimate of the prefill rate (0 = the cluster's true rate)."),
       param<&ExpectedTtftParams::home_key_tokens>(
           "home_key_tokens", "Home key length", 0, 1e6, "tokens",
           "On a full miss, a cost tie goes to the replica that last took a prompt with the same first this many "
           "tokens (its home); 0 = no homes.")},
      [](const ExpectedTtftParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<ExpectedTtft>(p, context.cluster.prefill.tokens_per_s);
      });
  return spec;
}

ExpectedTtft::ExpectedTtft(const ExpectedTtftParams& params, double cluster_prefill_tokens_per_s)
    : cache_credit_(params.cache_credit),
      prefill_{params.prefill_tokens_per_s > 0 ? params.prefill_tokens_per_s : cluster_prefill_tokens_per_s},
      home_key_tokens_(params.home_key_tokens) {}

std::uint64_t ExpectedTtft::home_key(const Prompt& prompt) {
  hashing::Fnv1a64 hash;
  key_tokens_.resize(std::min<std::size_t>(prompt.size(), home_key_tokens_));
  prompt.copy(0, key_tokens_.size(), key_tokens_.data());
  hash.feed_tokens(key_tokens_.data(), key_tokens_.size());
  return hash.value;
}

Tick ExpectedTtft::estimated_wait(std::size_t r, Tick now) const {
  if (r >= est_busy_until_.size()) return 0;
  return est_busy_until_[r] > now ? est_busy_until_[r] - now : 0;
}

std::size_t ExpectedTtft::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  ensure_size(n);
  // The scan's rule, found either way: the least (cost, -matched, in-flight,
  // position in the rotated order starting at start_).
  const Choice found = busy_until_.size() == n && std::isfinite(cache_credit_) && prefill_.prefill_ticks(0) == 0
                           ? choose_by_holders(prompt, cluster, now)
                           : choose_by_scan(prompt, cluster, now);
  std::size_t best = found.replica;
  if (home_key_tokens_ > 0 && !prompt.empty()) {
    const std::uint64_t key = home_key(prompt);
    const auto home = home_.find(key);
    // A full miss: every replica costs a full prefill, so a home that ties
    // with the cheapest on cost (its wait is as short) takes the request.
    if (found.matched == 0 && home != home_.end() && home->second < n && home->second != best &&
        held_match(home->second) == 0) {
      const std::size_t h = home->second;
      const double home_cost = static_cast<double>(estimated_wait(h, now) + prefill_.prefill_ticks(prompt.size()));
      if (home_cost <= found.cost) best = h;
    }
    home_[key] = best;
  }
  predicted_ = static_cast<std::int64_t>(found.matched);
  last_choice_ = best;
  last_choice_tokens_ = prompt.size();
  start_ = best + 1;
  return best;
}

std::size_t ExpectedTtft::held_match(std::size_t replica) const {
  if (scanned_) return matched_[replica];
  return held_length(held_, replica);
}

ExpectedTtft::Choice ExpectedTtft::choose_by_scan(const Prompt& prompt, const ClusterView& cluster, Tick now) {
  scanned_ = true;
  const std::span<const Replica> replicas = cluster.replicas();
  const std::size_t n = replicas.size();
  std::size_t best = n;
  double best_cost = 0;
  std::size_t best_match = 0;
  std::uint32_t best_in_flight = 0;
  cluster.match_all(prompt, CacheView::Precise, matched_);
  // Most replicas share a few matched lengths (0, the tenant prefix): the two
  // prefill times (a division and a rounding each) are recomputed only when
  // the length changes from the previous replica's.
  std::size_t last_matched = ~std::size_t{0};
  Tick uncached_ticks = 0, cached_ticks = 0;
  std::size_t i = start_ % n;
  for (std::size_t k = 0; k < n; ++k, i = i + 1 == n ? 0 : i + 1) {
    const std::size_t matched = matched_[i];
    if (matched != last_matched) {
      last_matched = matched;
      uncached_ticks = prefill_.prefill_ticks(prompt.size() - matched);
      cached_ticks = prefill_.prefill_ticks(matched);
    }
    // In ticks, with the engine's own rounding of prefill time, so that with
    // an exact view and rate the estimate is the engine's wait to the tick.
    const double cost = static_cast<double>(estimated_wait(i, now) + uncached_ticks) -
                        cache_credit_ * static_cast<double>(cached_ticks);
    // Most replicas lose on cost alone: read the in-flight count (a visit to
    // the replica) only for those that may win or tie.
    if (best != n && (cost > best_cost || (cost == best_cost && matched < best_match))) continue;
    const std::uint32_t in_flight = replicas[i].in_flight();
    const bool better = best == n || cost < best_cost ||
                        (cost == best_cost && (matched > best_match ||
                                               (matched == best_match && in_flight < best_in_flight)));
    if (better) {
      best = i;
      best_cost = cost;
      best_match = matched;
      best_in_flight = in_flight;
    }
  }
  return Choice{best, best_cost, best_match};
}

ExpectedTtft::Choice ExpectedTtft::choose_by_holders(const Prompt& prompt, const ClusterView& cluster, Tick now) {
  scanned_ = false;
  const std::size_t n = cluster.size();
  const std::size_t start = start_ % n;
  const auto rotated = [&](std::size_t r) { return r >= start ? r - start : r + n - start; };
  // The holders, each scored as the scan scores it.
  cluster.match_held(prompt, CacheView::Precise, held_);
  Choice best{n, 0, 0};
  std::uint32_t best_in_flight = 0;
  // Holders mostly share a few matched lengths (a tenant's prefix): the two
  // prefill times are recomputed only when the length changes, as in the scan.
  std::size_t last_matched = ~std::size_t{0};
  Tick uncached_ticks = 0, cached_ticks = 0;
  for (const PrefixIndex::Held& h : held_) {
    if (h.matched != last_matched) {
      last_matched = h.matched;
      uncached_ticks = prefill_.prefill_ticks(prompt.size() - h.matched);
      cached_ticks = prefill_.prefill_ticks(h.matched);
    }
    const double cost = static_cast<double>(estimated_wait(h.replica, now) + uncached_ticks) -
                        cache_credit_ * static_cast<double>(cached_ticks);
    const std::uint32_t in_flight = cluster[h.replica].in_flight();
    const bool better =
        best.replica == n || cost < best.cost ||
        (cost == best.cost &&
         (h.matched > best.matched ||
          (h.matched == best.matched &&
           (in_flight < best_in_flight || (in_flight == best_in_flight && rotated(h.replica) < rotated(best.replica))))));
    if (better) {
      best = Choice{h.replica, cost, h.matched};
      best_in_flight = in_flight;
    }
  }
  if (held_.size() == n) return best;
  const Tick whole = prefill_.prefill_ticks(prompt.size());
  // No other replica costs less than the least estimated busy-until of all
  // (holders included), clamped at now, plus the whole prefill; a holder at
  // most that cheap keeps the choice (a tie goes to its longer match), and
  // the holders need not be masked. Rounding to double is monotone, so this
  // holds for the scan's costs too.
  if (best.replica != n &&
      static_cast<double>(std::max(now, busy_until_.least()) - now + whole) >= best.cost)
    return best;
  // Every other replica matches nothing and costs its wait plus the whole
  // prompt's prefill (cached_ticks 0): the least estimated busy-until among
  // them, clamped at now, gives the least such cost, and it is exact (the sum
  // is an integer below 2^53, so a longer wait costs strictly more). With the
  // holders masked in the tree, those at that cost are the replicas whose
  // busy-until is at most max(now, least).
  for (const PrefixIndex::Held& h : held_) busy_until_.set(h.replica, std::numeric_limits<Tick>::max());
  const Tick bound = std::max(now, busy_until_.least());
  const Tick sum = bound - now + whole;
  Choice other{n, static_cast<double>(sum), 0};
  // A holder at the same cost wins on its longer match.
  if (sum < (Tick{1} << 53) && (best.replica == n || other.cost < best.cost)) {
    // The first in the rotated order with the fewest in flight; none has fewer than 0.
    std::uint32_t fewest = 0;
    const auto visit = [&](std::size_t from, std::size_t to) {
      for (std::size_t i = busy_until_.first_at_most(from, bound); i < to; i = busy_until_.first_at_most(i + 1, bound)) {
        const std::uint32_t in_flight = cluster[i].in_flight();
        if (other.replica == n || in_flight < fewest) {
          other.replica = i;
          fewest = in_flight;
          if (fewest == 0) return;
        }
      }
    };
    visit(start, n);
    if (other.replica == n || fewest > 0) visit(0, start);
  } else if (sum >= (Tick{1} << 53)) {
    for (const PrefixIndex::Held& h : held_) busy_until_.set(h.replica, est_busy_until_[h.replica]);
    return choose_by_scan(prompt, cluster, now);
  }
  for (const PrefixIndex::Held& h : held_) busy_until_.set(h.replica, est_busy_until_[h.replica]);
  return other.replica != n ? other : best;
}

void ExpectedTtft::ensure_size(std::size_t replicas) {
  if (est_busy_until_.size() >= replicas) return;
  est_busy_until_.resize(replicas, 0);
  last_in_queue_.resize(replicas, ~std::uint64_t{0});
  busy_until_ = TournamentTree<Tick>(replicas, std::numeric_limits<Tick>::max());
  for (std::size_t r = 0; r < replicas; ++r) busy_until_.set(r, est_busy_until_[r]);
}

void ExpectedTtft::on_routed(const RoutedRequest& request) {
  // The estimated prefill of what was just dispatched joins that replica's queue.
  ensure_size(request.replica + 1);
  const bool ours = request.replica == last_choice_ && request.prompt.size() == last_choice_tokens_;
  const std::uint64_t cached = ours && predicted_ > 0 ? static_cast<std::uint64_t>(predicted_) : 0;
  last_choice_ = ~std::size_t{0};
  const Tick service = prefill_.prefill_ticks(request.prompt.size() - cached);
  Tick& busy = est_busy_until_[request.replica];
  busy = std::max(busy, request.now) + service;
  busy_until_.set(request.replica, busy);
  last_in_queue_[request.replica] = request.id;
}

void ExpectedTtft::on_first_token(std::uint64_t id, std::size_t replica, Tick now) {
  // The last request dispatched to this replica has finished its prefill: the
  // router now knows the queue is empty, whatever its estimate said.
  if (replica < last_in_queue_.size() && last_in_queue_[replica] == id) {
    est_busy_until_[replica] = now;
    busy_until_.set(replica, now);
  }
}

}  // namespace prefixroute
