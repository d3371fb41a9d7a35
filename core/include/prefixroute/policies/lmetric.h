// LMetric: AIBrix's `l-metric-local` router, re-implemented from its source
// (vllm-project/aibrix : pkg/plugins/gateway/algorithms/l_metric_local.go).
// Dynamo ships a selection policy of the same family
// (`router_selection_policy=lmetric`: adjusted prefill blocks x (decode
// blocks + 1), ai-dynamo/dynamo router docs); this is AIBrix's form.
//
// The rule. For a prompt of L tokens, every replica r scores
//
//   score(r) = (pending_tokens(r) + new_tokens(r)) x (pending_requests(r) + 1)
//
// and the lowest score wins; ties go to a seeded uniform draw among the tied
// replicas (AIBrix: rand.Intn over the tied pods; here the draw is made only
// when more than one replica ties).
//
//   new_tokens(r)   L - hit(r), with AIBrix's integer arithmetic:
//                   percent(r) = matched_blocks(r) x 100 / prompt_blocks
//                   hit(r)     = L x percent(r) / 100      (both floored)
//                   where prompt_blocks = floor(L / block_size) and
//                   matched_blocks(r) = the full blocks of the prompt's start
//                   that r holds consecutively in the router's own prefix
//                   table (0 for every replica when the prompt has no full
//                   block).
//   pending_*(r)    the router's own counts of what it dispatched to r and
//                   has not seen complete: the new tokens of each (as scored
//                   when it was routed) and their number. Added in on_routed,
//                   removed in on_completed (AIBrix: AddRequestCount /
//                   DoneRequestCount).
//
// Signals: router-local counts and the router's own prefix table (APX: what
// it routed, never told about engine evictions). No scraped metric, no KV
// event, no engine truth.
//
// The prefix table. AIBrix hashes the prompt in block_size-unit blocks
// (chained xxhash) into a shared table of block -> pods, added after each
// routing decision. Here it is an ApproxRadixTree of the routed prompts with
// per-replica membership, and a replica's matched blocks are its own longest
// routed prefix, floored to whole blocks: the same number, without hash
// collisions.
//
// Simplifications, named: AIBrix's units are its tokenizer's (by default one
// byte of text per unit, blocks of 4); here they are the trace's tokens, with
// the same default block of 4. Its table is an LRU of 200,000 blocks shared
// by all pods whose entries also expire after 20 idle minutes; here the table
// never evicts. Requests of the same session share nothing special.
//
// Not scoring every replica. A replica holding none of the prompt in the
// table scores (pending_tokens + L) x (pending_requests + 1): exactly L when
// it has nothing pending, at least 2L otherwise (L > 0). So while some such
// replica is idle, the least score is the least of L and the holders' scores
// (the holders come from one walk of the table, ApproxRadixTree::match_held),
// and the tied are the tied holders plus, when the least is L, every idle
// non-holder. The idle replicas live in an OrderStatisticSet
// (base/order_statistic_set.h), so the draw's k-th tied replica in replica
// order is found without listing them: the same draw, the same pick. An
// idle non-holder exists when more replicas are idle than hold the prompt
// (else the idle holders are counted). With no idle non-holder, or an empty
// prompt, every replica is scored.
//
// Invariants: pending_tokens(r) and pending_requests(r) are the sums over the
// requests routed to r and not yet completed; the idle set holds exactly the
// replicas with no pending request; predicted_cached_tokens() is hit(r) of
// the last choice. Deterministic: the policy's own Rng, seeded from the
// scenario seed, is drawn only on a tie.
// Cost: choose is one walk of the tree for all replicas (O(L log F + H)) plus
// O(H log R) with an idle non-holder, else O(R); on_routed inserts the prompt
// (O(L log F + P log N)); the hooks' map is keyed by request id and only
// looked up, never iterated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "prefixroute/base/order_statistic_set.h"
#include "prefixroute/base/random.h"
#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// AIBrix `l-metric-local`: (pending uncached tokens + this request's uncached
/// tokens) x (pending requests + 1), router-local counts.
struct LMetricParams {
  std::uint32_t block_size = 4;  ///< prefix-table block, in tokens (AIBrix: 4 units)
};

class LMetric final : public RoutingPolicy {
 public:
  /// `seed` is the scenario seed; the policy derives its own stream from it.
  LMetric(const LMetricParams& params, std::uint64_t seed);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "lmetric"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;

  // ---- inspection, for tests ----
  std::uint64_t pending_tokens(std::size_t replica) const;
  std::uint64_t pending_requests(std::size_t replica) const;
  /// Per-replica scores and new (uncached) tokens of the last choose(),
  /// computed on call from its prompt's holders and the pending counts (so
  /// valid until the next hook changes them). O(R).
  const std::vector<double>& last_scores() const;
  const std::vector<std::uint64_t>& last_new_tokens() const;
  const ApproxRadixTree& table() const { return table_; }

  /// AIBrix's hit estimate: L x (matched_blocks x 100 / prompt_blocks) / 100,
  /// integer arithmetic as in l_metric_local.go.
  static std::uint64_t hit_tokens(std::uint64_t prompt_tokens, std::uint64_t matched_tokens, std::uint32_t block);

 private:
  struct Pending {
    std::uint32_t replica;
    std::uint64_t tokens;
  };

  void ensure_replicas(std::size_t n);
  // new_tokens(r) for the last scored prompt: L - hit(r).
  std::uint64_t scored_new_tokens(std::size_t r) const;
  double score(std::size_t r, std::uint64_t new_tokens) const {
    return static_cast<double>(pending_tokens_[r] + new_tokens) * static_cast<double>(pending_requests_[r] + 1);
  }
  std::size_t choose_among_idle(std::size_t n);
  std::size_t choose_by_scan(std::size_t n);

  LMetricParams params_;
  Rng rng_;
  ApproxRadixTree table_;
  std::vector<std::uint64_t> pending_tokens_, pending_requests_;  // per replica
  std::unordered_map<std::uint64_t, Pending> pending_;            // by request id; lookups only
  OrderStatisticSet idle_;                                        // replicas with nothing pending
  std::vector<ApproxRadixTree::Held> held_;                       // the last scored prompt's holders
  std::vector<std::size_t> matched_;                              // scratch: per replica
  std::vector<std::size_t> tied_, idle_holders_;                  // scratch
  mutable std::vector<std::uint64_t> new_tokens_;                 // last_new_tokens()
  mutable std::vector<double> scores_;                            // last_scores()
  std::size_t scored_n_ = 0;                                      // replicas of the last choose()
  std::size_t scored_prompt_tokens_ = 0;
  bool scored_valid_ = false;  // new_tokens_ belong to the prompt on_routed will see
  std::int64_t predicted_ = -1;
};

/// LMetric's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& lmetric_policy_spec();

}  // namespace prefixroute
