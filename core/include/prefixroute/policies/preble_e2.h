// PrebleE2: the E2 (exploit / explore) global scheduler of Preble (Srivatsa
// et al., "Preble: Efficient Distributed Prompt Scheduling for LLM Serving",
// ICLR 2025), re-implemented from the paper's description.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// PrebleE2: route by how much of the prompt the cluster already holds.
///
/// Models. The scheduler keeps a global radix tree of the prompts it routed,
/// recording per node which replicas hold it (ApproxRadixTree: a router-side
/// approximation, as in SGLang's router). For a prompt of L tokens whose
/// longest match in the tree is m:
///   - Rebalance: if the heaviest replica's load exceeds rebalance_ratio x the
///     lightest's, the request goes to the lightest, whatever it shares.
///   - Exploit (m > L - m: the cached part is longer than the uncached part):
///     among the replicas holding the deepest matched node (those whose own
///     match is m), the least loaded.
///   - Explore (m <= L - m, so a tie goes here): the least loaded replica.
/// Load of a replica at `now` = prefill work of the requests routed to it in
/// the window (now - window_s, now], each charged uncached / prefill rate with
/// "uncached" as the router estimated it against that replica's share of the
/// tree (Preble's miss-rate weighting), plus decode work (output tokens x time
/// per output token) of its requests in flight (on_routed to on_completed).
/// After routing, the prompt (its first cache_tokens tokens, as the engine
/// keeps) joins the chosen replica's share, and that share is trimmed to
/// cache_tokens by LRU leaves: Preble's scheduler mirrors the engines'
/// evictions with the same rule as SGLang's router trim, here with the
/// engine's capacity and on every insert.
///
/// Simplifies. Explore takes the least loaded replica; Preble's explore cost
/// also adds the eviction cost of making room and this prompt's own prefill on
/// each candidate. Rebalancing sends the one request to the lightest replica;
/// Preble instead migrates prefix subtrees from heavy to light replicas and
/// autoscales hot prefixes by replicating them. The eviction mirror ignores
/// what the engine pins or reserves (running requests' KV), so it can believe
/// a prefix survived that the engine evicted, or the reverse. With a replica
/// idle (load 0) and another loaded, the ratio test fires, so an idle replica
/// gets the next request: the cluster warms up round-robin-like. Ties: lowest
/// index throughout; loads are integer ticks, so sums are exact.
///
/// Structure. The loads live in two TournamentTrees (base/tournament_tree.h),
/// one keyed by load (its least, lowest index first, is the lightest
/// replica) and one by minus the load (its least is the heaviest load),
/// updated whenever a load changes; the window is one queue of the routed
/// requests' prefill work in routing order (choose() is called at
/// non-decreasing times, so the expired ones are at its front); the exploit
/// rule reads the holders of the prompt's path (ApproxRadixTree::match_held).
/// So no step of a choice visits every replica.
///
/// Invariants. A request counts in the prefill load while now - routed_at <=
/// window_s; decode load counts exactly the requests routed and not completed;
/// the trees hold every replica's prefill + decode load.
/// predicted_cached_tokens() is the chosen replica's own match in the tree
/// before the prompt is inserted. Deterministic: no randomness; the
/// in-flight map is only looked up, never iterated.
///
/// Cost. choose(): O(log R) per expired window entry and for the chosen
/// replica's load, one walk of the prompt (match_held, then insert:
/// O(L log F + H)), and O(log N) per trimmed leaf. on_routed / on_completed:
/// O(log R) plus O(1) expected.
/// Preble's E2 scheduler (exploit / explore over a global radix tree).
struct PrebleE2Params {
  double window_s = 180;         ///< load history window
  double rebalance_ratio = 1.5;  ///< rebalance when heaviest > ratio x lightest
};

class PrebleE2 final : public RoutingPolicy {
 public:
  /// Which rule decided the last choice.
  enum class Rule : std::uint8_t { Exploit, Explore, Rebalance };

  /// `tick_per_output_token` 0 means no decode work (decode off).
  PrebleE2(const PrebleE2Params& params, const PrefillModel& prefill, Tick tick_per_output_token,
           std::uint64_t cache_tokens_per_replica);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "preble_e2"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;

  Rule last_rule() const { return rule_; }
  /// Load of `replica` at `now` (>= the last choose()), in ticks: windowed
  /// prefill work plus in-flight decode work.
  Tick load(std::size_t replica, Tick now) const;
  const ApproxRadixTree& tree() const { return tree_; }

 private:
  /// One routed request's prefill work, while it counts in the window.
  struct Routed {
    Tick at;
    std::size_t replica;
    Tick work;
  };

  void set_replicas(std::size_t n);
  /// Whether work routed at `at` still counts in the load at `now`.
  bool in_window(Tick at, Tick now) const { return now - at <= window_; }
  void slide_window(Tick now);
  /// The replica's prefill + decode load as of the last slide_window().
  Tick current_load(std::size_t replica) const { return lightest_[replica]; }
  /// Puts the replica's load into both trees.
  void refresh_load(std::size_t replica);

  PrebleE2Params params_;
  PrefillModel prefill_;
  Tick tick_per_output_token_;
  std::uint64_t cache_tokens_;
  Tick window_;
  ApproxRadixTree tree_;
  std::deque<Routed> routed_;                              // in routing order, while in the window
  std::vector<Tick> prefill_load_;                         // per replica: sum over its routed_
  std::vector<Tick> decode_load_;                          // per replica: in-flight decode work
  TournamentTree<Tick> lightest_{0, 0};                    // per replica: its load
  TournamentTree<Tick> heaviest_{0, 0};                    // per replica: minus its load
  std::unordered_map<std::uint64_t, Tick> decode_of_;      // request id -> its decode work
  std::vector<ApproxRadixTree::Held> held_;                // scratch: the prompt's holders
  std::int64_t predicted_ = -1;
  Rule rule_ = Rule::Explore;
};

/// PrebleE2's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& preble_e2_policy_spec();

}  // namespace prefixroute
