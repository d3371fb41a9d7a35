#include "prefixroute/experiment.h"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "prefixroute/policy_registry.h"

namespace prefixroute {

ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress) {
  ExperimentReport report;
  const Workload workload = generate_workload(scenario.workload, scenario.seed);
  report.requests = workload.requests().size();
  report.prompt_tokens = workload.total_prompt_tokens();
  report.fingerprint = workload.fingerprint();
  for (std::size_t p = 0; p < scenario.policies.size(); ++p) {
    auto policy = make_policy(scenario.policies[p], scenario);
    ProgressCallback per_run;
    if (progress) {
      per_run = [&](std::uint64_t done) { return progress(p, done, report.requests); };
      if (!progress(p, 0, report.requests)) {
        report.cancelled = true;
        break;
      }
    }
    PolicyOutcome outcome;
    outcome.policy = scenario.policies[p];
    outcome.run = simulate(workload, scenario.cluster, *policy, per_run);
    if (outcome.run.cancelled) {
      report.cancelled = true;
      break;
    }
    outcome.summary = summarize(outcome.run);
    report.outcomes.push_back(std::move(outcome));
  }
  return report;
}

std::string results_to_json(const Scenario& scenario, const ExperimentReport& report) {
  using Json = nlohmann::ordered_json;
  Json doc = Json::object();
  doc["schema"] = "prefixroute.results/1";
  doc["scenario"] = Json::parse(scenario_to_json(scenario));
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(report.fingerprint));
  doc["workload"] = Json{{"requests", report.requests},
                         {"prompt_tokens", report.prompt_tokens},
                         {"fingerprint", hex}};
  Json results = Json::array();
  for (const PolicyOutcome& o : report.outcomes) {
    std::string label = o.policy;
    for (const auto& info : policy_catalogue())
      if (info.name == o.policy) label = std::string(info.label);
    const RunSummary& s = o.summary;
    Json row = Json::object();
    row["policy"] = o.policy;
    row["label"] = label;
    row["mean_ttft_ms"] = s.mean_ttft_ms;
    row["p50_ttft_ms"] = s.p50_ttft_ms;
    row["p90_ttft_ms"] = s.p90_ttft_ms;
    row["p99_ttft_ms"] = s.p99_ttft_ms;
    row["max_ttft_ms"] = s.max_ttft_ms;
    row["hit_rate"] = s.hit_rate;
    row["prompt_tokens"] = s.prompt_tokens;
    row["prefill_tokens"] = s.prefill_tokens;
    row["cached_tokens"] = s.cached_tokens;
    row["imbalance"] = s.imbalance;
    Json replicas = Json::array();
    for (const ReplicaTotals& r : o.run.replicas)
      replicas.push_back(Json{{"requests", r.requests},
                              {"prefill_tokens", r.prefill_tokens},
                              {"cached_tokens", r.cached_tokens},
                              {"work_ms", ticks_to_ms(r.busy_ticks)}});
    row["replicas"] = std::move(replicas);
    results.push_back(std::move(row));
  }
  doc["results"] = std::move(results);
  if (report.cancelled) doc["cancelled"] = true;
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
