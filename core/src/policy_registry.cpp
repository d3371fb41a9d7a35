#include "prefixroute/policy_registry.h"

#include "prefixroute/chwbl.h"
#include "prefixroute/dynamo_kv.h"
#include "prefixroute/llmd_epp.h"
#include "prefixroute/expected_ttft.h"
#include "prefixroute/policies.h"
#include "prefixroute/preble_e2.h"
#include "prefixroute/scenario.h"
#include "prefixroute/sglang_cache_aware.h"

namespace prefixroute {

const std::vector<PolicyInfo>& policy_catalogue() {
  static const std::vector<PolicyInfo> catalogue = {
      {"round_robin", "Round robin"},
      {"least_loaded", "Least loaded"},
      {"affinity", "Affinity (naive)"},
      {"affinity_balanced", "Affinity balanced"},
      {"expected_ttft", "Expected TTFT (prefixroute)"},
      {"dynamo_kv", "Dynamo KV router"},
      {"llmd_epp", "llm-d EPP"},
      {"chwbl", "KubeAI CHWBL"},
      {"sglang_cache_aware", "SGLang cache-aware"},
      {"preble_e2", "Preble E2"},
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
