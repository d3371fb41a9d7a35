// WebAssembly binding of the sweep (core/include/prefixroute/run/sweep.h):
//
//   runSweep(scenarioJson, overridesJson, sweepSpec, onProgress)
//     -> { ok: true, sweepJson } | { ok: false, errors: [{field, message}], cancelled? }
//
// sweepJson is sweep_to_json(), the bytes `prefixroute --sweep SPEC
// --json FILE` writes for the same scenario, overrides and SPEC. The binding
// keeps the rules of bindings.cpp: no exception crosses the boundary in
// either direction, every problem is an error value naming its field, and a
// run that could outgrow the module is refused before it starts:
//   * each sweep point is checked exactly as runScenario checks a scenario
//     (types, overrides, trace replay refused, the memory bound) — the sweep
//     releases each point's per-request series, so the bound of one point
//     bounds the sweep;
//   * at most 200 points (parse_sweep), and at most kMaxSweptRequests
//     requests summed over the points (times each point's replicates), so a
//     sweep cannot run for hours.
//
//   runSweepShard(scenarioJson, overridesJson, sweepSpec, shardIndex, shardCount, onProgress)
//     -> { ok: true, shardJson } | failure     (the CLI's --sweep SPEC --shard K/N document)
//   mergeSweepShards(documents) -> { ok: true, sweepJson } | failure   (runSweep's bytes)
// take the same checks (shard_api.h has the experiment's pair).
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <string>
#include <vector>

#include "prefixroute/run/sweep.h"

namespace prefixroute_wasm {

/// Longest sweep spec read: 200 values of a few dozen characters fit easily.
inline constexpr std::size_t kMaxSpecChars = 16384;
/// Requests simulated per policy over a whole sweep (points x each point's
/// requests, times its replicates): about ten minutes for the default policies.
inline constexpr double kMaxSweptRequests = 2e7;

/// A sweep's onProgress (a JS function (point, phase, done, total), or null /
/// undefined for none) as the core's callback: false cancels; a throw cancels
/// and leaves its message in `callback_error`. Both must outlive the sweep.
prefixroute::SweepProgress sweep_progress(const emscripten::val& on_progress, std::string& callback_error);

/// The "(onProgress)" failure when a sweep's onProgress is neither a function
/// nor null/undefined; undefined when it is fine.
emscripten::val sweep_progress_refusal(const emscripten::val& on_progress);

/// A sweep spec argument read as runSweep reads it (a string of at most
/// kMaxSpecChars, parse_sweep); else false with the "(sweep)" error.
bool read_sweep_spec(const emscripten::val& spec_arg, prefixroute::SweepSpec& spec,
                     std::vector<prefixroute::FieldError>& errors);

/// runSweep(scenarioJson, overridesJson, sweepSpec, onProgress).
emscripten::val run_sweep(const emscripten::val& scenario_json, const emscripten::val& overrides_json,
                          const emscripten::val& spec, const emscripten::val& on_progress);
/// runSweepShard(scenarioJson, overridesJson, sweepSpec, shardIndex, shardCount, onProgress).
emscripten::val run_sweep_shard(const emscripten::val& scenario_json, const emscripten::val& overrides_json,
                                const emscripten::val& spec, const emscripten::val& shard_index,
                                const emscripten::val& shard_count, const emscripten::val& on_progress);
/// mergeSweepShards(documents) -> {ok, sweepJson} | failure.
emscripten::val merge_sweep_shards(const emscripten::val& documents);
/// expandSweep(sweepSpec) -> {ok, key, values} | failure: the values a spec runs.
emscripten::val expand_sweep(const emscripten::val& spec);

}  // namespace prefixroute_wasm
