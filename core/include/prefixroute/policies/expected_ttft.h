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
// Home on a full miss: when no replica holds any of the prompt, every replica
// costs a full prefill and the cheapest wins on wait alone, so a tenant whose
// prefix was evicted everywhere would land wherever the queue is shortest,
// and tenants would drift between replicas with every eviction. Instead the
// policy remembers, per key (a hash of the prompt's first `home_key_tokens`
// tokens), the replica it last sent that key to, and on a full miss breaks a
// cost tie in favour of that home. Homes stay put, so each replica keeps a
// stable set of tenants (what SGLang's router gets from a tree that is never
// told about evictions). Measured on the presets: fewer prefill tokens on all
// three, and a lower p99 on two (docs/guide/routers.md). home_key_tokens = 0 turns it off.
//
// How the cheapest replica is found without scoring every replica (the
// result is the scan's: the least (cost, -cached, in-flight, position in the
// rotated order)). The holders of the prompt (ClusterView::match_held) are
// scored one by one. Every other replica caches none of it and costs its
// estimated wait plus the whole prompt's prefill, an exact integer, so the
// cheapest of them are those with the least estimated busy-until, clamped at
// now: a TournamentTree (base/tournament_tree.h) of est_busy_until, updated
// by the hooks, with the holders masked for the query, lists them in rotated
// order (first_at_most), and only they have their in-flight count read,
// until one with none in flight; none is visited when a holder costs as
// little. No replica costs less than the least busy-until of all (the
// tree's root, holders included) plus the whole prefill, so when the
// cheapest holder costs at most that, it is the choice and the holders are
// not masked (most requests: the prompt's holders are usually cheapest).
// A cluster of another size than the hooks saw, a non-finite credit or a
// wait beyond 2^53 ticks falls back to the scan.
//
// Cost: one walk of the cluster's prefix index (O(L log F + D R / 64 +
// holders)), O(holders) when a holder beats the least wait, else
// O(holders x log R) and O(log R) per replica at the least wait visited;
// plus hashing home_key_tokens tokens and one map lookup; the home map holds
// one entry per distinct key seen. The hooks: O(log R).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

struct ExpectedTtftParams {
  double cache_credit = 0.5;
  double prefill_tokens_per_s = 0;  ///< the router's estimate; 0 = the cluster's rate
  std::uint32_t home_key_tokens = 64;  ///< key length of the full-miss home; 0 = no homes
};

class ExpectedTtft final : public RoutingPolicy {
 public:
  ExpectedTtft(const ExpectedTtftParams& params, double cluster_prefill_tokens_per_s);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "expected_ttft"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;
  CacheView matched_view() const override { return CacheView::Precise; }

  /// The router's estimate of replica r's queued prefill at `now`.
  Tick estimated_wait(std::size_t r, Tick now) const;

 private:
  /// A choice before the home rule: the replica, its cost and cached length.
  struct Choice {
    std::size_t replica;
    double cost;
    std::size_t matched;
  };
  void ensure_size(std::size_t replicas);
  Choice choose_by_scan(const Prompt& prompt, const ClusterView& cluster, Tick now);
  Choice choose_by_holders(const Prompt& prompt, const ClusterView& cluster, Tick now);
  /// The last choice's view of `replica`'s cached prefix.
  std::size_t held_match(std::size_t replica) const;
  /// The home key of a prompt: FNV-1a over its first home_key_tokens_ tokens.
  std::uint64_t home_key(const Prompt& prompt);

  double cache_credit_;
  PrefillModel prefill_;  // the router's belief about the engines' prefill rate
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::size_t last_choice_ = ~std::size_t{0};  // consumed by the next on_routed
  std::size_t last_choice_tokens_ = 0;
  std::vector<Tick> est_busy_until_;      // per replica
  std::vector<std::uint64_t> last_in_queue_;  // per replica: id of the last request dispatched
  TournamentTree<Tick> busy_until_{0, 0};    // per replica: est_busy_until_
  std::vector<std::size_t> matched_;          // scratch: per replica, precise_view() match (scan)
  std::vector<PrefixIndex::Held> held_;       // scratch: the prompt's holders (choose_by_holders)
  bool scanned_ = false;                      // which of the two the last choice filled
  std::uint32_t home_key_tokens_;
  std::vector<Token> key_tokens_;  // scratch: the prompt's first home_key_tokens_ tokens
  std::unordered_map<std::uint64_t, std::size_t> home_;  // key -> replica it last went to (lookups only)
};

/// ExpectedTtft's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& expected_ttft_policy_spec();

}  // namespace prefixroute
