// A sweep of a replayed trace: the command line's `--trace FILE --sweep
// SPEC` and the module's runTraceSweep. The trace is read once, with the
// reading settings (trace.*) the sweep's points share, and every point
// replays it: each point's scenario records the file (name, lines, skipped
// lines, content hash) as a single replay's does (record_replay, run/replay.h),
// so the sweep JSON's base scenario names the trace, and each point is
// checked against the trace as a single replay is (check_replay).
//
// What a sweep of a trace can vary: a cluster, router or policy key, or the
// seed of the random policies. Not a trace.* key (the trace would have to be
// read again for every point), nor a workload.* key (the trace replaces the
// synthetic workload: every point would replay the same requests).
//
//   SweepReport plan = plan_sweep(text, overrides, spec);       // run/sweep.h
//   read the file with trace_read_options(plan.points[0].scenario.trace)
//   record_sweep_replay(plan, spec, options, path, read, size);
//   run_planned_sweep(std::move(plan), progress, jobs, &replay);  // run/sweep.h
#pragma once

#include <string_view>
#include <vector>

#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/run/sweep.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute {

/// Why a sweep of `spec.key` cannot replay a trace (see above), as one
/// "(sweep)" error; empty when it can. Checked before the file is read.
std::vector<FieldError> sweep_replay_key_errors(const SweepSpec& spec);

/// Records the trace read with `read_with` (`read`, of size `size`, from the
/// file `file_name`) in every point of `plan` (plan_sweep, no errors), after
/// checking that the sweep may replay it (sweep_replay_key_errors) and that each point's
/// reading settings are the ones it was read with. Returns the problems, each
/// naming its field (a point's with its sweep value); with any, `plan` is
/// left as it was and must not run. O(points x check_replay).
std::vector<FieldError> record_sweep_replay(SweepReport& plan, const SweepSpec& spec, const TraceReadOptions& read_with,
                                            std::string_view file_name, const TraceReadResult& read,
                                            const ReplaySize& size);

}  // namespace prefixroute
