// AibrixLoadBalance: AIBrix's `load-balance` router, re-implemented from its
// source and design note (vllm-project/aibrix :
// pkg/plugins/gateway/algorithms/load_balance.go, load_balance.md), with the
// gateway's load-imbalance gate in front (ApplyLoadImbalanceGate, same file),
// which AIBrix applies ahead of every non-exclusive strategy.
//
// The gate. With c(r) the running requests of each replica (the router's
// in-flight count), min, max and sum over the R replicas: the cluster is
// imbalanced when max - min >= gate_min_gap AND (R <= 2 OR max > gate_factor
// x (mean of the others + 1)), the others' mean being (sum - max) / (R - 1).
// Imbalanced: only the replicas with c(r) = min remain candidates.
// Versions: this is the gate of load_balance.go and prefix_cache.go (min gap
// 8, factor 2) as of 2026. imbalance_pods_filter.go fired on max - min > 2
// alone (gate_min_gap = 3 with gate_factor = 0 reproduces it on integer
// counts), and the algorithms README states 16 and 2.
//
// The score (lower is better), per candidate:
//
//   score(r) = (c(r) + queued_weight x q(r)) / capacity(r)
//              x (1 + kv_pressure_alpha x (1 - free(r))^2)
//   score(r) = +inf when free(r) < kv_critical_free
//
//   q(r)         scraped waiting requests (read only when queued_weight > 0)
//   free(r)      1 - scraped KV usage, clamped to [0, 1]
//   capacity(r)  an EWMA of the output tokens per second the gateway saw r
//                complete (below); a replica without an estimate takes the
//                mean of those with one; with none anywhere, every capacity
//                is 1.
// The lowest score wins; the tied lowest (or, when every score is +inf, every
// candidate) go to AIBrix's tie-break: the least KV usage (least-kv-cache;
// here the scraped GPU usage, there is no CPU tier), then a seeded uniform
// draw.
//
// The capacity signal (AibrixLoad). The gateway counts each replica's
// completed output tokens (on_completed, with the output length known at
// on_routed). Every second it takes the rate over the last minute (the
// window is the time since the first sample while shorter; no rate before
// 10 s) and folds a positive rate into an EWMA with a 10 s time constant
// (alpha = 1 - e^(-1/10), computed with dmath::exp); a window with no
// completed tokens keeps the previous estimate. A sample at time T sees the
// completions before T. With decode off nothing produces output tokens, so
// every capacity is 1 and the score is the running count times the KV
// penalty, as AIBrix behaves with no estimate.
//
// Signals: the router's in-flight counts, scraped queue and KV usage
// (router.scrape_period_ms), the gateway's own completion counts.
// Simplifications, named: one gateway (AIBrix's running count is
// cross-gateway, its token counter per gateway); the rate calculator's 5 s
// snapshot throttle is not modelled; only the GPU KV usage is read.
// Cost: O(R) per choose when scanning (AibrixLoadBalance with the simulator's
// view keeps order structures instead: aibrix_load_order.h), plus O(R) per
// elapsed second of the rate sampler (skipped while no replica completed
// tokens in the last minute).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// The gateway-wide gate and the load-balance score's knobs, AIBrix defaults.
struct AibrixLoadParams {
  double queued_weight = 0;        ///< lambda: weight of scraped waiting requests
  double kv_pressure_alpha = 2.0;  ///< alpha of the KV penalty
  double kv_critical_free = 0.10;  ///< free KV fraction below which a replica scores +inf
  double gate_min_gap = 8;         ///< gate: max - min running at least this ...
  double gate_factor = 2.0;        ///< ... and max > factor x (others' mean + 1) (3+ replicas)
};

/// The state AIBrix's load-balance scorer reads besides the replicas: the
/// gateway's output-token counts and their EWMA rate. Shared by
/// aibrix_load_balance and aibrix_prefix. Not a policy.
class AibrixLoad {
 public:
  explicit AibrixLoad(const AibrixLoadParams& params) : params_(params) {}

  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  /// Replicas allowed past the gate (in replica order) into `out`; returns
  /// whether the gate fired.
  bool gate(const ClusterView& cluster, std::vector<std::size_t>& out) const;
  /// The gate's rule on the least, most and total running counts of n replicas.
  bool imbalanced(std::size_t n, std::uint64_t min, std::uint64_t max, std::uint64_t sum) const {
    bool imbalanced = n >= 2 && static_cast<double>(max - min) >= params_.gate_min_gap;
    if (imbalanced && n > 2) {
      const double others_mean = static_cast<double>(sum - max) / static_cast<double>(n - 1);
      imbalanced = static_cast<double>(max) > params_.gate_factor * (others_mean + 1);
    }
    return imbalanced;
  }
  /// Samples the rates due up to `now` (a sample at T sees completions before T).
  void advance(Tick now);
  /// score(r) for each r of `candidates` into `out` (same order); reads the
  /// capacities after advance().
  void scores(const ClusterView& cluster, const std::vector<std::size_t>& candidates, std::vector<double>& out);
  /// score(r) of `replica` (replica r). `fallback` is the fallback capacity,
  /// or negative until some call needs it (then computed and kept there).
  double score(const Replica& replica, std::size_t r, double& fallback) const;
  /// A number that changes whenever a capacity estimate may have changed.
  std::uint64_t estimate_changes() const { return samples_; }
  /// Makes room for replicas 0 .. n - 1 (their counts and estimates).
  void ensure_replicas(std::size_t n);

