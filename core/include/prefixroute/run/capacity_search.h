// Capacity search: per policy, the highest offered load at which the
// scenario's SLO holds (run/slo.h), and the fewest replicas that meet it at
// the scenario's own load. DistServe's goodput in its own sense (Zhong et
// al., OSDI 2024: the highest request rate at which the SLO attainment goal
// holds) is the first answer; GPUs = replicas x hardware.tp is the second,
// priced per GPU-hour when capacity.gpu_hour_price is set.
//
// The load axis (LoadAxis) is the scenario field that sets the offered load:
//   a closed client                  client.concurrency (requests outstanding; integer)
//   a poisson or constant client     client.rate_per_s (requests/s), when > 0
//   a replayed trace                 trace.time_scale: load = 1 / time_scale
//                                    (x the trace's own rate)
//   tenants, gsp, shared_prefix,     workload.arrival_rate_per_s (requests/s)
//   prefix_repetition, cumulative
//   sessions, agentic                workload.session_rate_per_s (sessions/s)
// A burst client, or a client with stages, has no single load to vary: such
// a scenario is refused (check_capacity), as is one without an SLO target.
// The requests stay the scenario's: a higher rate sends the same requests
// over a shorter span (a closed client, with more of them outstanding).
//
// The search (per policy and seed, each independent of the others):
//   1. evaluate the scenario's own value;
//   2. bracket: load doubles while the SLO holds (halves while it fails,
//      after one run at LoadAxis::min: when even that fails, no load meets
//      the SLO), replicas halve while it holds (double while it fails),
//      within the axis' range (LoadAxis::min .. max; 1 ..
//      capacity.max_replicas);
//   3. bisect the bracket until the failing load is within
//      capacity.resolution (a share) above the passing one, or 1 apart on
//      an integer axis (concurrency, replicas).
// The answer is the passing end. Each evaluation is exactly the run of the
// scenario with that value, that seed and that one policy (capacity_step),
// so any step can be reproduced with the command line. A replayed trace is
// read once at the scenario's time_scale; a step at another scale multiplies
// each arrival by the ratio of the scales, rounded to the nanosecond tick
// (within a tick of reading the file at that scale).
// With replicates = N > 1 every seed seed .. seed + N - 1 is searched on its
// own and the answers get a mean and 95 % Student-t interval
// (base/statistics.h), present when every seed found an answer.
//
// Determinism: every value tried is the scenario's own times powers of two
// and midpoints of earlier values, so the steps and answers are the same
// bytes for any number of jobs, natively and in WebAssembly.
//
// Cost: per policy and seed, 1 + bracket + bisection runs for each answer:
// about 2 + log2(1 / resolution) for the load when the answer is within a
// factor 2 of the scenario's load, and 1 + 2 log2(R) for R replicas.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "prefixroute/base/statistics.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// The scenario field a capacity search varies to change the offered load.
struct LoadAxis {
  std::string key;       ///< e.g. "client.rate_per_s"; "trace.time_scale" for a replay
  std::string unit;      ///< of the load: "requests/s", "requests outstanding", "sessions/s", "x trace rate"
  double base = 0;       ///< the scenario's own load (a replay: 1 / trace.time_scale)
  double min = 0;        ///< lowest load tried
  double max = 0;        ///< highest load tried
  bool integer = false;  ///< concurrency: whole numbers
};

/// The load axis of `scenario` (see the table above); with the reason in
/// `errors` (field and message) when its load cannot be varied.
LoadAxis load_axis(const Scenario& scenario, std::vector<FieldError>& errors);

/// Why `scenario` cannot be searched (empty when it can): no SLO target, no
/// load axis, replicates on a replayed trace (validate() refuses those).
std::vector<FieldError> check_capacity(const Scenario& scenario);

/// The scenario one evaluation runs: replicate `replicate` of `scenario`
/// (seed + replicate, one replicate) with only policy `policy`, the load
/// axis at `load` (a replay: trace.time_scale = 1 / load) and `replicas`
/// replicas.
Scenario capacity_step(const Scenario& scenario, const LoadAxis& axis, std::size_t policy, std::size_t replicate,
                       double load, std::uint32_t replicas);

