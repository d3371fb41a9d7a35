#include "sweep_api.h"

#include <emscripten/emscripten.h>

#include <cstdio>
#include <string>
#include <vector>

#include "coarse_api.h"
#include "shard_api.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/io/shard_json.h"
#include "prefixroute/run/shard.h"
#include "prefixroute/run/sweep.h"
#include "prefixroute/workload/synthetic.h"

using emscripten::EM_VAL;
using emscripten::val;

// Calls onProgress(point, phase, done, total). Returns a handle to: undefined
// (go on), false (the callback returned false: cancel), or a string (the
// callback threw; its message). A JS exception must not unwind through C++.
EM_JS(EM_VAL, pr_call_sweep_progress, (EM_VAL fn, int point, int phase, double done, double total), {
  try {
    var r = Emval.toValue(fn)(point, phase, done, total);
    return Emval.toHandle(r === false ? false : undefined);
  } catch (e) {
    var text;
    try { text = (e && e.message) ? String(e.message) : String(e); } catch (e2) { text = 'exception'; }
    return Emval.toHandle(text);
  }
});

namespace prefixroute_wasm {
namespace {

using prefixroute::FieldError;

// A sweep's checks, as runSweep makes them: argument types, the spec, every
// point checked as runScenario checks a scenario, and the size bound.
// Returns true with the inputs, else false with `refusal` (the failure value).
bool check_sweep(const val& scenario_arg, const val& overrides_arg, const val& spec_arg, std::string& scenario_json,
                 std::vector<prefixroute::Override>& overrides, prefixroute::SweepSpec& spec, val& refusal) {
  if (!spec_arg.isString()) {
    refusal = failure({{"(sweep)", "sweepSpec must be a string: key=v1,v2,... or key=from:to:steps"}});
    return false;
  }
  // Type checks of scenarioJson / overridesJson, as runScenario makes them.
  const prefixroute::ScenarioParse base = prefixroute_wasm::parse_with_overrides(scenario_arg, overrides_arg);
  for (const FieldError& e : base.errors)
    if (e.field == "(document)" || e.field == "(overrides)") {
      refusal = failure(base.errors);
      return false;
    }
  scenario_json = scenario_arg.as<std::string>();
  std::string error;
  prefixroute::parse_override_pairs(overrides_arg.as<std::string>(), overrides, error);  // read above: cannot fail

  const std::string spec_text = spec_arg.as<std::string>();
  if (spec_text.size() > kMaxSpecChars) {
    refusal = failure({{"(sweep)", "sweepSpec has " + std::to_string(spec_text.size()) + " characters; at most " +
                                       std::to_string(kMaxSpecChars) + " are read"}});
    return false;
  }
  if (!prefixroute::parse_sweep(spec_text, spec, error)) {
    refusal = failure({{"(sweep)", error}});
    return false;
  }
  // A base scenario that is wrong whatever the swept value: its errors once,
  // not once per point. (The swept key's own error, or the memory bound, may
  // depend on the value: those are checked per point below.)
  bool value_dependent = false;
  for (const FieldError& e : base.errors) value_dependent |= e.field == spec.key || e.field == "(memory)";
  if (!base.ok() && !value_dependent) {
    refusal = failure(base.errors);
    return false;
  }

  // Every point checked before anything runs: a bad value anywhere means no run.
  std::vector<FieldError> errors;
  double swept_requests = 0;
  for (const std::string& value : spec.values) {
    std::vector<prefixroute::Override> with_value = overrides;
    with_value.emplace_back(spec.key, value);
    prefixroute::ScenarioParse point = prefixroute_wasm::parse_checked(scenario_json, with_value);
    for (FieldError& e : point.errors) {
      e.message += " (sweep value \"" + value.substr(0, 40) + "\")";
      errors.push_back(std::move(e));
    }
    if (point.ok())
      swept_requests += prefixroute::synthetic_bounds(point.scenario.workload).requests * point.scenario.replicates;
  }
  if (!errors.empty()) {
    refusal = failure(errors);
    return false;
  }
  if (swept_requests > kMaxSweptRequests) {
    char text[300];
    std::snprintf(text, sizeof text,
                  "this sweep would simulate %.0f requests per policy (%zu points); the module's limit is %.0f. "
                  "Use fewer steps or fewer workload.requests, or the native prefixroute --sweep",
                  swept_requests, spec.values.size(), kMaxSweptRequests);
    refusal = failure({{"(sweep)", text}});
    return false;
  }
  return true;
}

}  // namespace

// onProgress as the core's sweep callback (empty for none): false cancels; a
// throw cancels and leaves its message in `callback_error`.
prefixroute::SweepProgress sweep_progress(const val& on_progress, std::string& callback_error) {
  if (on_progress.isNull() || on_progress.isUndefined()) return {};
  return [&on_progress, &callback_error](std::size_t point, std::size_t phase, std::uint64_t done, std::uint64_t total) {
    const val answer = val::take_ownership(pr_call_sweep_progress(on_progress.as_handle(), static_cast<int>(point),
                                                                  static_cast<int>(phase), static_cast<double>(done),
                                                                  static_cast<double>(total)));
    if (answer.isUndefined()) return true;
    if (answer.isString()) callback_error = "onProgress threw: " + answer.as<std::string>();
    return false;
  };
}

val sweep_progress_refusal(const val& on_progress) {
  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  if (has_progress && on_progress.typeOf().as<std::string>() != "function")
    return failure({{"(onProgress)", "must be a function (point, phase, done, total) => boolean, or null"}});
  return val::undefined();
}

bool read_sweep_spec(const val& spec_arg, prefixroute::SweepSpec& spec, std::vector<FieldError>& errors) {
  if (!spec_arg.isString()) {
    errors.push_back({"(sweep)", "sweepSpec must be a string: key=v1,v2,... or key=from:to:steps"});
    return false;
  }
  const std::string spec_text = spec_arg.as<std::string>();
  if (spec_text.size() > kMaxSpecChars) {
    errors.push_back({"(sweep)", "sweepSpec has " + std::to_string(spec_text.size()) + " characters; at most " +
                                     std::to_string(kMaxSpecChars) + " are read"});
    return false;
  }
  std::string error;
  if (!prefixroute::parse_sweep(spec_text, spec, error)) {
    errors.push_back({"(sweep)", error});
    return false;
  }
  return true;
}



val run_sweep(const val& scenario_arg, const val& overrides_arg, const val& spec_arg, const val& on_progress) {
  const val bad_progress = sweep_progress_refusal(on_progress);
  if (!bad_progress.isUndefined()) return bad_progress;
  std::string scenario_json;
  std::vector<prefixroute::Override> overrides;
  prefixroute::SweepSpec spec;
  val refusal = val::undefined();
  if (!check_sweep(scenario_arg, overrides_arg, spec_arg, scenario_json, overrides, spec, refusal)) return refusal;

  std::string callback_error;
  const prefixroute::SweepReport report =
      prefixroute::run_sweep(scenario_json, overrides, spec, sweep_progress(on_progress, callback_error));
  if (!report.errors.empty()) return failure(report.errors);  // not expected: every point was checked
  if (val stopped = prefixroute_wasm::unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined())
    return stopped;
  val result = val::object();
  result.set("ok", true);
  result.set("sweepJson", prefixroute::sweep_to_json(spec, report));
  return result;
}

// One shard of a sweep: its runs (the points' run lists one after another) i
// with i mod shardCount == shardIndex - 1, as `prefixroute --sweep SPEC
// --shard K/N --json` writes them.
val run_sweep_shard(const val& scenario_arg, const val& overrides_arg, const val& spec_arg, const val& shard_index,
                    const val& shard_count, const val& on_progress) {
  const val bad_progress = sweep_progress_refusal(on_progress);
  if (!bad_progress.isUndefined()) return bad_progress;
  std::vector<FieldError> errors;
  prefixroute::Shard shard;
  if (!prefixroute_wasm::read_shard(shard_index, shard_count, shard, errors)) return failure(errors);
  std::string scenario_json;
  std::vector<prefixroute::Override> overrides;
  prefixroute::SweepSpec spec;
  val refusal = val::undefined();
  if (!check_sweep(scenario_arg, overrides_arg, spec_arg, scenario_json, overrides, spec, refusal)) return refusal;
  const prefixroute::SweepReport plan = prefixroute::plan_sweep(scenario_json, overrides, spec);
  if (!plan.errors.empty()) return failure(plan.errors);  // not expected: every point was checked
  std::string callback_error;
  const prefixroute::ShardReport report =
      prefixroute::run_sweep_shard(plan, shard, sweep_progress(on_progress, callback_error));
  if (val stopped = prefixroute_wasm::unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined())
    return stopped;
  val result = val::object();
  result.set("ok", true);
  result.set("shardJson", prefixroute::sweep_shard_to_json(spec, plan, report));
  return result;
}

// The sweep JSON of all N shards of one sweep, with runSweep's refusals of
// its points (each re-checked as runScenario checks a scenario) and size.
val merge_sweep_shards(const val& documents) {
  std::vector<FieldError> errors;
  std::vector<prefixroute::ShardInput> inputs;
  if (!prefixroute_wasm::read_documents(documents, inputs, errors)) return failure(errors);
  const prefixroute::MergedShards merged = prefixroute::merge_shards(inputs);
  if (!merged.ok()) return failure(merged.errors);
  if (merged.kind != prefixroute::MergedShards::Kind::Sweep)
    return failure({{"(shards)", "these are an experiment's shards (runShard): merge them with mergeShards"}});
  double swept_requests = 0;
  for (const prefixroute::SweepPoint& point : merged.sweep.points) {
    prefixroute::ScenarioParse checked = prefixroute_wasm::parse_checked(prefixroute::scenario_to_json(point.scenario), {});
    for (FieldError& e : checked.errors) {
      e.message += " (sweep value \"" + point.value.substr(0, 40) + "\")";
      errors.push_back(std::move(e));
    }
    swept_requests += prefixroute::synthetic_bounds(point.scenario.workload).requests * point.scenario.replicates;
  }
  if (!errors.empty()) return failure(errors);
  if (swept_requests > kMaxSweptRequests)
    return failure({{"(sweep)", "these shards sweep " + std::to_string(static_cast<long long>(swept_requests)) +
                                    " requests per policy; the module's limit is " +
                                    std::to_string(static_cast<long long>(kMaxSweptRequests))}});
  val result = val::object();
  result.set("ok", true);
  result.set("sweepJson", prefixroute::sweep_to_json(merged.spec, merged.sweep));
  return result;
}

// The values a sweep spec runs, as the core expands it (integer fields
// rounded): the page shows and counts points from this, never its own copy.
val expand_sweep(const val& spec_arg) {
  if (!spec_arg.isString())
    return failure({{"(sweep)", "sweepSpec must be a string: key=v1,v2,... or key=from:to:steps"}});
  const std::string spec_text = spec_arg.as<std::string>();
  if (spec_text.size() > kMaxSpecChars)
    return failure({{"(sweep)", "sweepSpec has " + std::to_string(spec_text.size()) + " characters; at most " +
                                    std::to_string(kMaxSpecChars) + " are read"}});
  prefixroute::SweepSpec spec;
  std::string error;
  if (!prefixroute::parse_sweep(spec_text, spec, error)) return failure({{"(sweep)", error}});
  val result = val::object();
  result.set("ok", true);
  result.set("key", spec.key);
  val values = val::array();
  for (std::size_t i = 0; i < spec.values.size(); ++i) values.set(i, spec.values[i]);
  result.set("values", values);
  return result;
}

}  // namespace prefixroute_wasm
