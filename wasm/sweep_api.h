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

namespace prefixroute_wasm {

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
