// ReplicatingTtft: expected TTFT routing that copies a hot prefix from its
// busy holder to an idle replica while the copy evicts nothing, and that
// counts its own recent decisions as cached while KV events lag.
//
// What it models. ExpectedTtft (expected_ttft.h) is greedy per request: the
// replica holding a tenant's prefix keeps the tenant until its queue is longer
// than one cold prefill, so a hot prefix sits on one replica with a queue that
// hovers near that bound, and the tail of TTFT sits there too (the cache-rich
// and one-shared-prompt cells of the grid, docs/guide/routers.md). A second
// copy costs one cold prefill once and shortens that queue from then on: worth
// paying for a prefix that keeps the holder busy, when the copy evicts nothing.
// Per request:
//
//   1. cost(r) = est_wait(r) + (uncached(r) - cache_credit x cached(r)) / rate;
//      the least cost wins (ties: the longer match, fewer in flight, then the
//      rotation starting one past the previous choice). ExpectedTtft's cost,
//      queue model (est_wait: the router's own FIFO queue of the prefills it
//      dispatched, emptied when the last one queued sends its first token)
//      and default credit.
//   2. Home on a full miss: when no replica holds any of the prompt, a cost
//      tie goes to the replica its key (the first 64 tokens, as ExpectedTtft's
//      home key) last went to. ExpectedTtft's home rule.
//   3. Copy a hot prefix: when the winner holds part of the prompt, its queue
//      is longer than this request's own prefill there (est_wait > uncached /
//      rate), and a request with the same key is among those it queued there
//      and whose first token has not come (the prefix is hot on it, not only
//      the replica busy with others), the request goes instead to an idle
//      replica (an empty estimated queue and none of this router's requests
//      in flight: a copy there slows no queued prefill and no running decode)
//      with room for the prompt's uncached tokens without evicting (precise
//      view: capacity - used >= uncached); of those, the longest match, then
//      the rotation. None such:
//      rule 1 stands. Preble's exploration (preble_e2.h: a prefix whose
//      holders are loaded is placed by load on another GPU) restricted to hot
//      prefixes and to copies that evict nothing, with SGLang's cache-aware
//      router's split (sglang_cache_aware.h: by load when a worker is loaded
//      and another is not) reduced to an idle target. With full caches (scarce
//      cache, high load) no replica has room and rules 1-2 decide, as
//      ExpectedTtft.
//   4. Own decisions while events lag: with router.kv_event_lag_ms > 0 each
//      replica's cached length is the longer of the precise view's and a side
//      index's of the prompts this router routed within the lag (DynamoKv's
//      predicted-TTL side index, dynamo_kv.h, with the lag as the TTL: older
//      decisions, and evictions, are in the precise view by then).
//
// No threshold is tuned: rule 3 compares the queue with the request's own
// prefill and asks for one queued request of the prefix; the side index's TTL
// is the scenario's event lag. Parameters: cache_credit and the router's
// prefill rate, as ExpectedTtft's.
//
// Reads: the precise view (cached lengths, capacity and usage, as KV events
// give them), this router's in-flight counts, and its own dispatch and
// first-token record. No engine truth.
//
// Cost per request: one match_all (the prefix-index walk plus O(R)), an O(R)
// scan (a second one when rule 3 applies), hashing 64 tokens and O(1) map
// lookups; with a lag, an ApproxRadixTree match and insert (O(L log F + R))
// and its expiry. Hooks: O(1) map updates. Memory: one home entry per key
// seen, one queue entry per request before its first token.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

struct ReplicatingTtftParams {
  double cache_credit = 0.5;        ///< extra credit per cached token (ExpectedTtft's default)
  double prefill_tokens_per_s = 0;  ///< the router's estimate; 0 = the cluster's rate
};

class ReplicatingTtft final : public RoutingPolicy {
 public:
  /// `event_lag` (ticks): the precise view's lag; > 0 turns the side index on with that TTL.
  ReplicatingTtft(const ReplicatingTtftParams& params, double cluster_prefill_tokens_per_s, Tick event_lag);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "replicating_ttft"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;
  CacheView matched_view() const override { return CacheView::Precise; }

  /// The router's estimate of replica r's queued prefill at `now`.
  Tick estimated_wait(std::size_t r, Tick now) const;

 private:
  void ensure_size(std::size_t replicas);
  std::uint64_t prefix_key(const Prompt& prompt);
  /// Requests with this key dispatched to `replica` and not yet at their first token.
  std::uint32_t queued_with_key(std::size_t replica, std::uint64_t key) const;
  static std::uint64_t slot(std::size_t replica, std::uint64_t key) { return key * 0x9E3779B97F4A7C15ULL + replica; }
  void expire_side(Tick now);

  double cache_credit_;
  PrefillModel prefill_;
  Tick side_ttl_;
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::size_t last_choice_ = ~std::size_t{0};  // consumed by the next on_routed
  std::size_t last_choice_tokens_ = 0;
  std::size_t last_choice_matched_ = 0;
  std::vector<Tick> est_busy_until_;           // per replica
  std::vector<std::uint64_t> last_in_queue_;   // per replica: id of the last request dispatched
  std::vector<std::size_t> matched_;           // scratch: per replica, cached length
  std::vector<std::size_t> side_matched_;      // scratch: per replica, side index match
  std::vector<Token> key_tokens_;                          // scratch: the prompt's first key tokens
  std::unordered_map<std::uint64_t, std::uint32_t> queued_;   // slot(replica, key) -> requests before first token
  std::unordered_map<std::uint64_t, std::uint64_t> pending_;  // request id -> its slot
  std::unordered_map<std::uint64_t, std::size_t> home_;       // key -> replica it last went to
  std::unique_ptr<ApproxRadixTree> side_;      // prompts routed within the lag (lag > 0 only)
  std::deque<std::pair<Tick, std::uint64_t>> side_fed_;  // (routed at, side clock after the insert)
};

/// ReplicatingTtft's entry in the policy catalogue.
const PolicySpec& replicating_ttft_policy_spec();

}  // namespace prefixroute
