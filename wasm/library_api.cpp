#include "library_api.h"

#include <emscripten/emscripten.h>

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "prefixroute/base/content.h"
#include "prefixroute/cluster/prefill_model.h"

using emscripten::EM_VAL;
using emscripten::val;

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

// Records the error that post.js throws when the current library call returns.
EM_JS(void, pr_reject, (const char* type, const char* message), {
  prefixrouteReject(UTF8ToString(type), UTF8ToString(message));
});

namespace prefixroute_wasm {
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

constexpr double kMaxCapacity = 4294967295.0;  // size_t is 32-bit in wasm32
constexpr double kMaxUint32 = 4294967295.0;
constexpr double kMaxReplicas = 4096;  // as cluster.replicas in a scenario

}  // namespace

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

Cluster::Cluster(std::uint32_t replicas, std::size_t cache_tokens, std::uint32_t protect_after_hits) {
  replicas_.reserve(replicas);
  for (std::uint32_t i = 0; i < replicas; ++i)
    replicas_.emplace_back(prefixroute::RadixCache(cache_tokens, protect_after_hits));
}

prefixroute::Replica* Cluster::at(double index, const char* what) {
  if (!check_integer(index, 0, static_cast<double>(replicas_.size()) - 1, what)) return nullptr;
  return &replicas_[static_cast<std::size_t>(index)];
}

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


}  // namespace prefixroute_wasm
