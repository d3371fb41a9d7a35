#include "prefixroute/experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

#include "prefixroute/base/hashing.h"
#include "prefixroute/hardware_summary.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute {

std::vector<FieldError> check_replay(const Scenario& scenario, double prompt_tokens) {
  std::vector<FieldError> errors;
  const double tokens = prompt_tokens;
  const double rate = scenario.cluster.prefill.tokens_per_s;
  const double prefill_s = tokens / rate;
  if (!(prefill_s <= kMaxPrefillSeconds)) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "the trace's total prompt tokens (%.0f) / cluster.prefill_tokens_per_s (%g) (the longest "
                  "possible prefill work) must be at most %g s; got %g s. Raise cluster.prefill_tokens_per_s "
                  "to at least %g or replay fewer requests (trace.limit)",
                  tokens, rate, kMaxPrefillSeconds, prefill_s, std::ceil(tokens / kMaxPrefillSeconds));
    errors.push_back({"cluster.prefill_tokens_per_s", text});
  }
  return errors;
}

std::vector<FieldError> check_replay(const Scenario& scenario, const ReplaySize& size) {
  std::vector<FieldError> errors = check_replay(scenario, size.prompt_tokens);
  const ClusterConfig& c = scenario.cluster;
  if (errors.empty() && (c.engine == EngineKind::Batched || !(c.step == StepCosts{}))) {
    const double busy = worst_busy_seconds(c, size.requests, size.prompt_tokens, size.max_prompt_tokens,
                                           c.engine == EngineKind::Batched ? size.output_tokens : 0,
                                           size.max_output_tokens);
    if (!(busy <= kMaxPrefillSeconds)) {
      char text[512];
      std::snprintf(text, sizeof text,
                    "the trace's longest possible busy time under the step model (%g s, from its %.0f prompt and "
                    "%.0f output tokens) must be at most %g s; raise the prefill rate, lower the step costs or "
                    "replay fewer requests (trace.limit)",
                    busy, size.prompt_tokens, size.output_tokens, kMaxPrefillSeconds);
      errors.push_back({"cluster.prefill_tokens_per_s", text});
    }
  }
  return errors;
}

ReplaySize replay_size(const RequestTrace& trace) {
  ReplaySize size;
  size.requests = static_cast<double>(trace.size());
  PromptPieces prompt;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto tokens = static_cast<double>(trace.prompt_tokens(i));
    size.prompt_tokens += tokens;
    size.max_prompt_tokens = std::max(size.max_prompt_tokens, tokens);
    const auto output = static_cast<double>(trace.output_tokens(i));
    size.output_tokens += output;
    size.max_output_tokens = std::max(size.max_output_tokens, output);
    trace.prompt(i, prompt);
    size.pieces += static_cast<double>(prompt.pieces.size());
  }
  return size;
}

