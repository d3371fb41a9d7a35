#include "prefixroute/experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "prefixroute/base/hashing.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/workload/synthetic.h"

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

ReplaySize replay_size(const RequestTrace& trace) {
  ReplaySize size;
  size.requests = static_cast<double>(trace.size());
  PromptPieces prompt;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto tokens = static_cast<double>(trace.prompt_tokens(i));
    size.prompt_tokens += tokens;
    size.max_prompt_tokens = std::max(size.max_prompt_tokens, tokens);
    trace.prompt(i, prompt);
    size.pieces += static_cast<double>(prompt.pieces.size());
  }
  return size;
}

double estimated_peak_bytes(const Scenario& s, const ReplaySize* replay) {
  const double replicas = s.cluster.replicas;
  // The synthetic trace's size bounds (synthetic.h), or the replayed trace's own sizes.
  SyntheticBounds b;
  if (replay == nullptr) {
    b = synthetic_bounds(s.workload);
  } else {
    b.requests = replay->requests;
    b.max_prompt_tokens = replay->max_prompt_tokens;
    b.unique_tokens = replay->prompt_tokens;
    b.prompt_pieces = replay->pieces;
    b.tree_pieces = replay->pieces + replay->requests;
  }
  const double requests = b.requests;
  // Every distinct token (each tenant prefix and each user turn, each
  // session message, or every prompt token of a trace) and the longest prompt.
  const double distinct = b.shared_tokens + b.unique_tokens;
  const double prompt_max = b.max_prompt_tokens;
  // An insert adds at most two nodes and a node holds at least one token;
  // every tree also has a root. An insert stores at most its prompt's pieces
  // (a new leaf) plus one more (a split piece), so trees hold at most every
  // prompt's pieces plus one per request (b.tree_pieces for one tree; fewer
  // for sessions, whose runs each sit at one place of a tree, so that
  // replicas hold at most that many each).
  const double replica_pieces = std::min(b.prompt_pieces + requests, replicas * b.tree_pieces);
  const auto tree = [&](double tokens, double trees, double pieces) {
    return RadixCache::estimated_bytes(std::min(2 * requests, tokens) + trees, pieces);
  };
  // The replicas' caches: each at most its budget plus the prompt being
  // inserted, and together never more than every distinct token per replica
  // (a prefix or a session's history may sit on every replica, a turn or a
  // trace's tokens on one).
  const double replica_tokens = std::min(replicas * (static_cast<double>(s.cluster.cache_tokens) + prompt_max),
                                         replicas * b.shared_tokens + b.unique_tokens);
  // The largest state of one of the scenario's policies (they run one at a time).
  double policy_state = 0;
  const RoutedSize routed{requests, replay != nullptr ? replay->prompt_tokens : requests * prompt_max};
  for (const std::string& name : s.policies) {
    const PolicySpec* spec = find_policy(name);
    if (spec != nullptr && spec->state_bytes)
      policy_state = std::max(policy_state, spec->state_bytes(s.policy_params.of(*spec), policy_context(s), routed));
  }
  const double workload = replay != nullptr ? 0 : b.workload_bytes;
  const double runs = static_cast<double>(s.policies.size()) * requests * SimulationRun::kBytesPerRequest;
  // With lagged KV events the router's view is a mirror of every cache.
  const double caches = (s.router.kv_event_lag_ms > 0 ? 2 : 1) * tree(replica_tokens, replicas, replica_pieces);
  return workload + runs + caches + tree(distinct, 1, b.tree_pieces) + policy_state;
}

ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress,
                                const RequestTrace* replay) {
  ExperimentReport report;
  std::unique_ptr<RequestTrace> generated;
  if (replay == nullptr) generated = generate_synthetic(scenario.workload, scenario.seed);
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
    Json replicas = Json::array();
    for (const ReplicaTotals& r : o.run.replicas)
      replicas.push_back(Json{{"requests", r.requests},
                              {"prefill_tokens", r.prefill_tokens},
                              {"cached_tokens", r.cached_tokens},
                              {"work_ms", ticks_to_ms(r.busy_ticks)},
                              {"peak_in_flight", r.peak_in_flight},
                              {"peak_kv_usage", r.peak_kv_usage}});
    row["replicas"] = std::move(replicas);
    results.push_back(std::move(row));
  }
  doc["results"] = std::move(results);
  if (report.cancelled) doc["cancelled"] = true;
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
