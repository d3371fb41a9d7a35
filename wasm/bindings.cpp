// WebAssembly bindings: the whole JavaScript surface of prefixroute, in one
// EMSCRIPTEN_BINDINGS block. prefixroute.d.ts declares it for TypeScript.
//
// Two layers:
//   coarse   runScenario, validateScenario, hardwareSummary, scenarioSchema,
//            policyCatalogue, version: what the playground's worker calls. Strings in, plain JS
//            objects out; a bad scenario is a value ({ok:false, errors}), never
//            an exception.
//   library  RadixCache, Cluster (N replicas) and the four baseline routing
//            policies (RoundRobin, LeastLoaded, Affinity, AffinityBalanced),
//            mirroring the C++ API so JS can route requests one by one. These
//            are embind handles: call .delete() when done. (runScenario runs
//            every policy of the catalogue.)
//
// Rules at the boundary
//   * No C++ exception crosses into JS (3.1.6 would deliver a bare number):
//     the core does not throw, and inputs are checked here before they reach it.
//   * No JS exception is thrown from inside wasm either: it would skip C++
//     destructors and the restore of the stack pointer, leaking both on every
//     throw (measured: ~200k throws corrupt the module). Misuse of the library
//     API (tokens that are not integers in [0, 2^32), an index out of range, a
//     non-finite time) records a TypeError/RangeError with reject() and the
//     call returns normally; post.js wraps the classes' methods and
//     constructors and throws the recorded error from JavaScript.
//     runScenario's onProgress is called through a try/catch for the same
//     reason.
//   * Counts that may exceed 2^31 cross as double (WASM_BIGINT is off); times
//     cross as seconds (library) or milliseconds (series, results JSON).
//   * Bulk arrays leave as copies: a typed-array view of wasm memory goes dead
//     (length 0) when memory grows.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/policies/affinity.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/policies/least_loaded.h"
#include "prefixroute/policies/round_robin.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/synthetic.h"
#include "prefixroute/workload/workload.h"
#include "coarse_api.h"

#ifndef PREFIXROUTE_VERSION
#define PREFIXROUTE_VERSION "0.0.0"
#endif

using emscripten::EM_VAL;
using emscripten::val;

// ---------------------------------------------------------------------------
// JS helpers. EM_JS bodies run in the module's scope, where embind's Emval
// table lives; handles in, handles out.

// Length of a token sequence (Array or integer TypedArray), or -1 when `v` is
// not one, or -2 - i when element i is not an integer in [0, 2^32).
EM_JS(int, pr_tokens_check, (EM_VAL handle), {
  var v = Emval.toValue(handle);
  if (v instanceof Uint32Array) return v.length;
  var isArray = Array.isArray(v) ||
      (ArrayBuffer.isView(v) && !(v instanceof DataView) && typeof v.length === 'number' &&
       !(typeof BigInt64Array !== 'undefined' &&
         (v instanceof BigInt64Array || v instanceof BigUint64Array)));
  if (!isArray) return -1;
  for (var i = 0; i < v.length; i++) {
    var x = v[i];
    if (typeof x !== 'number' || !(x >= 0 && x <= 4294967295) || Math.floor(x) !== x) return -2 - i;
  }
  return v.length;
});

// Copies a checked token sequence into the heap at `out` (room for all of it).
EM_JS(void, pr_tokens_copy, (EM_VAL handle, std::uint32_t* out), {
  HEAPU32.set(Emval.toValue(handle), out >>> 2);
});

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

// Records the error that post.js throws when the current library call returns.
EM_JS(void, pr_reject, (const char* type, const char* message), {
  prefixrouteReject(UTF8ToString(type), UTF8ToString(message));
});

