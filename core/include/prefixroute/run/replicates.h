// Replicates: the statistics of an experiment run on several seeds, and the
// metrics of a policy's results row they are taken over.
//
// A policy's row (row_metrics) is a fixed list of named metrics, in the order
// the results JSON writes them; a metric a run does not have (a policy that
// predicts nothing, TPOT when no request generated two tokens, session figures
// without sessions) is absent. With replicates = N > 1 every metric a seed has
// gets its mean and 95 % Student-t interval over the seeds that have it, and
// every pair of policies whose intervals overlap on a headline metric is
// listed as not distinguishable (base/statistics.h has the rule).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/base/statistics.h"
#include "prefixroute/run/experiment.h"

namespace prefixroute {

/// One metric of a row: its results-JSON key and value; `integer` metrics are
/// counts (written as JSON integers for one seed).
struct RowMetric {
  const char* key;
  std::optional<double> value;  ///< absent: the run has no such figure
  bool integer = false;
};

/// The metrics of a policy's results row for one run, in the row's key order:
/// the TTFT percentiles, hit rates and token counts; the predicted hit rates;
/// end-to-end times when the run decodes; the batched engine's figures; the
/// session figures. `ideal_hit_rate` gives hit_share_of_ideal. O(1).
std::vector<RowMetric> row_metrics(const RunSummary& summary, double ideal_hit_rate, bool decode, bool batched);

/// Whether a one-seed row writes the absent metric `key` as null (the others
/// it leaves out): predicted_hit_rate and the TPOT percentiles.
bool null_when_absent(std::string_view key);

/// The per-replica figures of a results row (its "replicas" entries), in key
/// order; `span_s` (RunSummary::span_s) gives the batched engine's output rate.
std::vector<RowMetric> replica_metrics(const ReplicaTotals& replica, bool batched, double span_s);

/// One metric over the seeds.
struct ReplicatedMetric {
  std::string key;              ///< the results JSON key, e.g. "mean_ttft_ms"
  std::vector<double> per_seed; ///< in seed order (only seeds that have it, for predicted_*)
  Interval interval;            ///< mean and 95 % half-width over per_seed
};

struct PolicyReplicates {
  std::string policy;
  std::vector<ReplicatedMetric> metrics;  ///< in the results row's key order
  const ReplicatedMetric* find(std::string_view key) const;
};

/// Replicate statistics of a report with replicates > 1, as the results
/// JSON and the command line's table show them.
struct ReplicateStats {
  std::size_t count = 0;
  double t = 0;                                  ///< t_{0.975, count-1}
  std::vector<PolicyReplicates> policies;        ///< scenario order
  std::vector<ReplicatedMetric> ideal, pooled;   ///< capacity_tokens, hit_rate, cached_tokens, prefill_tokens
  ReplicatedMetric prompt_tokens;                ///< of the seeds' workloads
  struct Pair {
    std::string metric, a, b;  ///< a before b in scenario order
  };
  std::vector<Pair> not_distinguishable;         ///< headline metric by metric, pairs in order
};

/// The metrics two policies are compared on (the table's headline columns).
inline constexpr std::string_view kHeadlineMetrics[] = {"mean_ttft_ms", "p99_ttft_ms", "hit_rate",
                                                         "prefill_tokens"};

/// The mean and interval of `values` under `key`.
ReplicatedMetric replicated(std::string key, std::vector<double> values);

/// The statistics of `report.seeds` (empty stats when it has none). O(seeds x policies^2).
ReplicateStats replicate_stats(const ExperimentReport& report);

}  // namespace prefixroute
