#include "coarse_api.h"

#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "prefixroute/cluster/tp_choice.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/workload/synthetic.h"

#ifndef PREFIXROUTE_VERSION
#define PREFIXROUTE_VERSION "0.0.0"
#endif

using emscripten::EM_VAL;
using emscripten::val;

// JS helpers. EM_JS bodies run in the module's scope, where embind's Emval
// table lives; handles in, handles out.

// Calls onProgress(policyIndex, done, total). Returns a handle to: undefined
// (go on), false (the callback returned false: cancel), or a string (the
// callback threw; the message). A JS exception must not unwind through C++.
EM_JS(EM_VAL, pr_call_progress, (EM_VAL fn, int policy_index, double done, double total), {
  try {
    var r = Emval.toValue(fn)(policy_index, done, total);
    return Emval.toHandle(r === false ? false : undefined);
  } catch (e) {
    var text;
    try { text = (e && e.message) ? String(e.message) : String(e); } catch (e2) { text = 'exception'; }
    return Emval.toHandle(text);
  }
});

// New typed arrays holding copies of `n` elements of the heap at `data`.
// (Not val::call: embind 3.1.6 keeps its method callers in thread_local
// storage, and wasm-ld refuses thread-local storage in a module without the
// atomics feature: "'atomics' feature must be used in order to use
// thread-local storage".)
EM_JS(EM_VAL, pr_copy_f64, (const double* data, std::size_t n), {
  return Emval.toHandle(HEAPF64.slice(data >>> 3, (data >>> 3) + n));
});
EM_JS(EM_VAL, pr_copy_u32, (const std::uint32_t* data, std::size_t n), {
  return Emval.toHandle(HEAPU32.slice(data >>> 2, (data >>> 2) + n));
});
EM_JS(EM_VAL, pr_copy_i32, (const std::int32_t* data, std::size_t n), {
  return Emval.toHandle(HEAP32.slice(data >>> 2, (data >>> 2) + n));
});

