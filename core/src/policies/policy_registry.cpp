#include "prefixroute/policies/policy_registry.h"

#include "prefixroute/policies/chwbl.h"
#include "prefixroute/policies/dynamo_kv.h"
#include "prefixroute/policies/llmd_epp.h"
#include "prefixroute/policies/expected_ttft.h"
#include "prefixroute/policies/policies.h"
#include "prefixroute/policies/preble_e2.h"
#include "prefixroute/scenario.h"
#include "prefixroute/policies/sglang_cache_aware.h"

namespace prefixroute {

const std::vector<PolicyInfo>& policy_catalogue() {
  static const std::vector<PolicyInfo> catalogue = {
      {"round_robin", "Round robin", "Replicas in turn, blind to caches and load.", "#8792a2", "#9aa5b5"},
      {"least_loaded", "Least loaded", "The replica with the least queued prefill work.", "#8b5cf6", "#a78bfa"},
      {"affinity", "Affinity (naive)", "The replica with the longest cached prefix of the prompt; no load guard.",
       "#f97316", "#fb923c"},
      {"affinity_balanced", "Affinity balanced",
       "The longest cached prefix among replicas whose wait is within a slack of the least.", "#0f9f6e",
       "#34d399"},
      {"expected_ttft", "Expected TTFT (prefixroute)",
       "The least expected time to first token: queue estimate plus uncached prefill, with a credit for cache.",
       "#0284c7", "#38bdf8"},
      {"dynamo_kv", "Dynamo KV router",
       "NVIDIA Dynamo: lowest cost of prefill blocks to compute plus blocks held, from KV events.", "#e11d48",
       "#fb7185"},
      {"llmd_epp", "llm-d EPP", "llm-d endpoint picker: weighted prefix, queue and KV-usage scorers.", "#a16207",
       "#facc15"},
      {"chwbl", "KubeAI CHWBL", "KubeAI: consistent hashing of the prompt prefix with bounded loads.", "#4f46e5",
       "#818cf8"},
      {"sglang_cache_aware", "SGLang cache-aware",
       "SGLang router: approximate radix tree of routed prompts, least loaded when imbalanced.", "#db2777",
       "#f472b6"},
      {"preble_e2", "Preble E2", "Preble: exploit a long cached match, else explore the least loaded replica.",
       "#65a30d", "#a3e635"},
  };
  return catalogue;
}

bool is_known_policy(std::string_view name) {
  for (const auto& info : policy_catalogue())
    if (info.name == name) return true;
  return false;
}

std::unique_ptr<RoutingPolicy> make_policy(std::string_view name, const Scenario& scenario) {
  if (name == "round_robin") return std::make_unique<RoundRobin>();
  if (name == "least_loaded") return std::make_unique<LeastLoaded>();
  if (name == "affinity") return std::make_unique<Affinity>();
  if (name == "expected_ttft")
    return std::make_unique<ExpectedTtft>(scenario.expected_ttft, scenario.cluster.prefill.tokens_per_s);
  if (name == "affinity_balanced")
    return std::make_unique<AffinityBalanced>(seconds_to_ticks(scenario.affinity_balanced_load_slack_s));
  if (name == "dynamo_kv") return std::make_unique<DynamoKv>(scenario.dynamo, scenario.seed);
  if (name == "llmd_epp") return std::make_unique<LlmdEpp>(scenario.llmd, scenario.seed);
  if (name == "chwbl") return std::make_unique<Chwbl>(scenario.chwbl);
  if (name == "sglang_cache_aware") return std::make_unique<SglangCacheAware>(scenario.sglang);
  if (name == "preble_e2")
    return std::make_unique<PrebleE2>(scenario.preble, scenario.cluster.prefill,
                                      seconds_to_ticks(scenario.cluster.decode_ms_per_token / 1000.0),
                                      scenario.cluster.cache_tokens);
  return nullptr;
}

}  // namespace prefixroute
