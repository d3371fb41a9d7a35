// AibrixPrefix: what AIBrix does with a bare `prefix-cache` routing setting,
// re-implemented from its source (vllm-project/aibrix :
// pkg/plugins/gateway/algorithms/router.go appendLoadBalanceBlend and
// multiStrategyRouter, prefix_cache.go ScoreAll, load_balance.go).
//
// AIBrix silently rewrites a bare "prefix-cache" into the blend
// "prefix-cache:5,load-balance:4" (AIBRIX_ROUTING_AUTO_BLEND_PREFIX_CACHE_*),
// and the gateway applies its load-imbalance gate first. So, per request:
//   1. Gate (AibrixLoad::gate, aibrix_load_balance.h): when the running
//      counts are imbalanced only the least-loaded replicas remain. The
//      modelled version is load_balance.go's (min gap 8, factor 2); the
//      versions with thresholds 2 and 16 are described there.
//   2. Each remaining replica gets two raw scores:
//        prefix  AIBrix's match percent: matched_blocks x 100 /
//                prompt_blocks (integer), from the router's own prefix
//                table (as LMetric's, lmetric.h: an ApproxRadixTree of the
//                routed prompts floored to block_size blocks); higher is
//                better.
//        load    the load-balance score (aibrix_load_balance.h); lower is
//                better; +inf past the KV guardrail.
//   3. Each score list is normalised to [0, 1] as normalizeScoresArray does:
//      finite values only (a +inf scores 0); with 3 or more, values further
//      than 3 median absolute deviations from the median are first clamped
//      to that bound (winsorizeClip; skipped when the MAD is 0); then
//      min-max, reversed for "lower is better"; all equal -> 1 each.
//   4. final = prefix_norm x 5/9 + load_norm x 4/9 (weights / their sum, added
//      in that order). The highest final wins; finals within 1e-9 of the
//      running best tie, and ties go to the first replica in index order
//      (AIBrix sorts tied pods by name; pods are taken to be named in
//      replica order).
//   5. The prompt is added to the chosen replica's prefix table.
//
// Signals: the router's in-flight counts, scraped queue and KV usage, the
// gateway's completion counts (load-balance's capacity) and the router's own
// prefix table. Simplifications, named: those of LMetric's table (units are
// tokens, block 4; the table never evicts) and of aibrix_load_balance;
// prefix-cache's own stddev filter and least-request fallback belong to its
// standalone Route(), which the blend does not call.
//
// Deterministic without randomness. predicted_cached_tokens() is AIBrix's
// hit estimate for the chosen replica: L x percent / 100.
// Cost, scanning (below `ranked_from_replicas` replicas, or a view
// AibrixLoadOrder::usable rejects): one walk of the tree for all replicas
// plus O(R) to gate, score and normalise (medians by selection,
// nth_element, in reused buffers; the prefix scores, mostly 0, need none
// when more than half are 0: then the median and MAD are 0 and each
// normalised score is its value over the largest).
// Otherwise choose_ranked() finds the same replica without scoring every
// one. The load scores live in order structures (AibrixLoadRanks,
// aibrix_load_ranks.h): the gate from the kept counts, the medians as k-th
// least keys (one read each), the MAD as the k-th least of two sorted runs
// (the deviations below and above the median), O(log R) reads. The prefix
// percents come from the prompt's holders (ApproxRadixTree::match_held,
// O(H)); when most candidates match nothing (the usual case) one pass over
// the holders gives the normalisation (normalise_prefix's shortcut: the
// largest percent) and lists the singles, else the percents are counted per
// value. The most common percent (the bulk: 0, or a prefix every replica
// holds) is shared by most candidates, whose final then falls as their load
// score rises, so each group of one clipped load score is represented by its
// lowest-index member (a TournamentTree query); the other candidates
// (singles) are scored one by one in replica order. The scan's running best
// with the 1e-9 tolerance takes only records (a replica scoring more than
// every lower-index one: one with a lower-index one scoring at least as much
// is never taken, and leaving it out changes nothing), and a record 1e-9 or
// more above the record before it is taken whatever came before. So only
// the singles' records are kept (one of the last record's percent and no
// less load is passed over unscored), and the finalists are the records of
// both kinds from the highest final down to the first gap of 1e-9; the scan
// over them in replica order takes the scan's replica. O(H + S + G log R)
// for S singles and G groups visited, plus the keying (O(log R) per touched
// replica and a move of the sorted keys between its old and new place,
// O(R log R) per scrape or sample of the estimates). It scans instead when
// more than half the candidates are singles or past 48 group steps
// (lockstep test: AibrixPrefix.TheOrderStructuresChooseAsTheScan).
// on_routed inserts the prompt.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/policies/aibrix_load_balance.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// AIBrix's bare `prefix-cache`: the prefix-cache:5, load-balance:4 blend.
struct AibrixPrefixParams {
  std::uint32_t block_size = 4;      ///< prefix-table block, in tokens (AIBrix: 4 units)
  double prefix_weight = 5;          ///< blend weight of prefix-cache
  double load_balance_weight = 4;    ///< blend weight of load-balance
  double queued_weight = 0;
  double kv_pressure_alpha = 2.0;
  double kv_critical_free = 0.10;
  double gate_min_gap = 8;
  double gate_factor = 2.0;

