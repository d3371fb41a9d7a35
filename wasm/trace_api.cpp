#include "trace_api.h"

#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/base/hashing.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/io/trace_summary_json.h"
#include "prefixroute/run/trace_summary.h"
#include "prefixroute/run/shard.h"
#include "prefixroute/run/sweep.h"
#include "prefixroute/run/sweep_replay.h"
#include "prefixroute/workload/trace_reader.h"
#include "coarse_api.h"
#include "shard_api.h"
#include "sweep_api.h"

using emscripten::EM_VAL;
using emscripten::val;

// Kind of a feed() chunk: 1 a string, 2 bytes (Uint8Array, Int8Array,
// Uint8ClampedArray, ArrayBuffer, DataView); 0 anything else.
EM_JS(int, pr_trace_chunk_kind, (EM_VAL handle), {
  var v = Emval.toValue(handle);
  if (typeof v === 'string') return 1;
  if (v instanceof ArrayBuffer || v instanceof Uint8Array || v instanceof Int8Array ||
      v instanceof Uint8ClampedArray || v instanceof DataView) return 2;
  return 0;
});

// Byte length of a bytes chunk (kind 2).
EM_JS(double, pr_trace_chunk_bytes, (EM_VAL handle), {
  var v = Emval.toValue(handle);
  return v.byteLength;
});

// Copies a bytes chunk (kind 2) into the heap at `out`.
EM_JS(void, pr_trace_chunk_copy, (EM_VAL handle, char* out), {
  var v = Emval.toValue(handle);
  var bytes = v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  HEAPU8.set(bytes, out);
});