  void on_routed(const RoutedRequest& request);
  void on_completed(std::uint64_t id, std::size_t replica, Tick now);

  /// Replica r's capacity estimate (output tokens/s), 0 when it has none.
  double rate_estimate(std::size_t r) const { return r < ewma_.size() ? ewma_[r] : 0; }
  /// The capacity scores divide by: the estimate, else the mean of the
  /// known estimates, else 1.
  double capacity(std::size_t r) const;
  /// The mean of the estimates there are, 1 with none: O(R).
  double fallback_capacity() const;
  const AibrixLoadParams& params() const { return params_; }

 private:
  static constexpr std::size_t kWindow = 60;  // seconds of history for the rate
  static constexpr std::size_t kMinWindow = 10;

  void sample(std::uint64_t second);

  AibrixLoadParams params_;
  std::vector<std::uint64_t> completed_;              // per replica: output tokens completed
  std::vector<std::vector<std::uint64_t>> history_;   // per replica: completed_ at each second, a ring
  std::vector<double> ewma_;                          // per replica; 0 = no estimate
  std::uint64_t next_second_ = 0;                     // the next sample's second
  std::uint64_t last_change_second_ = 0;              // a completion was counted before this sample
  bool any_completion_ = false;
  std::uint64_t samples_ = 0;                         // sample() calls: estimate_changes()
  std::unordered_map<std::uint64_t, std::uint64_t> outputs_;  // request id -> output tokens; lookups only
};

class AibrixLoadOrder;

/// The policy. With the simulator's view (AibrixLoadOrder::usable) of at
/// least `order_from_replicas` replicas the choice comes from
/// AibrixLoadOrder's trees: O((1 + survivors) log R) per request plus
/// O(R log R) per scrape or sample. Smaller clusters and any other view scan
/// every replica: the same choice. The default of 16 is the measured
/// crossing (callgrind, instructions per request of simulate() at 25
/// requests/s and 3 tenants per replica, scan / trees: 4 replicas 3,178 /
/// 3,448, 8 replicas 3,424 / 3,665, 16 replicas 3,910 / 3,885).
class AibrixLoadBalance final : public RoutingPolicy {
 public:
  static constexpr std::size_t kOrderFromReplicas = 16;
  AibrixLoadBalance(const AibrixLoadParams& params, std::uint64_t seed,
                    std::size_t order_from_replicas = kOrderFromReplicas);
  ~AibrixLoadBalance() override;

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "aibrix_load_balance"; }
  void on_routed(const RoutedRequest& request) override;
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;

  // ---- inspection, for tests ----
  const AibrixLoad& load() const { return load_; }
  /// The candidates (past the gate) and their scores in the last choose()
  /// that scanned (a view AibrixLoadOrder cannot serve).
  const std::vector<std::size_t>& last_candidates() const { return candidates_; }
  const std::vector<double>& last_scores() const { return scores_; }
  bool last_gated() const { return gated_; }

 private:
  AibrixLoad load_;
  Rng rng_;
  std::unique_ptr<AibrixLoadOrder> order_;
  std::size_t order_from_replicas_;
  std::vector<std::size_t> candidates_, tied_, scratch_;
  std::vector<double> scores_;
  bool gated_ = false;
};

/// AibrixLoadBalance's entry in the policy catalogue.
const PolicySpec& aibrix_load_balance_policy_spec();

/// The parameter rows of the load-balance knobs for a Params struct `P` that
/// has AibrixLoadParams' members (AibrixLoadParams itself, AibrixPrefixParams).
template <typename P>
std::vector<ParamSpec> aibrix_load_param_rows() {
  return {param<&P::queued_weight>("queued_weight", "Queued weight", 0, 1e6, "",
                                   "Weight of the scraped waiting requests in the load (AIBrix lambda)."),
          param<&P::kv_pressure_alpha>("kv_pressure_alpha", "KV pressure", 0, 1e6, "",
                                       "Strength of the KV penalty (1 + alpha x used^2)."),
          param<&P::kv_critical_free>("kv_critical_free", "Critical free KV", 0, 1, "",
                                      "Free KV fraction below which a replica scores +inf."),
          param<&P::gate_min_gap>("gate_min_gap", "Gate: minimum gap", 0, 1e9, "requests",
                                  "Imbalance gate: max - min running requests at least this ..."),
          param<&P::gate_factor>("gate_factor", "Gate: factor", 0, 1e6, "",
                                 "... and (3+ replicas) max above this x (others' mean + 1): only the least "
                                 "loaded remain.")};
}

/// AIBrix's tie-break: the least scraped KV usage among `tied`, then a
/// uniform draw from `rng` (drawn only when several remain).
std::size_t aibrix_least_kv(const ClusterView& cluster, const std::vector<std::size_t>& tied, Rng& rng,
                            std::vector<std::size_t>& scratch);

}  // namespace prefixroute
