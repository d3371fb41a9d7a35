// Small scenarios for the run-list, replicate and shard tests: fast enough
// to run many times (a few hundred requests), every policy listed.
#pragma once

#include <string>
#include <vector>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute::testing_support {

/// 300 requests, 3 replicas, small prefixes; `extra` overrides on top.
inline Scenario small(const std::vector<Override>& extra = {}) {
  std::vector<Override> o = {{"workload.requests", "300"},      {"workload.tenants", "5"},
                             {"workload.prefix_tokens_min", "40"}, {"workload.prefix_tokens_max", "120"},
                             {"workload.turn_tokens_min", "5"},  {"workload.turn_tokens_max", "30"},
                             {"cluster.replicas", "3"},          {"cluster.cache_tokens", "300"},
                             {"workload.arrival_rate_per_s", "50"}, {"cluster.prefill_tokens_per_s", "5000"},
                             {"policies", "all"}};
  o.insert(o.end(), extra.begin(), extra.end());
  ScenarioParse p = parse_scenario("", o);
  return p.scenario;  // callers assert validate(...) is empty
}

}  // namespace prefixroute::testing_support