namespace prefixroute_wasm {
namespace {

using prefixroute::FieldError;
using prefixroute::Scenario;
using prefixroute::ScenarioParse;
using prefixroute::TraceReadOptions;

// Parses scenarioJson + overridesJson as the command line parses --scenario
// and --set; a trace.name in it is allowed (the loader's file replaces it).
ScenarioParse parse(const val& scenario_arg, const val& overrides_arg) {
  ScenarioParse result;
  if (!scenario_arg.isString())
    result.errors.push_back({"(document)", "scenarioJson must be a string (\"\" for the reference scenario)"});
  if (!overrides_arg.isString())
    result.errors.push_back({"(overrides)", "overridesJson must be a string (\"\" for none)"});
  if (!result.ok()) return result;
  std::vector<prefixroute::Override> overrides;
  std::string error;
  if (!prefixroute::parse_override_pairs(overrides_arg.as<std::string>(), overrides, error)) {
    result.errors.push_back({"(overrides)", error});
    return result;
  }
  return prefixroute::parse_scenario(scenario_arg.as<std::string>(), overrides);
}

// A replay that could outgrow the wasm heap is refused up front
// (kHeapBudgetBytes, coarse_api.h): the core's estimate for the trace's size,
// plus the copy of one policy's TTFTs that run_outcome stages.
double estimated_heap_bytes(const Scenario& s, const prefixroute::ReplaySize& size) {
  return prefixroute::estimated_peak_bytes(s, &size) + size.requests * sizeof(double) +
         prefixroute_wasm::timeline_bytes(s, size.requests);
}

}  // namespace

TraceLoader::TraceLoader(std::string name, const val& scenario_json, const val& overrides_json) : name_(std::move(name)) {
  const ScenarioParse parsed = parse(scenario_json, overrides_json);
  if (!parsed.ok()) {
    for (const auto& e : parsed.errors) setup_problems_.push_back({0, e.field, e.message, ""});
    finished_ = true;
    return;
  }
  options_ = prefixroute::trace_read_options(parsed.scenario.trace);
  reader_ = std::make_unique<prefixroute::TraceReader>(options_);
}

val TraceLoader::feed(const val& chunk) {
  std::string error;
  if (finished_) {
    error = setup_problems_.empty() ? "the loader has finished; make a new TraceLoader to read another trace"
                                    : "the loader could not start: " + setup_problems_[0].field + ": " +
                                          setup_problems_[0].message;
  } else {
    const int kind = pr_trace_chunk_kind(chunk.as_handle());
    if (kind == 0) {
      error = "chunk must be a string or bytes (Uint8Array, ArrayBuffer)";
    } else if (going_) {
      std::string text;
      if (kind == 1) {
        text = chunk.as<std::string>();
      } else {
        text.resize(static_cast<std::size_t>(pr_trace_chunk_bytes(chunk.as_handle())));
        if (!text.empty()) pr_trace_chunk_copy(chunk.as_handle(), text.data());
      }
      bytes_ += static_cast<double>(text.size());
      // After trace.limit requests (or past trace.end_s) the reader only
      // hashes: keep reading, so the content hash is the whole file's, as
      // the command line's.
      going_ = reader_->feed(text) || reader_->done();
    }
  }
  val status = val::object();
  status.set("going", going_ && error.empty());
  status.set("bytes", bytes_);
  status.set("lines", reader_ ? static_cast<double>(reader_->lines()) : 0.0);
  status.set("requests", reader_ ? static_cast<double>(reader_->requests()) : 0.0);
  status.set("error", error);
  return status;
}

val TraceLoader::finish() {
  if (!finished_) {
    finished_ = true;
    result_ = reader_->finish();
    // After finish(): a last line without a newline may be the first to tell the format.
    format_ = reader_->format();
    reader_.reset();
    // The figures (size, prompt tokens, fingerprint) once, for every runTrace.
    if (result_.trace) {
      replay_ = std::make_unique<prefixroute::InMemoryReplay>(*result_.trace);
      size_ = replay_->figures().size;
      // What was read, for the page's import (`prefixroute --trace FILE --trace-summary --json`'s bytes).
      summary_json_ = prefixroute::trace_summary_to_json(
          prefixroute::summarize_trace(name_, result_, options_, *replay_));
    }
  }
  return describe();
}

std::string TraceLoader::first_problem() const {
  const auto& list = setup_problems_.empty() ? result_.problems : setup_problems_;
  if (list.empty()) return "no problem recorded";
  return setup_problems_.empty() ? list[0].text() : list[0].field + ": " + list[0].message;
}

val TraceLoader::describe() const {
  val out = val::object();
  out.set("ok", result_.trace != nullptr);
  out.set("name", name_);
  out.set("bytes", bytes_);
  out.set("lines", static_cast<double>(result_.lines));
  out.set("requests", result_.trace ? static_cast<double>(result_.trace->size()) : 0.0);
  out.set("skippedLines", static_cast<double>(result_.bad_lines));
  out.set("format", std::string(prefixroute::trace_format_name(format_)));
  out.set("promptTokens", size_.prompt_tokens);
  out.set("contentHash", finished_ && setup_problems_.empty() ? prefixroute::hashing::to_hex16(result_.content_hash) : std::string());
  out.set("summaryJson", summary_json_);
  val problems = val::array();
  const auto& list = setup_problems_.empty() ? result_.problems : setup_problems_;
  for (std::size_t i = 0; i < list.size(); ++i) {
    val p = val::object();
    p.set("line", static_cast<double>(list[i].line));
    p.set("field", list[i].field);
    p.set("message", list[i].message);
    problems.set(i, p);
  }
  out.set("problems", problems);
  // Problems beyond the first 100 are counted, not kept.
  const double kept = static_cast<double>(result_.problems.size());
  out.set("unlistedProblems", std::max(0.0, static_cast<double>(result_.bad_lines) - kept));
  return out;
}

TraceLoader* make_loader(const val& name, const val& scenario_json, const val& overrides_json) {
  const std::string text = name.isString() ? name.as<std::string>() : std::string();
  auto* loader = new TraceLoader(prefixroute::trace_file_name(text), scenario_json, overrides_json);
  return loader;
}

val loader_feed(TraceLoader& loader, const val& chunk) { return loader.feed(chunk); }
val loader_finish(TraceLoader& loader) { return loader.finish(); }

// runTrace's and runTraceShard's checks (runTraceCapacity's too): the callback, the loader's state,
// the scenario, its reading settings against the loader's, the replay record
// and the memory bound. Fills `scenario` (trace recorded) and returns
// undefined when the run may go ahead, else the failure value.
val check_trace_run(TraceLoader& loader, const val& scenario_json, const val& overrides_json, const val& on_progress,
                    Scenario& scenario) {
  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  if (has_progress && on_progress.typeOf().as<std::string>() != "function")
    return failure({{"(onProgress)", "must be a function (policyIndex, done, total) => boolean, or null"}});
  if (!loader.finished())
    return failure({{"(trace)", "the trace is still being read: call finish() on the loader first"}});
  if (loader.trace() == nullptr)
    return failure({{"(trace)", "the trace could not be read: " + loader.first_problem()}});

  ScenarioParse parsed = parse(scenario_json, overrides_json);
  if (!parsed.ok()) return failure(parsed.errors);
  scenario = std::move(parsed.scenario);

  // The trace was read with the loader's settings; other settings would need
  // another read.
  std::vector<FieldError> errors = prefixroute::differing_read_settings(scenario.trace, loader.options());
  if (!errors.empty()) return failure(errors);
  errors = prefixroute::record_replay(scenario, loader.name(), loader.result(), loader.size());
  if (!errors.empty()) return failure(errors);
  errors = heap_budget_errors(
      estimated_heap_bytes(scenario, loader.size()), "this replay",
      "Lower cluster.cache_tokens, replay fewer requests (trace.limit), "
      "or run the native command line (prefixroute --trace)");
  if (!errors.empty()) return failure(errors);
  return val::undefined();
}

val run_trace(TraceLoader& loader, const val& scenario_json, const val& overrides_json, const val& on_progress) {
  Scenario scenario;
  val refused = check_trace_run(loader, scenario_json, overrides_json, on_progress, scenario);
  if (!refused.isUndefined()) return refused;
  std::string callback_error;
  prefixroute::ExperimentReport report =
      prefixroute::run_experiment(scenario, progress_callback(on_progress, callback_error), loader.replay(), 1,
                                  /*record_timeline=*/true);
  val result = run_outcome(scenario, report, callback_error);
  if (result["ok"].as<bool>()) result.set("scenarioJson", prefixroute::scenario_to_json(scenario));
  return result;
}

// One shard of runTrace's work on the loaded trace (the page's pool of
// workers: each worker holds the trace once and runs its share of the
// policies). Checks as runTrace plus "(shard)"; the document is
// `prefixroute --trace FILE --shard K/N --json`'s; mergeShards of all N
// gives runTrace's resultsJson.
val run_trace_shard(TraceLoader& loader, const val& scenario_json, const val& overrides_json, const val& shard_index,
                    const val& shard_count, const val& on_progress) {
  std::vector<FieldError> errors;
  prefixroute::Shard shard;
  if (!prefixroute_wasm::read_shard(shard_index, shard_count, shard, errors)) return failure(errors);
  Scenario scenario;
  val refused = check_trace_run(loader, scenario_json, overrides_json, on_progress, scenario);
  if (!refused.isUndefined()) return refused;
  std::string callback_error;
  prefixroute::ShardReport report = prefixroute::run_experiment_shard(
      scenario, shard, progress_callback(on_progress, callback_error), loader.replay(), 1, /*keep_series=*/true);
  val result = prefixroute_wasm::shard_outcome(scenario, report, callback_error);
  if (result["ok"].as<bool>()) result.set("scenarioJson", prefixroute::scenario_to_json(scenario));
  return result;
}

// A sweep of the loaded trace (run/sweep_replay.h): every point replays it,
// as `prefixroute --trace FILE --sweep SPEC --json` does, with runSweep's
// checks of the spec and points, runTrace's of the trace (reading settings,
// the replay record, the memory bound, per point) and runSweep's bound on
// the requests simulated (points x the trace's requests).
val run_trace_sweep(TraceLoader& loader, const val& scenario_json, const val& overrides_json, const val& spec_arg,
                    const val& on_progress) {
  if (val refused = sweep_progress_refusal(on_progress); !refused.isUndefined()) return refused;
  if (!loader.finished())
    return failure({{"(trace)", "the trace is still being read: call finish() on the loader first"}});
  if (loader.trace() == nullptr)
    return failure({{"(trace)", "the trace could not be read: " + loader.first_problem()}});
  std::vector<FieldError> errors;
  prefixroute::SweepSpec spec;
  if (!read_sweep_spec(spec_arg, spec, errors)) return failure(errors);
  errors = prefixroute::sweep_replay_key_errors(spec);
  if (!errors.empty()) return failure(errors);
  if (!scenario_json.isString()) errors.push_back({"(document)", "scenarioJson must be a string (\"\" for the reference scenario)"});
  if (!overrides_json.isString()) errors.push_back({"(overrides)", "overridesJson must be a string (\"\" for none)"});
  if (!errors.empty()) return failure(errors);
  std::vector<prefixroute::Override> overrides;
  std::string error;
  if (!prefixroute::parse_override_pairs(overrides_json.as<std::string>(), overrides, error))
    return failure({{"(overrides)", error}});

  prefixroute::SweepReport plan = prefixroute::plan_sweep(scenario_json.as<std::string>(), overrides, spec);
  if (!plan.errors.empty()) return failure(plan.errors);
  errors = prefixroute::record_sweep_replay(plan, spec, loader.options(), loader.name(), loader.result(), loader.size());
  if (!errors.empty()) return failure(errors);
  // The points run one after another and each releases its series: the largest point bounds the memory.
  double need = 0;
  for (const prefixroute::SweepPoint& point : plan.points) need = std::max(need, estimated_heap_bytes(point.scenario, loader.size()));
  errors = heap_budget_errors(need, "this sweep's largest point",
                              "Lower cluster.cache_tokens, replay fewer requests (trace.limit), "
                              "or run the native command line (prefixroute --trace FILE --sweep SPEC)");
  if (!errors.empty()) return failure(errors);
  const double swept = static_cast<double>(plan.points.size()) * loader.size().requests;
  if (swept > kMaxSweptRequests) {
    char text[300];
    std::snprintf(text, sizeof text,
                  "this sweep would replay %.0f requests per policy (%zu points of %.0f); the module's limit is %.0f. "
                  "Use fewer steps or a shorter trace (trace.limit), or the native prefixroute --trace FILE --sweep SPEC",
                  swept, plan.points.size(), loader.size().requests, kMaxSweptRequests);
    return failure({{"(sweep)", text}});
  }
  std::string callback_error;
  const prefixroute::SweepReport report =
      prefixroute::run_planned_sweep(std::move(plan), sweep_progress(on_progress, callback_error), 1, loader.replay());
  if (val stopped = unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined()) return stopped;
  val result = val::object();
  result.set("ok", true);
  result.set("sweepJson", prefixroute::sweep_to_json(spec, report));
  return result;
}

}  // namespace prefixroute_wasm
