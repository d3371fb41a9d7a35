// Sweep: run one scenario many times, varying one parameter, to see each
// policy's trade-off between cache reuse (hit rate) and tail latency (p99 TTFT).
//
// A sweep is a dotted scenario key and a list of values ("v1,v2,v3") or a
// range ("from:to:steps", evenly spaced, both ends included). Each value is
// applied as an override on top of the base scenario and validated like any
// other, so a bad value names its field. Its document: io/sweep_json.h.
//
// A sweep's runs are its points' run lists one after another (run_list.h);
// run_sweep executes them on `jobs` threads, and the report is the same
// whatever `jobs` (and when merged from shards: io/shard_json.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

struct SweepSpec {
  std::string key;
  std::vector<std::string> values;  ///< override texts, in order
};

/// Parses "key=v1,v2,..." or "key=from:to:steps" (2 <= steps <= 200) into
/// the values to run. A range over an integer field (scenario_fields()) takes
/// its evenly spaced values rounded half up, without repeats. Returns false
/// with a message naming what is wrong.
bool parse_sweep(std::string_view text, SweepSpec& spec, std::string& error);

struct SweepPoint {
  std::string value;
  Scenario scenario;
  ExperimentReport report;
};

struct SweepReport {
  std::vector<SweepPoint> points;
  std::vector<FieldError> errors;  ///< non-empty: nothing ran
  bool cancelled = false;
};

/// The scenario of every sweep value (document + overrides + key=value),
/// each validated; on any error `errors` lists them all (each naming its
/// value) and `points` is empty. Nothing runs. O(values x parse).
SweepReport plan_sweep(std::string_view scenario_json, const std::vector<Override>& overrides, const SweepSpec& spec);

/// Runs the base scenario (document + overrides) once per sweep value.
/// Each point keeps its summaries only: every run's per-request series
/// (PolicyOutcome::run) is released as soon as it is summarised, so peak
/// memory is `jobs` runs' state, whatever the number of points.
/// `progress(point, run, done, total)` (run: the run index within the point,
/// the phase with one replicate) may cancel by returning false; calls are
/// serialised. `jobs` as for run_experiment.
using SweepProgress = std::function<bool(std::size_t point, std::size_t phase, std::uint64_t done,
                                         std::uint64_t total)>;
SweepReport run_sweep(std::string_view scenario_json, const std::vector<Override>& overrides,
                      const SweepSpec& spec, const SweepProgress& progress = {}, unsigned jobs = 1);

/// Runs a planned sweep (plan_sweep with no errors), every point replaying
/// `replay` when given (its points' scenarios recorded by
/// record_sweep_replay, sweep_replay.h), else each point's synthetic
/// workload; otherwise as run_sweep.
SweepReport run_planned_sweep(SweepReport plan, const SweepProgress& progress = {}, unsigned jobs = 1,
                              const ReplayedTrace* replay = nullptr);

}  // namespace prefixroute