namespace prefixroute_wasm {
namespace {

// Copies `n` elements at `data` into a new JS typed array (slice() copies:
// a view of the heap would go dead when memory grows).
val copy_out(const double* data, std::size_t n) {
  return val::take_ownership(pr_copy_f64(data, n));
}
val copy_out(const std::uint32_t* data, std::size_t n) {
  return val::take_ownership(pr_copy_u32(data, n));
}

val error_object(const std::string& field, const std::string& message) {
  val e = val::object();
  e.set("field", field);
  e.set("message", message);
  return e;
}

}  // namespace

std::vector<prefixroute::FieldError> heap_budget_errors(double need, const char* what, const char* advice) {
  if (!(need > kHeapBudgetBytes)) return {};
  char text[400];
  std::snprintf(text, sizeof text, "%s could need up to %.0f MB of memory; the WebAssembly build has %.0f MB. %s",
                what, std::ceil(need / 1e6), kHeapBudgetBytes / 1e6, advice);
  return {{"(memory)", text}};
}

val unfinished_outcome(const std::string& callback_error, bool cancelled) {
  if (!callback_error.empty()) return failure({{"(onProgress)", callback_error}});
  if (!cancelled) return val::undefined();
  val result = failure({{"(run)", "cancelled"}});
  result.set("cancelled", true);
  return result;
}

val failure(const std::vector<prefixroute::FieldError>& errors) {
  val result = val::object();
  result.set("ok", false);
  val list = val::array();
  for (std::size_t i = 0; i < errors.size(); ++i)
    list.set(i, error_object(errors[i].field, errors[i].message));
  result.set("errors", list);
  return result;
}

namespace {

// The core's estimate of a run's heap, plus the copy of one policy's TTFTs
// that run_outcome stages while it copies the series out.
double estimated_heap_bytes(const prefixroute::Scenario& s) {
  return prefixroute::estimated_peak_bytes(s) + prefixroute::synthetic_bounds(s.workload).requests * sizeof(double) +
         timeline_bytes(s, prefixroute::synthetic_bounds(s.workload).requests);
}

}  // namespace

prefixroute::ScenarioParse parse_with_overrides(const val& scenario_arg, const val& overrides_arg) {
  prefixroute::ScenarioParse not_text;
  if (!scenario_arg.isString())
    not_text.errors.push_back({"(document)", "scenarioJson must be a string (\"\" for the reference scenario)"});
  if (!overrides_arg.isString())
    not_text.errors.push_back({"(overrides)", "overridesJson must be a string (\"\" for none)"});
  if (!not_text.ok()) return not_text;
  const std::string scenario_json = scenario_arg.as<std::string>();
  const std::string overrides_json = overrides_arg.as<std::string>();

  std::vector<prefixroute::Override> overrides;
  std::string error;
  if (!prefixroute::parse_override_pairs(overrides_json, overrides, error)) {
    prefixroute::ScenarioParse parse;
    parse.errors.push_back({"(overrides)", error});
    return parse;
  }
  return parse_checked(scenario_json, overrides);
}

// parse_scenario, then what this module cannot run: a trace replay, a run
// that could outgrow the heap.
prefixroute::ScenarioParse parse_checked(const std::string& scenario_json,
                                         const std::vector<prefixroute::Override>& overrides) {
  prefixroute::ScenarioParse parse = prefixroute::parse_scenario(scenario_json, overrides);
  if (parse.ok() && parse.scenario.replays_trace()) {
    parse.errors.push_back({"trace.name",
                            "the scenario replays trace \"" + parse.scenario.trace.name +
                                "\"; runScenario runs only the synthetic workload (leave trace.name empty, or replay "
                                "the file with TraceLoader and runTrace)"});
  }
  if (parse.ok()) {
    for (auto& error : heap_budget_errors(estimated_heap_bytes(parse.scenario), "this run",
                                          "Lower workload.requests, cluster.cache_tokens or cluster.replicas, "
                                          "or run the native command line (prefixroute)"))
      parse.errors.push_back(std::move(error));
  }
  return parse;
}

val validate_scenario(const val& scenario_json, const val& overrides_json) {
  const prefixroute::ScenarioParse parse = parse_with_overrides(scenario_json, overrides_json);
  if (!parse.ok()) return failure(parse.errors);
  val result = val::object();
  result.set("ok", true);
  result.set("errors", val::array());
  result.set("scenarioJson", prefixroute::scenario_to_json(parse.scenario));
  return result;
}

// The run's onProgress as the core's callback (empty for null/undefined):
// the JS function's answer false cancels; a throw cancels and leaves its
// message in `callback_error`.
prefixroute::ExperimentProgress progress_callback(const val& on_progress, std::string& callback_error) {
  if (on_progress.isNull() || on_progress.isUndefined()) return {};
  return [&on_progress, &callback_error](std::size_t policy_index, std::uint64_t done, std::uint64_t total) {
    const val answer = val::take_ownership(pr_call_progress(on_progress.as_handle(), static_cast<int>(policy_index),
                                                            static_cast<double>(done), static_cast<double>(total)));
    if (answer.isUndefined()) return true;
    if (answer.isString()) callback_error = "onProgress threw: " + answer.as<std::string>();
    return false;
  };
}

namespace {

// A run's timeline (sim/timeline.h) as plain JS: counts and the shape as
// numbers, every per-cell vector a copied typed array indexed
// window x rows + row (the same values as timeline_json.h's document).
val timeline_object(const prefixroute::Timeline& t) {
  val o = val::object();
  o.set("windows", t.windows);
  o.set("windowMs", prefixroute::ticks_to_ms(t.window_ticks));
  o.set("replicas", t.replicas);
  o.set("shown", t.shown);
  o.set("other", t.other);
  o.set("rows", t.rows());
  o.set("batched", t.batched);
  o.set("requests", copy_out(t.requests.data(), t.requests.size()));
  o.set("meanWaitMs", copy_out(t.mean_wait_ms.data(), t.mean_wait_ms.size()));
  o.set("meanTtftMs", copy_out(t.mean_ttft_ms.data(), t.mean_ttft_ms.size()));
  o.set("hitRate", copy_out(t.hit_rate.data(), t.hit_rate.size()));
  o.set("meanInFlight", copy_out(t.mean_in_flight.data(), t.mean_in_flight.size()));
  if (t.batched) {
    o.set("meanBatch", copy_out(t.mean_batch.data(), t.mean_batch.size()));
    o.set("kvUse", copy_out(t.kv_use.data(), t.kv_use.size()));
  }
  o.set("groups", copy_out(t.groups.data(), t.groups.size()));
  o.set("topGroup", val::take_ownership(pr_copy_i32(t.top_group.data(), t.top_group.size())));
  o.set("topShare", copy_out(t.top_share.data(), t.top_share.size()));
  // Group keys are content run ids: exact as doubles below 2^53.
  const std::vector<double> keys(t.group_keys.begin(), t.group_keys.end());
  o.set("groupKeys", copy_out(keys.data(), keys.size()));
  return o;
}

}  // namespace

// One policy's per-request series as JS copies: {policy, ttftMs, replicaOf,
// cachedTokens, timeline (when recorded)}. Releases the run's TTFT ticks once converted.
val policy_series(prefixroute::PolicyOutcome& outcome) {
  std::vector<double> ttft_ms(outcome.run.ttft.size());
  for (std::size_t i = 0; i < ttft_ms.size(); ++i) ttft_ms[i] = prefixroute::ticks_to_ms(outcome.run.ttft[i]);
  std::vector<prefixroute::Tick>().swap(outcome.run.ttft);  // lowers the peak: the ticks are done with
  val s = val::object();
  s.set("policy", outcome.policy);
  s.set("ttftMs", copy_out(ttft_ms.data(), ttft_ms.size()));
  s.set("replicaOf", copy_out(outcome.run.replica_of.data(), outcome.run.replica_of.size()));
  s.set("cachedTokens", copy_out(outcome.run.cached_of.data(), outcome.run.cached_of.size()));
  if (outcome.run.timeline.windows > 0) s.set("timeline", timeline_object(outcome.run.timeline));
  return s;
}

// What runScenario (and runTrace) return once the core has run: a failure
// for a throwing callback or a cancel, else {ok, resultsJson, series}.
val run_outcome(const prefixroute::Scenario& scenario, prefixroute::ExperimentReport& report,
                const std::string& callback_error) {
  if (val stopped = unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined())
    return stopped;

  val result = val::object();
  result.set("ok", true);
  result.set("resultsJson", prefixroute::results_to_json(scenario, report));
  val series = val::array();
  for (std::size_t p = 0; p < report.outcomes.size(); ++p) series.set(p, policy_series(report.outcomes[p]));
  result.set("series", series);
  return result;
}

val run_scenario(const val& scenario_json, const val& overrides_json, const val& on_progress) {
  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  if (has_progress && on_progress.typeOf().as<std::string>() != "function")
    return failure({{"(onProgress)", "must be a function (policyIndex, done, total) => boolean, or null"}});

  const prefixroute::ScenarioParse parse = parse_with_overrides(scenario_json, overrides_json);
  if (!parse.ok()) return failure(parse.errors);

  std::string callback_error;
  prefixroute::ExperimentReport report =
      prefixroute::run_experiment(parse.scenario, progress_callback(on_progress, callback_error), nullptr, 1,
                                  /*record_timeline=*/true);
  return run_outcome(parse.scenario, report, callback_error);
}

// What the scenario's model, GPU and engine mean for one replica, with the
// arithmetic (core/include/prefixroute/scenario/hardware_summary.h), for a valid
// scenario; else its errors, as validateScenario returns them.
val hardware_summary(const val& scenario_json, const val& overrides_json) {
  const prefixroute::ScenarioParse parse = parse_with_overrides(scenario_json, overrides_json);
  if (!parse.ok()) return failure(parse.errors);
  val result = val::object();
  result.set("ok", true);
  result.set("errors", val::array());
  result.set("summaryJson", prefixroute::hardware_summary_json(parse.scenario));
  return result;
}

val smallest_tp(const val& scenario_json, const val& overrides_json) {
  const prefixroute::ScenarioParse parse = parse_with_overrides(scenario_json, overrides_json);
  std::vector<prefixroute::FieldError> blocking;
  for (const prefixroute::FieldError& e : parse.errors)
    if (prefixroute::tp_choice_reads(e.field)) blocking.push_back(e);
  if (!blocking.empty()) return failure(blocking);
  const prefixroute::TpChoice choice =
      prefixroute::smallest_tp(parse.scenario.hardware, parse.scenario.cluster.kv_block_tokens);
  if (!choice.ok()) return failure({{choice.error_field, choice.error}});
  val result = val::object();
  result.set("ok", true);
  result.set("errors", val::array());
  result.set("tp", choice.tp);
  result.set("minFitTp", choice.min_fit_tp);
  result.set("holdsContext", choice.holds_context);
  result.set("cacheTokens", static_cast<double>(choice.cache_tokens));
  result.set("contextTokens", choice.context_tokens);
  result.set("weightBytes", choice.weight_bytes);
  result.set("reason", choice.reason);
  return result;
}

std::string scenario_schema() { return prefixroute::scenario_json_schema(); }

// The core's catalogue JSON, as plain JS objects.
val policy_catalogue() { return val::global("JSON")["parse"](prefixroute::policy_catalogue_json()); }

std::string version() { return PREFIXROUTE_VERSION; }


// The module's memory: the wasm heap (grows, never shrinks) and the bytes
// malloc has handed out and not taken back. A run that frees everything it
// allocated leaves inUseBytes where it found it; tests use both to show that
// repeated runs do not grow memory.
val memory_stats() {
  const struct mallinfo info = mallinfo();
  val out = val::object();
  out.set("heapBytes", static_cast<double>(emscripten_get_heap_size()));
  out.set("inUseBytes", static_cast<double>(info.uordblks));
  return out;
}


}  // namespace prefixroute_wasm