double estimated_peak_bytes(const Scenario& s, const ReplaySize* replay) {
  const WorkloadConfig& w = s.workload;
  const double replicas = s.cluster.replicas;
  const double requests = replay != nullptr ? replay->requests : static_cast<double>(w.requests);
  // Every distinct token (each tenant prefix and each user turn, or every
  // prompt token of a trace) and the longest prompt.
  const double distinct = replay != nullptr ? replay->prompt_tokens
                                            : static_cast<double>(w.tenants) * w.prefix_tokens_max +
                                                  requests * w.turn_tokens_max;
  const double prompt_max =
      replay != nullptr ? replay->max_prompt_tokens : static_cast<double>(w.prefix_tokens_max) + w.turn_tokens_max;
  // An insert adds at most two nodes and a node holds at least one token;
  // every tree also has a root. An insert stores at most its prompt's pieces
  // (a new leaf) plus one more (a split piece), so a tree holds at most every
  // prompt's pieces plus one per request.
  const double pieces = (replay != nullptr ? replay->pieces : 2 * requests) + requests;
  const auto tree = [&](double tokens, double trees) {
    return RadixCache::estimated_bytes(std::min(2 * requests, tokens) + trees, pieces);
  };
  // The replicas' caches: each at most its budget plus the prompt being
  // inserted, and together never more than every distinct token per replica
  // (a prefix may sit on every replica, a turn or a trace's tokens on one).
  const double replica_tokens =
      std::min(replicas * (static_cast<double>(s.cluster.cache_tokens) + prompt_max),
               replay != nullptr ? distinct : replicas * w.tenants * w.prefix_tokens_max + requests * w.turn_tokens_max);
  // The largest state of one of the scenario's policies (they run one at a time).
  double policy_state = 0;
  const RoutedSize routed{requests, replay != nullptr ? replay->prompt_tokens
                                                      : requests * (static_cast<double>(w.prefix_tokens_max) +
                                                                    w.turn_tokens_max)};
  for (const std::string& name : s.policies) {
    const PolicySpec* spec = find_policy(name);
    if (spec != nullptr && spec->state_bytes)
      policy_state = std::max(policy_state, spec->state_bytes(s.policy_params.of(*spec), policy_context(s), routed));
  }
  const double workload = replay != nullptr ? 0 : Workload::estimated_bytes(w);
  const double runs = static_cast<double>(s.policies.size()) * requests * SimulationRun::kBytesPerRequest;
  // With lagged KV events the router's view is a mirror of every cache.
  const double caches = (s.router.kv_event_lag_ms > 0 ? 2 : 1) * tree(replica_tokens, replicas);
  return workload + runs + caches + tree(distinct, 1) + policy_state;
}

ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress,
                                const RequestTrace* replay) {
  ExperimentReport report;
  std::optional<Workload> generated;
  if (replay == nullptr) generated.emplace(generate_workload(scenario.workload, scenario.seed));
  const RequestTrace& workload = replay != nullptr ? *replay : *generated;
  report.requests = workload.size();
  report.prompt_tokens = workload.total_prompt_tokens();
  report.fingerprint = workload.fingerprint();
  const std::size_t phases = scenario.policies.size();
  for (std::size_t p = 0; p < phases; ++p) {
    auto policy = make_policy(scenario.policies[p], scenario);  // a valid scenario names known policies
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
    outcome.run = simulate(workload, scenario.cluster, *policy, per_run, 4096, scenario.router);
    if (outcome.run.cancelled) {
      report.cancelled = true;
      break;
    }
    outcome.summary = summarize(outcome.run);
    report.outcomes.push_back(std::move(outcome));
  }
  if (report.cancelled) return report;
  // The bounds run without routing; they report progress as whole phases.
  if (progress && !progress(phases, 0, report.requests)) {
    report.cancelled = true;
    return report;
  }
  report.ideal = ideal_bound(workload);
  if (progress && !progress(phases + 1, 0, report.requests)) {
    report.cancelled = true;
    return report;
  }
  report.pooled = single_cache_bound(
      workload, scenario.cluster.cache_tokens * scenario.cluster.replicas, scenario.cluster.protect_after_hits);
  return report;
}

