// WebAssembly bindings for trace replay: a TraceLoader that reads a
// Mooncake-format JSONL trace in chunks (the core's incremental TraceReader),
// and runTrace, which runs a scenario's policies on the loaded trace. Kept in
// its own EMSCRIPTEN_BINDINGS block; prefixroute.d.ts declares it.
//
//   const loader = new pr.TraceLoader('conversation.jsonl', scenarioJson, overridesJson);
//   for (const chunk of chunks) if (!loader.feed(chunk).going) break;  // string or bytes
//   const loaded = loader.finish();          // { ok, lines, requests, problems, ... }
//   const run = pr.runTrace(loader, scenarioJson, overridesJson, onProgress);
//   loader.delete();
//
// The same bytes as the command line: `prefixroute-bench --trace FILE --json`
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
// on_error) are fixed when the loader is made; runTrace refuses a scenario
// whose settings differ, naming the field, because the trace would have to be
// read again.
//
// The argument checks, the overrides format and failure() are bindings.cpp's
// (coarse_api.h); the memory bound is this file's own, because a trace's size
// is known from the file, not from the scenario's workload fields.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "prefixroute/experiment.h"
#include "prefixroute/base/hashing.h"
#include "prefixroute/scenario.h"
#include "prefixroute/workload/trace_reader.h"
#include "coarse_api.h"

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

namespace {

using prefixroute::FieldError;
using prefixroute::Scenario;
using prefixroute::ScenarioParse;
using prefixroute::TraceReadOptions;
using prefixroute_wasm::failure;
using prefixroute_wasm::heap_budget_errors;
using prefixroute_wasm::parse_overrides;
using prefixroute_wasm::progress_callback;
using prefixroute_wasm::run_outcome;

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
  if (!parse_overrides(overrides_arg.as<std::string>(), overrides, error)) {
    result.errors.push_back({"(overrides)", error});
    return result;
  }
  return prefixroute::parse_scenario(scenario_arg.as<std::string>(), overrides);
}

TraceReadOptions read_options(const Scenario& s) {
  TraceReadOptions o;
  o.block_size = s.trace.block_size;
  o.time_scale = s.trace.time_scale;
  o.limit = s.trace.limit;
  o.on_error = s.trace.on_error == "skip" ? TraceReadOptions::OnError::Skip : TraceReadOptions::OnError::Stop;
  return o;
}

// A replay that could outgrow the wasm heap is refused up front
// (kHeapBudgetBytes, coarse_api.h), with the per-token and per-node costs
// bindings.cpp uses for the synthetic workload. Every request is inserted into
// exactly one replica, so all replicas' caches together never hold more than
// the trace's prompt tokens; the ideal bound and a router's own tree hold at
// most every distinct token, bounded by the prompt tokens too.

double estimated_heap_bytes(const Scenario& s, const prefixroute::BlockTrace& trace, double prompt_tokens,
                            double max_prompt) {
  const double requests = static_cast<double>(trace.size());
  const double replicas = s.cluster.replicas;
  const double runs = static_cast<double>(s.policies.size()) * requests * (8 + 4 + 4) + requests * 8;
  auto tree_bytes = [&](double tokens) { return tokens * 6 + (std::min(2 * requests, tokens) + replicas) * 200; };
  const double replica_tokens =
      std::min(replicas * (static_cast<double>(s.cluster.cache_tokens) + max_prompt), prompt_tokens);
  return runs + tree_bytes(replica_tokens) + tree_bytes(prompt_tokens);
}

// A trace read in chunks. States: reading (feed) -> finished (finish; the
// trace is kept when it was read without a fatal problem). A loader made from
// an invalid scenario starts finished, with the scenario's problems.
class TraceLoader {
 public:
  TraceLoader(std::string name, const val& scenario_json, const val& overrides_json) : name_(std::move(name)) {
    const ScenarioParse parsed = parse(scenario_json, overrides_json);
    if (!parsed.ok()) {
      for (const auto& e : parsed.errors) setup_problems_.push_back({0, e.field, e.message});
      finished_ = true;
      return;
    }
    options_ = read_options(parsed.scenario);
    reader_ = std::make_unique<prefixroute::TraceReader>(options_);
  }

  const std::string& name() const { return name_; }
  const TraceReadOptions& options() const { return options_; }
  bool finished() const { return finished_; }
  const prefixroute::BlockTrace* trace() const { return result_.trace.get(); }
  const prefixroute::TraceReadResult& result() const { return result_; }
  double prompt_tokens() const { return prompt_tokens_; }
  double max_prompt() const { return max_prompt_; }

