// DynamoKv: NVIDIA Dynamo's KV router, re-implemented from its published
// cost function.
//
// What it models. Dynamo's router learns each worker's cache from KV events
// (blocks stored / removed) and keeps its own count of the work it has routed.
// For a prompt of L tokens and block size B it scores every replica by
//
//   overlap  = full blocks of the prompt the replica holds, consecutively from
//              the start (precise_view().match(prompt) / B, floor)
//   cost     = overlap_weight x (active_prefill_tokens + L - overlap x B) / B
//            + active_decode_blocks + (ceil(L / B) - overlap)
//
// i.e. the prefill blocks the replica would have queued plus the KV blocks it
// would hold. Lowest cost wins. With temperature T > 0 the choice is instead
// sampled from softmax(-(cost - min) / ((max - min) x T)) (uniform when every
// cost is equal), as Dynamo does to spread load.
//
// Router bookkeeping (from the lifecycle hooks, never from engine truth):
// on_routed adds the request's uncached tokens (L - overlap x B on the chosen
// replica) to that replica's active prefill tokens and ceil((L + output) / B)
// to its active decode blocks; on_first_token removes the prefill tokens,
// on_completed the decode blocks.
//
// What it simplifies. Dynamo's indexer is a global radix tree of block hashes
// fed by KV events; here the precise view is the replica's radix cache as the
// events show it (lagging by router.kv_event_lag_ms), and overlap is its token
// match floored to blocks (the same number for a block-aligned cache). Dynamo
// counts a worker's active blocks once per distinct block and grows decode
// blocks as tokens are generated; here each request reserves its prompt plus
// its full output up front and blocks shared between running requests are
// counted once per request. No per-worker limits or busy thresholds.
//
// Tie-breaks (temperature 0): lowest cost, then the smaller precise-view cache
// usage (used()), then a seeded uniform draw among the replicas still tied.
// The draws come from the policy's own Rng, seeded from the scenario seed, so
// a run is reproducible; the Rng is drawn only when a tie remains (T = 0) or
// for every request (T > 0). Softmax weights use dmath::exp and are summed in
// replica order, so native and wasm sample the same replica.
//
// Predicted-TTL side index (predicted_ttl_s > 0; off by default). Dynamo's
// --router-predicted-ttl-secs (ai-dynamo/dynamo :
// docs/components/router/router-configuration.md; the docs suggest 5 s):
// every routing decision is also fed into a local side index (APX) whose
// entries expire predicted_ttl_s after they were last fed, and each
// replica's overlap is the larger of its KV-event overlap and its side-index
// overlap. It closes the race where parallel same-prefix requests arrive
// before the first request's KV event and would otherwise all see no
// overlap and be spread. Here the side index is an ApproxRadixTree of the
// routed prompts (per-replica membership), its match floored to blocks;
// entries (tree leaves) older than the TTL are dropped at the next choose().
// It matters only when the precise view lags (router.kv_event_lag_ms > 0):
// without lag the engine's cache already holds every routed prompt.
//
// Router queue (router_queue = fcfs or spf; off by default). Dynamo's
// --router-queue-threshold / --router-queue-policy (ai-dynamo/dynamo :
// lib/kv-router/src/queue.rs, SchedulerQueue::all_workers_busy and update;
// docs/components/router/README.md): a request is held at the router while
// every replica's active prefill tokens (this router's own count, above)
// exceed queue_threshold x cluster.max_batched_tokens (Dynamo reads each
// worker's max_num_batched_tokens; 2.0 is the threshold its router docs
// give). After each first token or completion of a request this router
// routed, held requests are routed again, best first, while some replica is
// at or below the threshold: fcfs = earliest arrival first; spf = fewest
// prompt tokens first (Dynamo's wspt, (1 + priority) / input tokens, with no
// priorities). The queue itself is the simulator's (sim/router_queue.h);
// this policy supplies the rule (holds()) and the order (router_queue()).
// Simplified: one threshold for every replica (Dynamo's is per worker and
// per data-parallel rank); no priority jumps; the overlap of a held request
// is computed at release only (Dynamo also computes it at enqueue, for its
// queue metrics); under cluster.engine = fifo, cluster.max_batched_tokens is
// not an engine limit but still scales the threshold.
//
// How the lowest cost is found without scoring every replica (temperature 0,
// no side index; the result is the scan's, replica for replica). A replica
// whose precise view holds none of the prompt (overlap 0) costs
//   overlap_weight x active_prefill_tokens / B + active_decode_blocks
// (its load key) plus the same prompt term for every such replica. An idle
// replica (no active prefill tokens, no decode blocks) costs that prompt
// term alone, like every other idle one, so the idle replicas are a bit set
// kept by the hooks and the busy ones' keys a TournamentTree
// (base/tournament_tree.h; idle replicas at infinity). choose() takes the
// holders from ClusterView::match_groups: one replica set per matched length
// (cache/held_groups.h), with nothing per holder in the index's walk. In a
// group, each busy member is costed; the idle members all cost the same (the
// cost depends only on the matched length), so they are costed once, as one
// candidate. Then the idle non-holders (the idle set less the holders) as one
// group at the prompt term; then the least-key busy replica and, in replica
// order, every busy replica whose key is at most the running lowest cost
// less the prompt term (first_at_most on the tree, with a 1e-9 relative
// margin far wider than the rounding of either sum): a replica above that
// bound costs more than the lowest cost and is never visited. The tied are
// a replica set (so in replica order whatever the order they were found
// in): the candidates at the lowest cost, an idle group's members in full,
// and the idle non-holders when they cost as much; the tie-breaks above
// then read the usage of each tied replica (the usage changes with inserts,
// evictions and reservations the policy is not told of) and draw over the
// survivors in replica order. Temperature sampling and the side index need
// every replica's cost and still scan. last_costs() / last_overlap_blocks()
// rebuild every replica's figure on request, from the holder groups of the
// last choose() and each replica's load at it (a replica's load is kept when
// a hook first changes it after a choose()).
//
// Invariants: active prefill tokens and decode blocks per replica equal the
// sums over the requests routed there and not yet past first token /
// completion; replica r's idle bit is set exactly when both are 0, and
// keys_[r] is its load key when it is clear, infinity when it is set;
// predicted_cached_tokens() is overlap x B on the last choice.
// Cost (temperature 0, no side index): choose is one walk of the cluster's
// prefix index (O(L log F + D R / 64), D shared nodes on the path) plus
// O(G R / 64 + busy holders) for the G holder groups (G <= D), O(R / 64) for
// the idle non-holders, O(visited x log R) for the busy replicas at or near
// the lowest cost, and one usage read per tied replica (an idle group's
// members only when it ties at the lowest cost). The hooks are O(log R) (a
// tree update) plus O(1) expected (a hash map keyed by request id, only
// looked up, never iterated). With temperature or the side index: O(R) per
// choose plus the side index's match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/cache/held_groups.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/base/random.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// Dynamo's router queue: off, or on with its release order.
enum class DynamoRouterQueue : std::uint8_t { Off, Fcfs, ShortestPromptFirst };