std::string results_to_json(const Scenario& scenario, const ExperimentReport& report) {
  using Json = nlohmann::ordered_json;
  Json doc = Json::object();
  doc["schema"] = "prefixroute.results/1";
  doc["scenario"] = Json::parse(scenario_to_json(scenario));
  doc["workload"] = Json{{"requests", report.requests},
                         {"prompt_tokens", report.prompt_tokens},
                         {"fingerprint", hashing::to_hex16(report.fingerprint)}};
  const bool batched = scenario.cluster.engine == EngineKind::Batched;
  if (batched || scenario.hardware.enabled()) doc["hardware"] = Json::parse(hardware_summary_json(scenario));
  auto bound_json = [](const CacheBound& b) {
    return Json{{"capacity_tokens", b.capacity_tokens},
                {"hit_rate", b.hit_rate},
                {"cached_tokens", b.cached_tokens},
                {"prefill_tokens", b.prefill_tokens}};
  };
  if (!report.cancelled)
    doc["bounds"] = Json{{"ideal", bound_json(report.ideal)}, {"pooled", bound_json(report.pooled)}};
  Json results = Json::array();
  for (const PolicyOutcome& o : report.outcomes) {
    const PolicySpec* spec = find_policy(o.policy);
    const std::string label(spec != nullptr ? spec->label() : std::string_view(o.policy));
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
    row["hit_share_of_ideal"] = report.ideal.hit_rate > 0 ? s.hit_rate / report.ideal.hit_rate : 0.0;
    row["prompt_tokens"] = s.prompt_tokens;
    row["prefill_tokens"] = s.prefill_tokens;
    row["cached_tokens"] = s.cached_tokens;
    row["imbalance"] = s.imbalance;
    if (s.has_prediction) {
      row["predicted_hit_rate"] = s.predicted_hit_rate;
      row["predicted_requests_actual_hit_rate"] = s.predicted_actual_hit_rate;
    } else {
      row["predicted_hit_rate"] = nullptr;
    }
    if (o.run.decode) {
      row["mean_e2e_ms"] = s.mean_e2e_ms;
      row["p50_e2e_ms"] = s.p50_e2e_ms;
      row["p99_e2e_ms"] = s.p99_e2e_ms;
    }
    if (o.run.batched) {
      const auto or_null = [&](double v) { return s.has_tpot ? Json(v) : Json(nullptr); };
      row["mean_tpot_ms"] = or_null(s.mean_tpot_ms);
      row["p50_tpot_ms"] = or_null(s.p50_tpot_ms);
      row["p99_tpot_ms"] = or_null(s.p99_tpot_ms);
      row["output_tokens"] = s.output_tokens;
      row["output_tokens_per_s"] = s.output_tokens_per_s;
      row["span_s"] = s.span_s;
      row["mean_batch"] = s.mean_batch;
      row["preemptions"] = s.preemptions;
      row["recomputed_tokens"] = s.recomputed_tokens;
    }
    Json replicas = Json::array();
    for (const ReplicaTotals& r : o.run.replicas) {
      Json replica = Json{{"requests", r.requests},
                          {"prefill_tokens", r.prefill_tokens},
                          {"cached_tokens", r.cached_tokens},
                          {"work_ms", ticks_to_ms(r.busy_ticks)},
                          {"peak_in_flight", r.peak_in_flight},
                          {"peak_kv_usage", r.peak_kv_usage}};
      if (o.run.batched) {
        replica["steps"] = r.steps;
        replica["mean_batch"] = r.mean_batch;
        replica["peak_batch"] = r.peak_batch;
        replica["output_tokens"] = r.output_tokens;
        replica["output_tokens_per_s"] = s.span_s > 0 ? static_cast<double>(r.output_tokens) / s.span_s : 0.0;
        replica["preemptions"] = r.preemptions;
        replica["recomputed_tokens"] = r.recomputed_tokens;
        replica["overcommits"] = r.overcommits;
      }
      replicas.push_back(std::move(replica));
    }
    row["replicas"] = std::move(replicas);
    if (o.run.batched) {
      // Batch size and KV held over time, per replica (charts): the samples
      // the run takes of in-flight counts, kv_block_tokens-token blocks.
      const std::size_t n = o.run.replicas.size();
      const std::size_t samples = n > 0 ? o.run.batch_samples.size() / n : 0;
      Json batch = Json::array(), blocks = Json::array();
      for (std::size_t r = 0; r < n; ++r) {
        Json b = Json::array(), k = Json::array();
        for (std::size_t i = 0; i < samples; ++i) {
          b.push_back(o.run.batch_samples[i * n + r]);
          k.push_back(o.run.kv_block_samples[i * n + r]);
        }
        batch.push_back(std::move(b));
        blocks.push_back(std::move(k));
      }
      const std::uint64_t block = scenario.cluster.kv_block_tokens;
      row["timeline"] = Json{{"period_ms", ticks_to_ms(o.run.in_flight_period)},
                             {"kv_capacity_blocks", scenario.cluster.cache_tokens / block},
                             {"batch", std::move(batch)},
                             {"kv_blocks", std::move(blocks)}};
    }
    results.push_back(std::move(row));
  }
  doc["results"] = std::move(results);
  if (report.cancelled) doc["cancelled"] = true;
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