  AibrixLoadParams load() const {
    return AibrixLoadParams{queued_weight, kv_pressure_alpha, kv_critical_free, gate_min_gap, gate_factor};
  }
};

class AibrixLoadRanks;

class AibrixPrefix final : public RoutingPolicy {
 public:
  enum class Polarity : std::uint8_t { Least, Most };

  /// The cluster size from which choose_ranked() serves the simulator's view:
  /// the measured crossing (callgrind, instructions per request of simulate()
  /// at 25 requests/s and 3 tenants per replica, 20,000 requests, scan /
  /// order structures: 4 replicas 6,714 / 7,792, 8: 7,317 / 8,337, 16:
  /// 8,786 / 9,314, 20: 9,419 / 9,549, 22: 9,660 / 9,731, 24: 9,907 / 9,731,
  /// 28: 10,417 / 9,863, 32: 10,902 / 9,987).
  static constexpr std::size_t kRankedFromReplicas = 24;
  explicit AibrixPrefix(const AibrixPrefixParams& params, std::size_t ranked_from_replicas = kRankedFromReplicas);
  ~AibrixPrefix() override;

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "aibrix_prefix"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;

  /// AIBrix's normalizeScoresArray: `raw` to [0, 1] (see step 3 above).
  static void normalise(const std::vector<double>& raw, Polarity polarity, std::vector<double>& out);
  /// Buffers normalise reuses between calls.
  struct NormaliseScratch {
    std::vector<std::size_t> index;
    std::vector<double> values, work;
  };
  static void normalise(const std::vector<double>& raw, Polarity polarity, std::vector<double>& out,
                        NormaliseScratch& scratch);

  // ---- inspection, for tests (per candidate, in the order of last_candidates(),
  // from the last choose() that scanned) ----
  const std::vector<std::size_t>& last_candidates() const { return candidates_; }
  const std::vector<double>& last_prefix_scores() const { return prefix_raw_; }
  const std::vector<double>& last_load_scores() const { return load_raw_; }
  const std::vector<double>& last_final_scores() const { return final_; }
  bool last_gated() const { return gated_; }
  /// Whether the last choose() found its replica without scanning, and then
  /// the replicas it compared and their final scores (replica order).
  bool last_ranked() const { return ranked_; }
  struct Scored {  // a replica and its final score
    std::size_t replica;
    double final;
  };
  const std::vector<Scored>& last_finalists() const { return finalists_; }
  const AibrixLoad& load() const { return load_; }

 private:
  AibrixPrefixParams params_;
  AibrixLoad load_;
  ApproxRadixTree table_;
  std::vector<std::size_t> candidates_, matched_;
  std::unique_ptr<AibrixLoadRanks> ranks_;
  std::size_t ranked_from_replicas_;
  /// The scan's choice from the order structures, or kScan where it scans.
  static constexpr std::size_t kScan = ~std::size_t{0};
  std::size_t choose_ranked(const RouteRequest& request, const ClusterView& cluster);
  std::vector<ApproxRadixTree::Held> held_;
  // choose_ranked()'s records (replicas scoring more than every lower-index
  // one of their kind): the singles' in replica order, the bulk's from the
  // highest final down; then the finalists, in replica order.
  std::vector<Scored> records_, bulk_records_, finalists_;
  /// The normalised prefix score of each percent, from percent_count_ (the
  /// candidates matching each percent): normalise()'s arithmetic.
  struct PercentNorm {
    bool shortcut = false, clamp = false;
    double most = 0, lower = 0, upper = 0, min = 0, max = 0;
    double operator()(std::size_t percent) const;
  };
  PercentNorm normalise_percents(std::size_t candidates, std::size_t least, std::size_t most);
  std::vector<std::uint32_t> percent_count_;
  struct Listed {  // a candidate holding part of the prompt and its percent
    std::size_t replica;
    std::uint32_t percent;
  };
  std::vector<Listed> matching_;  // choose_ranked()'s held candidates of a nonzero percent, some passed over
  std::vector<std::uint8_t> percents_;  // per held_ entry: its percent, 255 for a non-candidate
  std::vector<std::pair<double, std::size_t>> deviations_;
  bool ranked_ = false;
  /// prefix_raw_ -> prefix_norm_: normalise's result, without its selections
  /// when most candidates match nothing.
  void normalise_prefix();

  std::vector<double> prefix_raw_, load_raw_, prefix_norm_, load_norm_, final_;
  NormaliseScratch scratch_;
  bool gated_ = false;
  std::int64_t predicted_ = -1;
};

/// AibrixPrefix's entry in the policy catalogue.
const PolicySpec& aibrix_prefix_policy_spec();

}  // namespace prefixroute