/// NVIDIA Dynamo KV router: cost over KV-event block overlap and active load.
struct DynamoKvParams {
  std::uint32_t block_size = 16;
  double overlap_weight = 1.0;
  double temperature = 0.0;  ///< 0: lowest cost; > 0: softmax sampling (seeded)
  double predicted_ttl_s = 0;  ///< > 0: a side index of routing decisions with this TTL; 0 = off
  DynamoRouterQueue router_queue = DynamoRouterQueue::Off;  ///< hold requests while every replica is busy
  double queue_threshold = 2.0;  ///< busy: active prefill tokens > this x cluster.max_batched_tokens
};

class DynamoKv final : public RoutingPolicy {
 public:
  /// `seed` is the scenario seed; the policy derives its own stream from it.
  /// `max_batched_tokens`: the engines' step budget, the router queue's
  /// threshold unit (cluster.max_batched_tokens).
  DynamoKv(const DynamoKvParams& params, std::uint64_t seed, std::uint64_t max_batched_tokens = 8192);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "dynamo_kv"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }

  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;
  CacheView matched_view() const override { return CacheView::Precise; }
  std::optional<HoldOrder> router_queue() const override;
  /// Every replica's active prefill tokens above queue_threshold x max_batched_tokens.
  bool holds(const ClusterView& cluster, Tick now) const override;
  /// The router queue's threshold, in active prefill tokens.
  double queue_threshold_tokens() const { return queue_threshold_tokens_; }

  // ---- the router's bookkeeping, for tests and reports ----
  std::uint64_t active_prefill_tokens(std::size_t replica) const;
  std::uint64_t active_decode_blocks(std::size_t replica) const;
  /// Replica `replica`'s cost at the last choose(), whatever hooks ran
  /// since (0 before any choose() or past the cluster size it saw). O(holder groups) (plus the replicas whose
  /// load changed since, when it is one of them).
  double last_cost(std::size_t replica) const;
  /// Every replica's cost at the last choose(). O(R): for tests and reports.
  const std::vector<double>& last_costs() const;
  /// Replica `replica`'s overlap (full blocks) at the last choose(); O(holder groups).
  std::uint64_t overlap_of(std::size_t replica) const;
  /// Every replica's overlap (full blocks) at the last choose(). O(R): for tests.
  const std::vector<std::uint64_t>& last_overlap_blocks() const;
  /// The predicted-TTL side index (null when predicted_ttl_s is 0).
  const ApproxRadixTree* side_index() const { return side_.get(); }
  const DynamoKvParams& params() const { return params_; }

 private:
  struct Active {
    std::uint32_t replica;
    std::uint64_t prefill_tokens;
    std::uint64_t decode_blocks;
    bool prefilling;
  };

  /// A replica's load at a choose(), kept when a hook first changes it after.
  struct Snapshot {
    std::uint32_t replica;
    std::uint64_t prefill;
    std::uint64_t decode;
  };
  /// What the last choose() saw besides the loads.
  struct LastChoice {
    bool valid = false;
    bool scanned = false;  // costs_ and overlap_blocks_ hold every replica's
    std::size_t replicas = 0;
    std::uint64_t prompt_length = 0;
    std::uint64_t prompt_blocks = 0;
    std::size_t chosen = ~std::size_t{0};  // the replica chosen, and its overlap
    std::uint64_t chosen_overlap = 0;
  };
  /// A replica, or a holder group's idle members (all at one cost), at or
  /// below the running lowest cost when it was costed.
  struct Candidate {
    std::uint32_t index;  // the replica, or the group in held_
    bool idle_group;
    double cost;
  };

  void ensure_replicas(std::size_t n);
  /// The cost formula (the one place it is written).
  double cost(std::uint64_t prefill_active, std::uint64_t decode_active, std::uint64_t prompt_length,
              std::uint64_t prompt_blocks, std::uint64_t overlap) const;
  /// A replica's cost at overlap 0 less the prompt's share: its key in keys_.
  double load_key(std::size_t replica) const;
  void refresh_key(std::size_t replica);
  void note_change(std::size_t replica);
  /// Temperature sampling, the side index or a hand-built weight outside
  /// [0, inf) need every replica's cost: choose_by_scan.
  bool scans_every_replica() const;
  std::size_t choose_by_scan(const RouteRequest& request, const ClusterView& cluster, Tick now);
  /// Temperature 0 without the side index: the holders plus the replicas
  /// whose load key may reach the lowest cost.
  std::size_t choose_lowest_cost(const Prompt& prompt, const ClusterView& cluster);
  /// tied_bits_ (the lowest-cost replicas) -> least usage, then lots.
  std::size_t break_tie(const ClusterView& cluster);
  /// Drops the side index's entries fed more than the TTL before `now`.
  void expire_side(Tick now);

  DynamoKvParams params_;
  double queue_threshold_tokens_ = 0;
  Rng rng_;
  std::vector<std::uint64_t> active_prefill_;  // per replica
  std::vector<std::uint64_t> active_decode_;   // per replica
  std::unordered_map<std::uint64_t, Active> active_;  // by request id; lookups only
  // keys_[r] = load_key(r) for a busy replica, infinity for an idle one:
  // the order of the busy replicas' costs at overlap 0.
  TournamentTree<double> keys_{0, 0.0};
  // Bit r (word r / 64) set: replica r is idle (no active prefill tokens, no
  // active decode blocks), so at overlap 0 it costs cost(0, 0, ...).
  std::vector<std::uint64_t> idle_bits_;
  std::vector<std::uint64_t> idle_free_;       // scratch: idle_bits_ less held_bits_, replicas < n
  std::uint64_t chooses_ = 0;                  // choose() calls: the stamp of the marks below
  std::vector<std::uint64_t> changed_at_;      // per replica: the last choose() after which a hook changed it
  std::vector<Snapshot> before_change_;        // loads at the last choose() of the replicas changed since
  LastChoice last_;
  HeldGroups held_;                            // last choose(): the holders by matched length (choose_lowest_cost)
  std::vector<Candidate> candidates_;          // scratch: replicas at or below the running lowest cost
  mutable std::vector<double> costs_;                  // per replica: the scan's, or last_costs()'s
  mutable std::vector<std::uint64_t> overlap_blocks_;  // per replica: the scan's, or last_overlap_blocks()'s
  std::vector<std::uint64_t> tied_bits_;       // scratch: the replicas at the lowest cost
  std::vector<std::size_t> tied_;              // scratch: the survivors of the usage tie-break
  std::vector<double> weights_;                // scratch: sampling weights
  std::vector<std::size_t> matched_;           // scratch: per replica, precise_view() match
  bool overlaps_valid_ = false;  // the last choose()'s overlaps belong to the prompt on_routed will see
  std::int64_t predicted_ = -1;
  // The predicted-TTL side index, its insertions (time, the tree's clock
  // after it) in time order, and scratch for its per-replica match.
  std::unique_ptr<ApproxRadixTree> side_;
  Tick side_ttl_ = 0;
  std::deque<std::pair<Tick, std::uint64_t>> side_fed_;
  std::vector<std::size_t> side_matched_;
};

/// DynamoKv's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& dynamo_kv_policy_spec();

}  // namespace prefixroute