/// One evaluation of a search.
struct CapacityStep {
  double value = 0;              ///< the load (axis units) or the replicas tried
  bool met = false;              ///< the SLO held
  double slo_attainment = 0;     ///< share of the requests within every target
  double goodput_per_s = 0;
  std::optional<double> ttft_ms; ///< TTFT at the SLO's percentile (with a TTFT target; absent: a failed request)
  std::optional<double> tpot_ms; ///< TPOT at the SLO's percentile (with a TPOT target)
};

/// One search's answer and the steps that found it.
struct SearchOutcome {
  bool found = false;    ///< some value tried met the SLO
  bool limited = false;  ///< load: the SLO held at LoadAxis::max, so the answer is a lower bound
  double value = 0;      ///< the highest load / fewest replicas that met the SLO (0 when not found)
  std::vector<CapacityStep> steps;  ///< in the order they ran
};

/// One seed's answers.
struct SeedCapacity {
  std::uint64_t seed = 0;
  SearchOutcome load;      ///< the highest load at the scenario's replicas
  SearchOutcome replicas;  ///< the fewest replicas at the scenario's load
};

/// One policy's answers, per seed and over the seeds.
struct PolicyCapacity {
  std::string policy;
  std::vector<SeedCapacity> seeds;  ///< in seed order
  /// Mean and 95 % interval over the seeds (half_width 0 for one seed);
  /// absent unless every seed found an answer.
  std::optional<Interval> max_load;
  std::optional<Interval> replicas;
};

/// A capacity search's results (io/capacity_json.h writes them).
struct CapacityReport {
  LoadAxis axis;
  std::uint32_t base_replicas = 0;
  std::vector<PolicyCapacity> policies;  ///< in the scenario's policy order
  bool cancelled = false;
};

/// Progress: runs finished so far, searches (policy x seed) finished, and
/// searches in all. Return false to cancel. Calls are serialised.
using CapacityProgress = std::function<bool(std::size_t runs, std::size_t searches_done, std::size_t searches)>;

/// Runs the search for every policy and seed of a scenario that
/// check_capacity accepts, on `jobs` threads (the report is the same for
/// any number), on `replay` when given (read at the scenario's time_scale),
/// else on each seed's synthetic workload (generated once per seed, and
/// again per step when the load axis is the workload's own rate). A
/// cancelled report holds the policies whose every search finished.
CapacityReport run_capacity_search(const Scenario& scenario, const ReplayedTrace* replay = nullptr, unsigned jobs = 1,
                                   const CapacityProgress& progress = {});

/// The searches of a scenario, in order: seed after seed, each seed's
/// policies in the scenario's order (search index = replicate x policies +
/// policy). A shard K/N runs the searches i with i mod N == K - 1
/// (io/capacity_shard_json.h writes and merges their documents).
std::size_t capacity_search_count(const Scenario& scenario);

/// One search a shard ran: its index in the list and its answers.
struct CapacitySearchRecord {
  std::size_t index = 0;
  SeedCapacity result;
};

/// What one shard of a capacity search ran (every search it selects, in
/// order, unless cancelled).
struct CapacityShardReport {
  Shard shard;
  std::size_t total = 0;  ///< searches of the whole list
  std::vector<CapacitySearchRecord> searches;
  bool cancelled = false;
};

/// Runs the searches shard `shard` selects, as run_capacity_search would.
CapacityShardReport run_capacity_shard(const Scenario& scenario, const Shard& shard,
                                       const ReplayedTrace* replay = nullptr, unsigned jobs = 1,
                                       const CapacityProgress& progress = {});

/// The report of every search of the list (`searches` in list order, each
/// complete): what run_capacity_search returns for them.
CapacityReport assemble_capacity(const Scenario& scenario, std::vector<SeedCapacity>&& searches);

/// Hours in a month for the monthly cost (365 x 24 / 12).
inline constexpr double kHoursPerMonth = 730;

}  // namespace prefixroute