namespace {

// Records a JS error of class `type` ("TypeError" or "RangeError") for the
// current library call, which then returns a default value. Returns false.
bool reject(const char* type, const char* format, ...) {
  char message[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  pr_reject(type, message);
  return false;
}

// Reads a token sequence argument into `out`; rejects with a TypeError unless
// it is an Array or TypedArray of integers in [0, 2^32).
bool read_tokens(const val& tokens, const char* what, std::vector<prefixroute::Token>& out) {
  const int n = pr_tokens_check(tokens.as_handle());
  if (n == -1)
    return reject("TypeError", "%s: tokens must be an Array or a TypedArray (e.g. Uint32Array) of token ids", what);
  if (n < -1) return reject("TypeError", "%s: tokens[%d] must be an integer in [0, 4294967295]", what, -2 - n);
  out.resize(static_cast<std::size_t>(n));
  if (n > 0) pr_tokens_copy(tokens.as_handle(), out.data());
  return true;
}

bool check_number(double v, double min, double max, const char* what) {
  if (v >= min && v <= max) return true;
  return reject("RangeError", "%s must be a number in [%g, %g]; got %g", what, min, max, v);
}

bool check_integer(double v, double min, double max, const char* what) {
  if (v >= min && v <= max && std::floor(v) == v) return true;
  return reject("RangeError", "%s must be an integer in [%.0f, %.0f]; got %g", what, min, max, v);
}

// Library times are seconds; ticks must stay far from int64 overflow.
constexpr double kMaxSeconds = 1e9;  // ~31.7 years of simulated time

bool read_seconds(double seconds, const char* what, prefixroute::Tick& out) {
  if (!check_number(seconds, 0, kMaxSeconds, what)) return false;
  out = prefixroute::seconds_to_ticks(seconds);
  return true;
}

double ticks_to_seconds(prefixroute::Tick t) { return static_cast<double>(t) / 1e9; }

// Copies `n` elements at `data` into a new JS typed array (slice() copies:
// a view of the heap would go dead when memory grows).
val copy_out(const double* data, std::size_t n) {
  return val::take_ownership(pr_copy_f64(data, n));
}
val copy_out(const std::uint32_t* data, std::size_t n) {
  return val::take_ownership(pr_copy_u32(data, n));
}

// ---------------------------------------------------------------------------
// Coarse API.

val error_object(const std::string& field, const std::string& message) {
  val e = val::object();
  e.set("field", field);
  e.set("message", message);
  return e;
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

using prefixroute_wasm::heap_budget_errors;

// The core's estimate of a run's heap, plus the copy of one policy's TTFTs
// that run_outcome stages while it copies the series out.
double estimated_heap_bytes(const prefixroute::Scenario& s) {
  return prefixroute::estimated_peak_bytes(s) + prefixroute::synthetic_bounds(s.workload).requests * sizeof(double) +
         prefixroute_wasm::timeline_bytes(s, prefixroute::synthetic_bounds(s.workload).requests);
}

prefixroute::ScenarioParse parse_checked(const std::string& scenario_json,
                                         const std::vector<prefixroute::Override>& overrides);

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
  if (val stopped = prefixroute_wasm::unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined())
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

std::string scenario_schema() { return prefixroute::scenario_json_schema(); }

// The core's catalogue JSON, as plain JS objects.
val policy_catalogue() { return val::global("JSON")["parse"](prefixroute::policy_catalogue_json()); }

std::string version() { return PREFIXROUTE_VERSION; }

// ---------------------------------------------------------------------------
// Library API.

struct JsInsertResult {
  double cachedTokens = 0;
  double insertedTokens = 0;
  double evictedTokens = 0;
};

struct JsAdmission {
  double cachedTokens = 0;
  double prefillTokens = 0;
  double startSeconds = 0;       ///< prefill starts (after the queue ahead drains)
  double firstTokenSeconds = 0;  ///< prefill ends: time of the first output token
};

struct JsReplicaState {
  double requests = 0;
  double prefillTokens = 0;
  double cachedTokens = 0;
  double busySeconds = 0;       ///< sum of prefill times
  double busyUntilSeconds = 0;  ///< when all admitted work is done
  double cacheSize = 0;         ///< tokens in the replica's cache
  double cacheNodes = 0;
};

constexpr double kMaxCapacity = 4294967295.0;  // size_t is 32-bit in wasm32
constexpr double kMaxUint32 = 4294967295.0;

// Constructors return null after a rejection; post.js then throws.
prefixroute::RadixCache* make_cache2(double capacity_tokens, double protect_after_hits) {
  if (!check_integer(capacity_tokens, 0, kMaxCapacity, "RadixCache: capacityTokens") ||
      !check_integer(protect_after_hits, 0, kMaxUint32, "RadixCache: protectAfterHits"))
    return nullptr;
  return new prefixroute::RadixCache(static_cast<std::size_t>(capacity_tokens),
                                     static_cast<std::uint32_t>(protect_after_hits));
}

prefixroute::RadixCache* make_cache1(double capacity_tokens) {
  return make_cache2(capacity_tokens, prefixroute::RadixCache::kDefaultProtectAfterHits);
}

double cache_match(const prefixroute::RadixCache& cache, const val& tokens) {
  std::vector<prefixroute::Token> t;
  if (!read_tokens(tokens, "RadixCache.match", t)) return 0;
  return static_cast<double>(cache.match(t));
}

JsInsertResult cache_insert(prefixroute::RadixCache& cache, const val& tokens) {
  std::vector<prefixroute::Token> t;
  if (!read_tokens(tokens, "RadixCache.insert", t)) return {};
  const auto r = cache.insert(t);
  return {static_cast<double>(r.cached_tokens), static_cast<double>(r.inserted_tokens),
          static_cast<double>(r.evicted_tokens)};
}

double cache_size(const prefixroute::RadixCache& c) { return static_cast<double>(c.size()); }
double cache_capacity(const prefixroute::RadixCache& c) { return static_cast<double>(c.capacity()); }
double cache_node_count(const prefixroute::RadixCache& c) { return static_cast<double>(c.node_count()); }
double cache_protect_after_hits(const prefixroute::RadixCache& c) { return c.protect_after_hits(); }
double cache_evicted_total(const prefixroute::RadixCache& c) { return static_cast<double>(c.evicted_total()); }
std::string cache_check_invariants(const prefixroute::RadixCache& c) { return c.check_invariants(); }

// Cluster: the replicas a policy chooses among, contiguous as
// RoutingPolicy::choose() wants them. Invariant: at least one replica.
class Cluster {
 public:
  Cluster(std::uint32_t replicas, std::size_t cache_tokens, std::uint32_t protect_after_hits) {
    replicas_.reserve(replicas);
    for (std::uint32_t i = 0; i < replicas; ++i)
      replicas_.emplace_back(prefixroute::RadixCache(cache_tokens, protect_after_hits));
  }

  std::vector<prefixroute::Replica>& replicas() { return replicas_; }

  /// Replica `index`, or null (rejected with a RangeError) when out of range.
  prefixroute::Replica* at(double index, const char* what) {
    if (!check_integer(index, 0, static_cast<double>(replicas_.size()) - 1, what)) return nullptr;
    return &replicas_[static_cast<std::size_t>(index)];
  }

 private:
  std::vector<prefixroute::Replica> replicas_;
};

constexpr double kMaxReplicas = 4096;  // as cluster.replicas in a scenario

Cluster* make_cluster3(double replicas, double cache_tokens, double protect_after_hits) {
  if (!check_integer(replicas, 1, kMaxReplicas, "Cluster: replicas") ||
      !check_integer(cache_tokens, 0, kMaxCapacity, "Cluster: cacheTokens") ||
      !check_integer(protect_after_hits, 0, kMaxUint32, "Cluster: protectAfterHits"))
    return nullptr;
  return new Cluster(static_cast<std::uint32_t>(replicas), static_cast<std::size_t>(cache_tokens),
                     static_cast<std::uint32_t>(protect_after_hits));
}

Cluster* make_cluster2(double replicas, double cache_tokens) {
  return make_cluster3(replicas, cache_tokens, prefixroute::RadixCache::kDefaultProtectAfterHits);
}

double cluster_size(Cluster& c) { return static_cast<double>(c.replicas().size()); }

JsAdmission cluster_admit(Cluster& c, double index, const val& tokens, double now_seconds,
                          double prefill_tokens_per_s) {
  prefixroute::Replica* replica = c.at(index, "Cluster.admit: index");
  prefixroute::Tick now = 0;
  std::vector<prefixroute::Token> t;
  if (replica == nullptr || !read_seconds(now_seconds, "Cluster.admit: nowSeconds", now) ||
      !check_number(prefill_tokens_per_s, 1, 1e9, "Cluster.admit: prefillTokensPerS") ||
      !read_tokens(tokens, "Cluster.admit", t))
    return {};
  const auto a = replica->admit(t, now, prefixroute::PrefillModel{prefill_tokens_per_s});
  return {static_cast<double>(a.cached_tokens), static_cast<double>(a.prefill_tokens),
          ticks_to_seconds(a.start), ticks_to_seconds(a.first_token)};
}

double cluster_match(Cluster& c, double index, const val& tokens) {
  const prefixroute::Replica* replica = c.at(index, "Cluster.match: index");
  std::vector<prefixroute::Token> t;
  if (replica == nullptr || !read_tokens(tokens, "Cluster.match", t)) return 0;
  return static_cast<double>(replica->cache().match(t));
}

JsReplicaState cluster_replica(Cluster& c, double index) {
  const prefixroute::Replica* r = c.at(index, "Cluster.replica: index");
  if (r == nullptr) return {};
  return {static_cast<double>(r->requests()),       static_cast<double>(r->prefill_tokens()),
          static_cast<double>(r->cached_tokens()),  ticks_to_seconds(r->busy_ticks()),
          ticks_to_seconds(r->busy_until()),        static_cast<double>(r->cache().size()),
          static_cast<double>(r->cache().node_count())};
}

double policy_choose(prefixroute::RoutingPolicy& policy, const val& tokens, Cluster& cluster,
                     double now_seconds) {
  prefixroute::Tick now = 0;
  std::vector<prefixroute::Token> t;
  if (!read_seconds(now_seconds, "choose: nowSeconds", now) || !read_tokens(tokens, "choose", t)) return 0;
  const prefixroute::SpanContent content(t);  // the four bound policies keep no pieces
  return static_cast<double>(policy.choose(content.prompt(), cluster.replicas(), now));
}

std::string policy_name(const prefixroute::RoutingPolicy& policy) { return std::string(policy.name()); }

prefixroute::AffinityBalanced* make_affinity_balanced1(double load_slack_s) {
  // As affinity_balanced.load_slack_s in a scenario.
  if (!check_number(load_slack_s, 0, 3600, "AffinityBalanced: loadSlackSeconds")) return nullptr;
  return new prefixroute::AffinityBalanced({.load_slack_s = load_slack_s});
}

prefixroute::AffinityBalanced* make_affinity_balanced0() {
  return make_affinity_balanced1(prefixroute::AffinityBalancedParams{}.load_slack_s);
}

double affinity_balanced_load_slack(const prefixroute::AffinityBalanced& p) {
  return ticks_to_seconds(p.load_slack());
}

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

}  // namespace

// Exported for the other binding files (coarse_api.h).
namespace prefixroute_wasm {
std::vector<prefixroute::FieldError> heap_budget_errors(double need, const char* what, const char* advice) {
  if (!(need > kHeapBudgetBytes)) return {};
  char text[400];
  std::snprintf(text, sizeof text, "%s could need up to %.0f MB of memory; the WebAssembly build has %.0f MB. %s",
                what, std::ceil(need / 1e6), kHeapBudgetBytes / 1e6, advice);
  return {{"(memory)", text}};
}
val failure(const std::vector<prefixroute::FieldError>& errors) { return ::failure(errors); }
val unfinished_outcome(const std::string& callback_error, bool cancelled) {
  if (!callback_error.empty()) return failure({{"(onProgress)", callback_error}});
  if (!cancelled) return val::undefined();
  val result = failure({{"(run)", "cancelled"}});
  result.set("cancelled", true);
  return result;
}
prefixroute::ScenarioParse parse_with_overrides(const val& scenario_json, const val& overrides_json) {
  return ::parse_with_overrides(scenario_json, overrides_json);
}
prefixroute::ScenarioParse parse_checked(const std::string& scenario_json,
                                         const std::vector<prefixroute::Override>& overrides) {
  return ::parse_checked(scenario_json, overrides);
}
prefixroute::ExperimentProgress progress_callback(const val& on_progress, std::string& callback_error) {
  return ::progress_callback(on_progress, callback_error);
}
val run_outcome(const prefixroute::Scenario& scenario, prefixroute::ExperimentReport& report,
                const std::string& callback_error) {
  return ::run_outcome(scenario, report, callback_error);
}
val policy_series(prefixroute::PolicyOutcome& outcome) { return ::policy_series(outcome); }
}  // namespace prefixroute_wasm

EMSCRIPTEN_BINDINGS(prefixroute) {
  using namespace emscripten;
  using prefixroute::RadixCache;
  using prefixroute::RoutingPolicy;

  // Coarse API.
  function("runScenario", &run_scenario);
  function("validateScenario", &validate_scenario);
  function("hardwareSummary", &hardware_summary);
  function("scenarioSchema", &scenario_schema);
  function("policyCatalogue", &policy_catalogue);
  function("version", &version);
  function("memoryStats", &memory_stats);

  // Library API.
  value_object<JsInsertResult>("InsertResult")
      .field("cachedTokens", &JsInsertResult::cachedTokens)
      .field("insertedTokens", &JsInsertResult::insertedTokens)
      .field("evictedTokens", &JsInsertResult::evictedTokens);
  value_object<JsAdmission>("Admission")
      .field("cachedTokens", &JsAdmission::cachedTokens)
      .field("prefillTokens", &JsAdmission::prefillTokens)
      .field("startSeconds", &JsAdmission::startSeconds)
      .field("firstTokenSeconds", &JsAdmission::firstTokenSeconds);
  value_object<JsReplicaState>("ReplicaState")
      .field("requests", &JsReplicaState::requests)
      .field("prefillTokens", &JsReplicaState::prefillTokens)
      .field("cachedTokens", &JsReplicaState::cachedTokens)
      .field("busySeconds", &JsReplicaState::busySeconds)
      .field("busyUntilSeconds", &JsReplicaState::busyUntilSeconds)
      .field("cacheSize", &JsReplicaState::cacheSize)
      .field("cacheNodes", &JsReplicaState::cacheNodes);

  class_<RadixCache>("RadixCache")
      .constructor(&make_cache1, allow_raw_pointers())
      .constructor(&make_cache2, allow_raw_pointers())
      .function("match", &cache_match)
      .function("insert", &cache_insert)
      .function("size", &cache_size)
      .function("capacity", &cache_capacity)
      .function("nodeCount", &cache_node_count)
      .function("protectAfterHits", &cache_protect_after_hits)
      .function("evictedTotal", &cache_evicted_total)
      .function("checkInvariants", &cache_check_invariants);

  class_<Cluster>("Cluster")
      .constructor(&make_cluster2, allow_raw_pointers())
      .constructor(&make_cluster3, allow_raw_pointers())
      .function("size", &cluster_size)
      .function("admit", &cluster_admit)
      .function("match", &cluster_match)
      .function("replica", &cluster_replica);

  class_<RoutingPolicy>("RoutingPolicy")
      .function("choose", &policy_choose)
      .function("name", &policy_name);
  class_<prefixroute::RoundRobin, base<RoutingPolicy>>("RoundRobin").constructor<>();
  class_<prefixroute::LeastLoaded, base<RoutingPolicy>>("LeastLoaded").constructor<>();
  class_<prefixroute::Affinity, base<RoutingPolicy>>("Affinity").constructor<>();
  class_<prefixroute::AffinityBalanced, base<RoutingPolicy>>("AffinityBalanced")
      .constructor(&make_affinity_balanced0, allow_raw_pointers())
      .constructor(&make_affinity_balanced1, allow_raw_pointers())
      .function("loadSlackSeconds", &affinity_balanced_load_slack);
}
