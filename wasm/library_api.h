// The library API of the module: RadixCache, Cluster (N replicas) and the four
// baseline routing policies (RoundRobin, LeastLoaded, Affinity,
// AffinityBalanced), mirroring the C++ API so JavaScript can route requests
// one by one. They are embind handles: call .delete() when done.
//
// Misuse (tokens that are not integers in [0, 2^32), an index out of range, a
// non-finite time) records a TypeError or RangeError and the call returns a
// default value; post.js throws the recorded error from JavaScript (a JS
// exception thrown inside wasm would skip C++ destructors). Times cross as
// seconds; counts as double (WASM_BIGINT is off).
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/cluster/replica.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute_wasm {

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

/// Cluster: the replicas a policy chooses among, contiguous as
/// RoutingPolicy::choose() wants them. Invariant: at least one replica.
class Cluster {
 public:
  Cluster(std::uint32_t replicas, std::size_t cache_tokens, std::uint32_t protect_after_hits);

  std::vector<prefixroute::Replica>& replicas() { return replicas_; }

  /// Replica `index`, or null (rejected with a RangeError) when out of range.
  prefixroute::Replica* at(double index, const char* what);

 private:
  std::vector<prefixroute::Replica> replicas_;
};

// Constructors return null after a rejection; post.js then throws.
prefixroute::RadixCache* make_cache1(double capacity_tokens);
prefixroute::RadixCache* make_cache2(double capacity_tokens, double protect_after_hits);
double cache_match(const prefixroute::RadixCache& cache, const emscripten::val& tokens);
JsInsertResult cache_insert(prefixroute::RadixCache& cache, const emscripten::val& tokens);
double cache_size(const prefixroute::RadixCache& c);
double cache_capacity(const prefixroute::RadixCache& c);
double cache_node_count(const prefixroute::RadixCache& c);
double cache_protect_after_hits(const prefixroute::RadixCache& c);
double cache_evicted_total(const prefixroute::RadixCache& c);
std::string cache_check_invariants(const prefixroute::RadixCache& c);

Cluster* make_cluster2(double replicas, double cache_tokens);
Cluster* make_cluster3(double replicas, double cache_tokens, double protect_after_hits);
double cluster_size(Cluster& c);
JsAdmission cluster_admit(Cluster& c, double index, const emscripten::val& tokens, double now_seconds,
                          double prefill_tokens_per_s);
double cluster_match(Cluster& c, double index, const emscripten::val& tokens);
JsReplicaState cluster_replica(Cluster& c, double index);

double policy_choose(prefixroute::RoutingPolicy& policy, const emscripten::val& tokens, Cluster& cluster,
                     double now_seconds);
std::string policy_name(const prefixroute::RoutingPolicy& policy);
prefixroute::AffinityBalanced* make_affinity_balanced0();
prefixroute::AffinityBalanced* make_affinity_balanced1(double load_slack_s);
double affinity_balanced_load_slack(const prefixroute::AffinityBalanced& p);

}  // namespace prefixroute_wasm
