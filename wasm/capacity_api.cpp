#include "capacity_api.h"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coarse_api.h"
#include "prefixroute/io/capacity_json.h"
#include "prefixroute/run/capacity_search.h"
#include "prefixroute/workload/synthetic.h"

using emscripten::EM_VAL;
using emscripten::val;

// Calls onProgress(runs, searchesDone, searches). Returns a handle to:
// undefined (go on), false (cancel), or a string (the callback threw; its
// message). A JS exception must not unwind through C++.
EM_JS(EM_VAL, pr_call_capacity_progress, (EM_VAL fn, double runs, double done, double searches), {
  try {
    var r = Emval.toValue(fn)(runs, done, searches);
    return Emval.toHandle(r === false ? false : undefined);
  } catch (e) {
    var text;
    try { text = (e && e.message) ? String(e.message) : String(e); } catch (e2) { text = 'exception'; }
    return Emval.toHandle(text);
  }
});

namespace prefixroute_wasm {
namespace {

// The search of a checked scenario (on `replay` when given) as runCapacity returns it.
val search(const prefixroute::Scenario& scenario, const prefixroute::ReplayedTrace* replay, const val& on_progress) {
  std::vector<prefixroute::FieldError> errors = prefixroute::check_capacity(scenario);
  if (!errors.empty()) return failure(errors);
  // The largest run the search may make: one policy on the most replicas it tries.
  prefixroute::Scenario largest = scenario;
  largest.cluster.replicas = std::max(scenario.cluster.replicas, scenario.capacity.max_replicas);
  largest.replicates = 1;
  largest.policies.resize(1);
  const prefixroute::ReplaySize size = replay != nullptr ? replay->figures().size : prefixroute::ReplaySize{};
  errors = heap_budget_errors(prefixroute::estimated_peak_bytes(largest, replay != nullptr ? &size : nullptr),
                              "the capacity search's largest run",
                              "Lower capacity.max_replicas, workload.requests or cluster.cache_tokens, or run the "
                              "native command line (prefixroute --capacity)");
  if (!errors.empty()) return failure(errors);

  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  std::string callback_error;
  prefixroute::CapacityProgress progress;
  if (has_progress)
    progress = [&](std::size_t runs, std::size_t done, std::size_t searches) {
      const val answer = val::take_ownership(pr_call_capacity_progress(
          on_progress.as_handle(), static_cast<double>(runs), static_cast<double>(done), static_cast<double>(searches)));
      if (answer.isUndefined()) return true;
      if (answer.isString()) callback_error = "onProgress threw: " + answer.as<std::string>();
      return false;
    };
  const prefixroute::CapacityReport report = prefixroute::run_capacity_search(scenario, replay, 1, progress);
  if (val stopped = unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined()) return stopped;
  val result = val::object();
  result.set("ok", true);
  result.set("capacityJson", prefixroute::capacity_to_json(scenario, report));
  return result;
}

val progress_refusal(const val& on_progress) {
  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  if (has_progress && on_progress.typeOf().as<std::string>() != "function")
    return failure({{"(onProgress)", "must be a function (runs, searchesDone, searches) => boolean, or null"}});
  return val::undefined();
}

}  // namespace

val run_capacity(const val& scenario_arg, const val& overrides_arg, const val& on_progress) {
  if (val refused = progress_refusal(on_progress); !refused.isUndefined()) return refused;
  const prefixroute::ScenarioParse parse = parse_with_overrides(scenario_arg, overrides_arg);
  if (!parse.ok()) return failure(parse.errors);
  return search(parse.scenario, nullptr, on_progress);
}

val run_trace_capacity(TraceLoader& loader, const val& scenario_arg, const val& overrides_arg, const val& on_progress) {
  if (val refused = progress_refusal(on_progress); !refused.isUndefined()) return refused;
  prefixroute::Scenario scenario;
  if (val refused = check_trace_run(loader, scenario_arg, overrides_arg, on_progress, scenario); !refused.isUndefined())
    return refused;
  return search(scenario, loader.replay(), on_progress);
}

}  // namespace prefixroute_wasm
