// Sweep: run one scenario many times, varying one parameter, to see each
// policy's trade-off between cache reuse (hit rate) and tail latency (p99 TTFT).
//
// A sweep is a dotted scenario key and a list of values ("v1,v2,v3") or a
// range ("from:to:steps", evenly spaced, both ends included). Each value is
// applied as an override on top of the base scenario and validated like any
// other, so a bad value names its field. The results JSON (schema
// "prefixroute.sweep/1") holds the base scenario, the key, and per value each
// policy's summary; every (value, policy) point is flagged "pareto" when no
// other point has a higher-or-equal hit rate and a lower-or-equal p99 with one
// of them strict.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/experiment.h"
#include "prefixroute/scenario.h"

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

/// Runs the base scenario (document + overrides) once per sweep value.
/// Each point keeps its summaries only: the per-request series of a point's
/// runs (PolicyOutcome::run) are released once the point is done, so peak
/// memory is one point's run, whatever the number of points.
/// `progress(point, phase, done, total)` may cancel by returning false.
using SweepProgress = std::function<bool(std::size_t point, std::size_t phase, std::uint64_t done,
                                         std::uint64_t total)>;
SweepReport run_sweep(std::string_view scenario_json, const std::vector<Override>& overrides,
                      const SweepSpec& spec, const SweepProgress& progress = {});

std::string sweep_to_json(const SweepSpec& spec, const SweepReport& report);

}  // namespace prefixroute