  val feed(const val& chunk) {
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
        // After trace.limit requests the reader only hashes: keep reading, so
        // the content hash is the whole file's, as the command line's.
        going_ = reader_->feed(text) || (options_.limit > 0 && reader_->requests() >= options_.limit);
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

  val finish() {
    if (!finished_) {
      finished_ = true;
      result_ = reader_->finish();
      reader_.reset();
      if (result_.trace) {
        for (std::size_t i = 0; i < result_.trace->size(); ++i) {
          const double tokens = static_cast<double>(result_.trace->prompt_tokens(i));
          prompt_tokens_ += tokens;
          max_prompt_ = std::max(max_prompt_, tokens);
        }
      }
    }
    return describe();
  }

  /// The first problem as "line N, field: message" (the loader's setup
  /// problems first).
  std::string first_problem() const {
    const auto& list = setup_problems_.empty() ? result_.problems : setup_problems_;
    if (list.empty()) return "no problem recorded";
    return setup_problems_.empty() ? list[0].text() : list[0].field + ": " + list[0].message;
  }

  /// What finish() returned: the state of a finished loader.
  val describe() const {
    val out = val::object();
    out.set("ok", result_.trace != nullptr);
    out.set("name", name_);
    out.set("bytes", bytes_);
    out.set("lines", static_cast<double>(result_.lines));
    out.set("requests", result_.trace ? static_cast<double>(result_.trace->size()) : 0.0);
    out.set("skippedLines", static_cast<double>(result_.bad_lines));
    out.set("promptTokens", prompt_tokens_);
    out.set("contentHash", finished_ && setup_problems_.empty() ? prefixroute::hashing::to_hex16(result_.content_hash) : std::string());
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

 private:
  std::string name_;
  TraceReadOptions options_;
  std::unique_ptr<prefixroute::TraceReader> reader_;
  prefixroute::TraceReadResult result_;
  std::vector<prefixroute::TraceProblem> setup_problems_;
  double bytes_ = 0;
  double prompt_tokens_ = 0;
  double max_prompt_ = 0;
  bool going_ = true;
  bool finished_ = false;
};

// The file name only, at most 256 bytes, as the command line records it.
std::string base_name(const std::string& name) {
  const auto slash = name.find_last_of("/\\");
  return (slash == std::string::npos ? name : name.substr(slash + 1)).substr(0, 256);
}

TraceLoader* make_loader(const val& name, const val& scenario_json, const val& overrides_json) {
  const std::string text = name.isString() ? name.as<std::string>() : std::string();
  auto* loader = new TraceLoader(base_name(text), scenario_json, overrides_json);
  return loader;
}

val loader_feed(TraceLoader& loader, const val& chunk) { return loader.feed(chunk); }
val loader_finish(TraceLoader& loader) { return loader.finish(); }


val run_trace(TraceLoader& loader, const val& scenario_json, const val& overrides_json, const val& on_progress) {
  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  if (has_progress && on_progress.typeOf().as<std::string>() != "function")
    return failure({{"(onProgress)", "must be a function (policyIndex, done, total) => boolean, or null"}});
  if (!loader.finished())
    return failure({{"(trace)", "the trace is still being read: call finish() on the loader first"}});
  if (loader.trace() == nullptr)
    return failure({{"(trace)", "the trace could not be read: " + loader.first_problem()}});

  ScenarioParse parsed = parse(scenario_json, overrides_json);
  if (!parsed.ok()) return failure(parsed.errors);
  Scenario& scenario = parsed.scenario;

  // The trace was read with the loader's settings; other settings would need
  // another read.
  const TraceReadOptions want = read_options(scenario);
  const TraceReadOptions& have = loader.options();
  std::vector<FieldError> errors;
  auto differs = [&](const char* field, const std::string& read_with) {
    errors.push_back({field, std::string("the trace was read with ") + read_with +
                                 "; make a new TraceLoader with this value to replay it so"});
  };
  if (want.block_size != have.block_size) differs("trace.block_size", std::to_string(have.block_size));
  if (want.time_scale != have.time_scale) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", have.time_scale);
    differs("trace.time_scale", text);
  }
  if (want.limit != have.limit) differs("trace.limit", std::to_string(have.limit));
  if (want.on_error != have.on_error)
    differs("trace.on_error", have.on_error == TraceReadOptions::OnError::Skip ? "skip" : "stop");
  if (!errors.empty()) return failure(errors);

  const std::string hash = prefixroute::hashing::to_hex16(loader.result().content_hash);
  if (!scenario.trace.content_hash.empty() && scenario.trace.content_hash != hash)
    return failure({{"trace.content_hash", "the scenario expects " + scenario.trace.content_hash + " but " +
                                               loader.name() + " hashes to " + hash +
                                               " (a different file or version)"}});
  scenario.trace.name = loader.name();
  scenario.trace.lines = loader.result().lines;
  scenario.trace.skipped_lines = loader.result().bad_lines;
  scenario.trace.content_hash = hash;
  if (scenario.trace.name.empty())
    return failure({{"trace.name", "the loader has no file name; give one to new TraceLoader(name, ...)"}});

  errors = prefixroute::check_replay(scenario, *loader.trace());
  if (!errors.empty()) return failure(errors);
  errors = heap_budget_errors(
      estimated_heap_bytes(scenario, *loader.trace(), loader.prompt_tokens(), loader.max_prompt()), "this replay",
      "Lower cluster.cache_tokens, replay fewer requests (trace.limit), "
      "or run the native benchmark (prefixroute-bench --trace)");
  if (!errors.empty()) return failure(errors);

  std::string callback_error;
  prefixroute::ExperimentReport report =
      prefixroute::run_experiment(scenario, progress_callback(on_progress, callback_error), loader.trace());
  val result = run_outcome(scenario, report, callback_error);
  if (result["ok"].as<bool>()) result.set("scenarioJson", prefixroute::scenario_to_json(scenario));
  return result;
}

}  // namespace

EMSCRIPTEN_BINDINGS(prefixroute_trace) {
  using namespace emscripten;
  class_<TraceLoader>("TraceLoader")
      .constructor(&make_loader, allow_raw_pointers())
      .function("feed", &loader_feed)
      .function("finish", &loader_finish);
  function("runTrace", &run_trace);
}
