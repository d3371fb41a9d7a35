// The coarse API of the module: runScenario, validateScenario,
// hardwareSummary, smallestTp, scenarioSchema, policyCatalogue, version, memoryStats: what
// the playground's workers call. Strings in, plain JS objects out; a bad
// scenario is a value ({ok: false, errors}), never an exception.
//
// Its argument checks are shared by the other API files (trace_api,
// sweep_api, shard_api), so that each checks a scenario exactly as
// runScenario does: the same type checks on the JS arguments, the same
// override parsing, the same refusal of trace replay and the same memory
// bound, with the same fields and messages.
#pragma once

#include <emscripten/val.h>

#include <algorithm>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute_wasm {

// The wasm heap ends at 2 GiB, and running out of it aborts the module for
// good (operator new cannot report failure without exceptions). So a run
// (runScenario, runSweep, runTrace) whose estimate could need more is refused
// up front, as an error value. The bound is deliberately generous: 1.0-2.5x
// the heap measured for 100k-200k-request runs of each policy with unbounded
// caches. Revisit it when a policy keeps more state than a copy of the
// prefixes it has routed.
inline constexpr double kHeapBudgetBytes = 1.9e9;

/// The timelines runScenario and runTrace record (sim/timeline.h), in bytes:
/// each request's window (2 bytes) and its (window, row, group) until the
/// run ends (16), plus every policy's cells (80 bytes each, all vectors).
inline double timeline_bytes(const prefixroute::Scenario& s, double requests) {
  const double rows = std::min<double>(s.cluster.replicas, prefixroute::kTimelineMaxReplicas) + 1;
  return requests * 18 + static_cast<double>(s.policies.size()) * prefixroute::kTimelineWindows * rows * 80;
}

/// The "(memory)" error of a run estimated to need `need` bytes, or none
/// when that fits the budget: "<what> could need up to N MB of memory; the
/// WebAssembly build has M MB. <advice>".
std::vector<prefixroute::FieldError> heap_budget_errors(double need, const char* what, const char* advice);

/// {ok: false, errors: [{field, message}, ...]}.
emscripten::val failure(const std::vector<prefixroute::FieldError>& errors);

/// What a run that did not finish returns: the failure of a throwing
/// onProgress (`callback_error`), or {ok: false, cancelled: true, ...} for a
/// cancel; undefined when the run finished (the caller then builds its result).
emscripten::val unfinished_outcome(const std::string& callback_error, bool cancelled);

/// Parses scenarioJson + overridesJson (JS values; must be strings) as
/// runScenario does, including its checks that the module can run the result.
prefixroute::ScenarioParse parse_with_overrides(const emscripten::val& scenario_json,
                                                const emscripten::val& overrides_json);

/// parse_scenario plus the module's own refusals (trace replay, the memory
/// bound): the part of parse_with_overrides after the arguments are read.
prefixroute::ScenarioParse parse_checked(const std::string& scenario_json,
                                         const std::vector<prefixroute::Override>& overrides);

/// A run's onProgress (a JS function, or null/undefined for none) as the
/// core's callback: false from JS cancels; a throw cancels and its message is
/// left in `callback_error`. Both references must outlive the run.
prefixroute::ExperimentProgress progress_callback(const emscripten::val& on_progress, std::string& callback_error);

/// What runScenario returns once the core has run: a failure for a throwing
/// callback ("(onProgress)") or a cancel ("(run)", cancelled: true), else
/// {ok: true, resultsJson, series} (series: per-policy typed-array copies).
emscripten::val run_outcome(const prefixroute::Scenario& scenario, prefixroute::ExperimentReport& report,
                            const std::string& callback_error);

/// One policy's per-request series, as runScenario's `series` entries hold
/// it: {policy, ttftMs, replicaOf, cachedTokens, timeline (when the run
/// recorded one)} (copies; the run's TTFT ticks are released).
emscripten::val policy_series(prefixroute::PolicyOutcome& outcome);

/// runScenario(scenarioJson, overridesJson, onProgress) -> {ok, resultsJson, series} | failure.
emscripten::val run_scenario(const emscripten::val& scenario_json, const emscripten::val& overrides_json,
                             const emscripten::val& on_progress);
/// validateScenario(scenarioJson, overridesJson) -> {ok, errors, scenarioJson}.
emscripten::val validate_scenario(const emscripten::val& scenario_json, const emscripten::val& overrides_json);
/// hardwareSummary(scenarioJson, overridesJson) -> {ok, errors, summaryJson}.
emscripten::val hardware_summary(const emscripten::val& scenario_json, const emscripten::val& overrides_json);
/// smallestTp(scenarioJson, overridesJson) -> {ok, errors, tp, minFitTp, holdsContext,
/// cacheTokens, contextTokens, weightBytes, reason}: the smallest tensor
/// parallelism for the scenario's model on its GPU (cluster/tp_choice.h; tp 0:
/// none up to 8). Errors only in the fields the choice reads; the scenario's
/// own hardware.tp may be refused.
emscripten::val smallest_tp(const emscripten::val& scenario_json, const emscripten::val& overrides_json);
/// scenarioSchema(): the JSON Schema of a scenario document.
std::string scenario_schema();
/// policyCatalogue(): the catalogue as plain JS objects.
emscripten::val policy_catalogue();
/// version(): the module's version.
std::string version();
/// memoryStats() -> {heapBytes, inUseBytes}: the wasm heap (grows, never
/// shrinks) and the bytes malloc has handed out and not taken back.
emscripten::val memory_stats();

}  // namespace prefixroute_wasm
