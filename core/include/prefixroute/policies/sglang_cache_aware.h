// SglangCacheAware: the cache-aware policy of SGLang's router (sgl-router),
// re-implemented from its published algorithm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// SglangCacheAware: what SGLang's router does in cache-aware mode.
///
/// Models. The router sees only its own in-flight counters and what it routed:
///   1. Imbalance gate. With max and min the largest and smallest in-flight
///      counts, if max - min > balance_abs AND max > balance_rel x min, the
///      request goes to the least loaded replica (fewest in flight).
///   2. Otherwise the prompt is matched against the router's approximate radix
///      tree (ApproxRadixTree: one tree of routed prompts, per-replica
///      membership and recency). If matched / prompt length > cache_threshold
///      (strictly), the request goes to a replica holding the deepest matched
///      node.
///   3. Otherwise to the least loaded replica, or, with smallest_tree_fallback
///      = 1 (the router's older rule), to the replica whose share of the tree
///      holds the fewest tokens.
///   With gate = per_request the fleet test of 1. is replaced by a test of
///   the replica 2. chose: with mean the fleet's mean in-flight count, a
///   cache-match choice whose in-flight count exceeds mean + balance_abs AND
///   balance_rel x mean goes to the least loaded replica instead (the
///   per-request candidate gate of smg-project/smg :
///   model_gateway/src/policies/mod.rs CacheAwareConfig, which there spills
///   to the expected-wait pick; here to the least in flight, as the fleet
///   gate does). The fleet gate turns affinity off for every request when
///   one replica is hot (vllm-project/router#238); this one only for
///   requests whose chosen replica is hot.
///   Whatever the rule, the prompt is then inserted into the chosen replica's
///   share (SGLang updates the tree on the imbalanced path too).
///   Every eviction_interval_s the router trims each replica's share to
///   max_tree_tokens, least recently routed leaves first.
///
/// Simplifies. Prompts are token ids, not characters (SGLang's tree is over
/// text, so its ratios count characters). Ties are deterministic where SGLang's
/// are arbitrary (its maps' iteration order): among the deepest node's holders
/// the fewest in flight, then the lowest index; least loaded and smallest tree
/// break ties by lowest index. The trim runs on simulated time, checked at each
/// routing decision (SGLang's runs on a wall-clock background thread): the
/// first choose() at or after each interval boundary trims before routing, and
/// boundaries that passed without an arrival are not trimmed twice. Recency is
/// a logical clock per routed prompt, not a timestamp.
///
/// Invariants. The tree learns only from this policy's own decisions: an
/// engine's eviction is invisible to it, so what it predicts can exceed the
/// engine's actual hit. predicted_cached_tokens() is the chosen replica's own
/// match in the tree before the prompt is inserted. Deterministic: no
/// randomness; choose() alone updates the state (trim, insert).
///
/// Cost. choose(): the gate reads the fewest, most and total in flight,
/// which the simulator keeps (ClusterView::least_in_flight, most_in_flight,
/// total_in_flight: O(log R); O(R) scans in a view of replicas alone), plus
/// one walk of the prompt for all replicas (ApproxRadixTree::match_held,
/// then insert): O(L log F + H) for L tokens and H holders; the smallest-tree
/// fallback scans the replicas' shares (O(R)); a trim is O(log N) per removed
/// leaf.
/// SGLang router, cache-aware mode (sgl-router): imbalance gate on the
/// router's in-flight counts, else an approximate radix tree of routed prompts.
/// Which load test disables cache routing: the fleet's spread (max - min, as
/// sgl-router ships it) or the chosen replica against the fleet mean.
enum class SglangGate : std::uint8_t { Fleet, PerRequest };

struct SglangCacheAwareParams {
  double balance_abs = 64;              ///< gate: max - min in-flight above this ...
  double balance_rel = 1.5;             ///< ... and max above this x min -> least loaded
  double cache_threshold = 0.3;         ///< matched / prompt above this -> cache hit routing
  double eviction_interval_s = 120;     ///< how often the router trims its tree
  std::uint64_t max_tree_tokens = 1'000'000;  ///< per-replica tree size after a trim
  std::uint32_t smallest_tree_fallback = 0;   ///< 1: on a miss pick the smallest tree (older rule)
  SglangGate gate = SglangGate::Fleet;         ///< fleet: max - min (today); per_request: chosen vs mean
};

class SglangCacheAware final : public RoutingPolicy {
 public:
  /// Which rule decided the last choice.
  enum class Rule : std::uint8_t { Imbalance, CacheMatch, LeastLoaded, SmallestTree };

  explicit SglangCacheAware(const SglangCacheAwareParams& params);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "sglang_cache_aware"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  bool reads_in_flight_order() const override { return true; }

  Rule last_rule() const { return rule_; }
  /// The router's approximate tree (for tests and reports).
  const ApproxRadixTree& tree() const { return tree_; }
  /// Simulated time at or after which the next choose() trims the tree.
  Tick next_trim() const { return next_trim_; }
  const SglangCacheAwareParams& params() const { return params_; }

 private:
  SglangCacheAwareParams params_;
  Tick interval_;
  Tick next_trim_;
  ApproxRadixTree tree_;
  std::vector<ApproxRadixTree::Held> held_;  // scratch: the current prompt's holders
  std::int64_t predicted_ = -1;
  Rule rule_ = Rule::LeastLoaded;
};

/// SglangCacheAware's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& sglang_cache_aware_policy_spec();

}  // namespace prefixroute
