// WebAssembly bindings for trace replay: a TraceLoader that reads a
// Mooncake-, Bailian- or openai-format JSONL trace (trace.format) in chunks (the core's incremental TraceReader),
// and runTrace, which runs a scenario's policies on the loaded trace.
// prefixroute.d.ts declares it.
//
//   const loader = new pr.TraceLoader('conversation.jsonl', scenarioJson, overridesJson);
//   for (const chunk of chunks) if (!loader.feed(chunk).going) break;  // string or bytes
//   const loaded = loader.finish();          // { ok, lines, requests, problems, summaryJson, ... }
//   const run = pr.runTrace(loader, scenarioJson, overridesJson, onProgress);
//   const sweep = pr.runTraceSweep(loader, scenarioJson, overridesJson, 'cluster.replicas=1:8:8', onProgress);
//   loader.delete();
//
// The same bytes as the command line: `prefixroute --trace FILE --json`
// reads the file with the scenario's trace settings, records its name, line
// count, skipped lines and content hash in scenario.trace, checks the limits
// that depend on both trace and scenario (check_replay), and runs
// run_experiment on it. runTrace does exactly that, so for the same file and
// scenario resultsJson is byte-identical (tests/js/trace-replay.test.mjs).
//
// Rules at the boundary, as in bindings.cpp: nothing throws. A bad chunk
// argument, a bad scenario, a bad trace line, a loader used out of order are
// all values: problems naming the line (0 when the problem is not one line's)
// and the field. Reading settings (trace.block_size, time_scale, limit,
// on_error, format) are fixed when the loader is made; runTrace refuses a scenario
// whose settings differ, naming the field, because the trace would have to be
// read again.
//
// The argument checks, the overrides format and failure() are coarse_api.h's
// (coarse_api.h); the memory bound is this file's own, because a trace's size
// is known from the file, not from the scenario's workload fields.
#pragma once

#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "prefixroute/run/replay.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute_wasm {

/// A trace read in chunks. States: reading (feed) -> finished (finish; the
/// trace is kept when it was read without a fatal problem). A loader made from
/// an invalid scenario starts finished, with the scenario's problems.
class TraceLoader {
 public:
  TraceLoader(std::string name, const emscripten::val& scenario_json, const emscripten::val& overrides_json);

  const std::string& name() const { return name_; }
  const prefixroute::TraceReadOptions& options() const { return options_; }
  bool finished() const { return finished_; }
  const prefixroute::BlockTrace* trace() const { return result_.trace.get(); }
  /// The trace as run_experiment replays it (null when it was not read).
  const prefixroute::ReplayedTrace* replay() const { return replay_.get(); }
  const prefixroute::TraceReadResult& result() const { return result_; }
  const prefixroute::ReplaySize& size() const { return size_; }

  /// Reads the next chunk (a string or bytes) -> {going, bytes, lines, requests, error}.
  emscripten::val feed(const emscripten::val& chunk);

  /// Ends the reading -> describe().
  emscripten::val finish();

  /// The first problem as "line N, field: message" (the loader's setup
  /// problems first).
  std::string first_problem() const;

  /// What finish() returned: the state of a finished loader.
  emscripten::val describe() const;

 private:
  std::string name_;
  prefixroute::TraceReadOptions options_;
  std::unique_ptr<prefixroute::TraceReader> reader_;
  prefixroute::TraceReadResult result_;
  std::vector<prefixroute::TraceProblem> setup_problems_;
  prefixroute::TraceReadOptions::Format format_ = prefixroute::TraceReadOptions::Format::Auto;  ///< the format read (auto: none told yet)
  double bytes_ = 0;
  std::unique_ptr<prefixroute::InMemoryReplay> replay_;  // of result_.trace
  prefixroute::ReplaySize size_;
  std::string summary_json_;  ///< the trace summary JSON (prefixroute.trace/1), once read; "" otherwise
  bool going_ = true;
  bool finished_ = false;
};

/// new TraceLoader(name, scenarioJson, overridesJson).
TraceLoader* make_loader(const emscripten::val& name, const emscripten::val& scenario_json,
                         const emscripten::val& overrides_json);
emscripten::val loader_feed(TraceLoader& loader, const emscripten::val& chunk);
emscripten::val loader_finish(TraceLoader& loader);

/// runTrace(loader, scenarioJson, overridesJson, onProgress) -> as runScenario.
emscripten::val run_trace(TraceLoader& loader, const emscripten::val& scenario_json,
                          const emscripten::val& overrides_json, const emscripten::val& on_progress);
/// runTraceShard(loader, scenarioJson, overridesJson, shardIndex, shardCount, onProgress) -> as runShard.
emscripten::val run_trace_shard(TraceLoader& loader, const emscripten::val& scenario_json,
                                const emscripten::val& overrides_json, const emscripten::val& shard_index,
                                const emscripten::val& shard_count, const emscripten::val& on_progress);
/// runTraceSweep(loader, scenarioJson, overridesJson, sweepSpec, onProgress) -> as runSweep:
/// every point replays the loaded trace (`prefixroute --trace FILE --sweep SPEC`).
emscripten::val run_trace_sweep(TraceLoader& loader, const emscripten::val& scenario_json,
                                const emscripten::val& overrides_json, const emscripten::val& spec,
                                const emscripten::val& on_progress);

/// runTrace's checks of its arguments, the loader and the scenario (reading
/// settings, replay record, memory bound): undefined when a run may go ahead,
/// with `scenario` parsed and the trace recorded in it; else the failure value.
emscripten::val check_trace_run(TraceLoader& loader, const emscripten::val& scenario_json,
                                const emscripten::val& overrides_json, const emscripten::val& on_progress,
                                prefixroute::Scenario& scenario);

}  // namespace prefixroute_wasm
