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
//   3. run_experiment(scenario, progress, &trace).
//
// A trace read into memory (read_trace, TraceLoader) keeps 4 bytes per
// block; natively a trace of any length is read once into a RequestSpill
// (spill_trace) and every run streams it back from disk.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <cstdio>
#include <memory>

#include "prefixroute/experiment.h"
#include "prefixroute/scenario.h"
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

/// A trace file read once into a RequestSpill, replayed from disk by every run.
struct SpilledTrace {
  TraceReadResult read;            ///< lines, problems, content hash, requests; never the trace itself
  ReplaySize size;                 ///< of the requests read
  std::uint64_t fingerprint = 0;   ///< as the trace's in memory (BlockTrace::fingerprint)
  std::unique_ptr<RequestSpill> spill;
  const Content* content = nullptr;  ///< the runs the spilled prompts are pieces of

  /// A fresh source of every request, in order (null if the spill file
  /// cannot be reopened).
  std::unique_ptr<RequestSource> open() const { return spill ? spill->open(*content) : nullptr; }
};

/// Reads `file` to its end, 1 MiB at a time, with `options`, into a spill in
/// the temporary directory. Memory: O(longest line), whatever the file's
/// length. When reading fails (a bad line under on_error = stop, no
/// request), read.ok() is false and read.problems say why; when the spill
/// cannot be written, `error` says why and read.ok() is false.
SpilledTrace spill_trace(std::FILE* file, const TraceReadOptions& options, std::string& error);

}  // namespace prefixroute
