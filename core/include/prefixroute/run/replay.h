// Replay: running a scenario on a recorded trace, set up the same way by every
// face of prefixroute (the command line's --trace, the module's TraceLoader +
// runTrace), so the same file and scenario give the same results JSON.
//
//   1. read the file with the scenario's reading settings
//      (trace_read_options: block size, time scale, limit, on_error);
//   2. record_replay: check the scenario's content hash against the file's,
//      record the file's name, lines, skipped lines and hash in
//      scenario.trace (the results JSON echoes them), and check the limits
//      that depend on both trace and scenario (check_replay);
//   3. run_experiment(scenario, progress, &replay).
//
// Step 3 takes the trace as a ReplayedTrace (replayed_trace.h). A trace read
// into memory (read_trace, then InMemoryReplay; the module's TraceLoader)
// keeps 4 bytes per block; the command line reads a trace of any length once
// into a RequestSpill (spill_trace: a SpilledTrace) and every run streams it
// back from disk, so its memory does not grow with the file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <cstdio>
#include <memory>

#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/request_spill.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute {

/// How to read a trace for a scenario with these settings.
TraceReadOptions trace_read_options(const TraceSettings& settings);

/// The settings in `want` that differ from those a trace was read with
/// (`have`), one error per field naming the value it was read with. A reader
/// that kept a trace in memory checks this before replaying it for another
/// scenario: different settings would need another read.
std::vector<FieldError> differing_read_settings(const TraceSettings& want, const TraceReadOptions& have);

/// The name a trace is recorded under: the last component of `path`, cut
/// to kMaxTextFieldLength bytes.
std::string trace_file_name(std::string_view path);

/// Step 2 above for a trace read successfully (`read.ok()`) whose prompts hold
/// `prompt_tokens` tokens in all: checks and records in `scenario.trace`.
/// `file_name` may be a path: its last component, cut to 256 bytes, is
/// recorded. Returns the problems (nothing is recorded when there is one): a
/// content hash that does not match, an empty name, a replay beyond the
/// simulator's limits.
std::vector<FieldError> record_replay(Scenario& scenario, std::string_view file_name, const TraceReadResult& read,
                                      double prompt_tokens);
/// record_replay with the trace's whole size (replay_size), which also
/// bounds the step model's worst case (check_replay(scenario, size)).
std::vector<FieldError> record_replay(Scenario& scenario, std::string_view file_name, const TraceReadResult& read,
                                      const ReplaySize& size);

/// A trace file read once into a RequestSpill, replayed from disk: every run
/// opens its own reader (replayed_trace.h). What stays in memory is the
/// reading's result and the figures, never the requests.
class SpilledTrace final : public ReplayedTrace {
 public:
  /// Lines, problems, content hash, requests read; never the trace itself.
  const TraceReadResult& read() const { return read_; }
  const ReplayFigures& figures() const override { return figures_; }
  /// Throws std::runtime_error when there is nothing to replay (reading
  /// failed) or the spill cannot be read back.
  std::unique_ptr<RequestSource> open() const override;

 private:
  friend SpilledTrace spill_trace(std::FILE* file, const TraceReadOptions& options, std::string& error);
  TraceReadResult read_;
  ReplayFigures figures_;
  std::unique_ptr<RequestSpill> spill_;
  bool has_sessions_ = false;  ///< a Bailian or openai trace
};

/// Reads `file` to its end, 1 MiB at a time, with `options`, into a spill in
/// the temporary directory, computing the figures as it goes, the ideal
/// bound from the block ids among them (BlockIdealBound: a few bytes per
/// request while it reads, freed, and on glibc handed back to the system,
/// before it returns, so no run holds them). Memory: O(longest line) plus
/// those lists, whatever the file's length. The same TraceReader as
/// read_trace, so the same lines are accepted, refused (each problem naming
/// its line and field) or skipped. When reading fails (a bad line under
/// on_error = stop, no request), read().ok() is false and read().problems say
/// why; when the file cannot be read or the spill cannot be written, `error`
/// says why and read().ok() is false.
SpilledTrace spill_trace(std::FILE* file, const TraceReadOptions& options, std::string& error);

}  // namespace prefixroute
