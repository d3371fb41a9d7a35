// WebAssembly binding of the capacity search (core/include/prefixroute/run/capacity_search.h):
//
//   runCapacity(scenarioJson, overridesJson, onProgress)
//     -> { ok: true, capacityJson } | { ok: false, errors: [{field, message}], cancelled? }
//
// capacityJson is capacity_to_json(), the bytes `prefixroute --capacity
// --json FILE` writes for the same scenario and overrides (the search is
// deterministic and its answer the same for any number of jobs). onProgress
// (runs, searchesDone, searches), called after every run of the search (one
// simulation of one policy at one load or replica count), returns false to
// cancel; searches = policies x replicates. A page calls it from a Web Worker
// and draws the progress between runs.
//
// The checks are runScenario's (argument types, overrides, trace replay
// refused, the memory bound) plus the search's own (check_capacity: an SLO
// target, a load to vary), and the memory bound again at the largest
// cluster the replica search may try (capacity.max_replicas).
//
//   runTraceCapacity(loader, scenarioJson, overridesJson, onProgress)
//     -> as runCapacity, on a finished TraceLoader's trace (its load axis is
//        trace.time_scale), with runTrace's checks: the bytes of
//        `prefixroute --trace FILE --capacity --json FILE`.
#pragma once

#include <emscripten/val.h>

#include "trace_api.h"

namespace prefixroute_wasm {

/// runTraceCapacity(loader, scenarioJson, overridesJson, onProgress).
emscripten::val run_trace_capacity(TraceLoader& loader, const emscripten::val& scenario_json,
                                   const emscripten::val& overrides_json, const emscripten::val& on_progress);

/// runCapacity(scenarioJson, overridesJson, onProgress).
emscripten::val run_capacity(const emscripten::val& scenario_json, const emscripten::val& overrides_json,
                             const emscripten::val& on_progress);

}  // namespace prefixroute_wasm
