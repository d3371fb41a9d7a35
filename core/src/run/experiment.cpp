#include "prefixroute/run/experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

#include "prefixroute/base/hashing.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/workload/synthetic.h"
#include "base/json_text.h"
#include "run/executor.h"
#include "scenario/fields.h"

namespace prefixroute {

std::vector<FieldError> check_replay(const Scenario& scenario, double prompt_tokens) {
  std::vector<FieldError> errors;
  if (scenario.replicates > 1)
    errors.push_back({"replicates", scenario_detail::replicates_with_trace_message(scenario.replicates)});
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


double estimated_peak_bytes(const Scenario& s, const ReplaySize* replay, unsigned jobs) {
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
  // replicas hold at most that many each). No piece is empty, so a tree
  // never holds more pieces than tokens either.
  const auto tree = [&](double tokens, double trees, double pieces) {
    return RadixCache::estimated_bytes(std::min(2 * requests, tokens) + trees, std::min(pieces, tokens));
  };
  // The replicas' caches: each at most its budget plus the prompt being
  // inserted, and together never more than every distinct token per replica
  // (a prefix or a session's history may sit on every replica, a turn or a
  // trace's tokens on one).
  const double replica_tokens = std::min(replicas * (static_cast<double>(s.cluster.cache_tokens) + prompt_max),
                                         replicas * b.shared_tokens + b.unique_tokens);
  const double replica_pieces = std::min(b.prompt_pieces + requests, replicas * b.tree_pieces);
  // The largest state of one of the scenario's policies: with several router
  // instances, each instance's for the requests it routes (every
  // instances-th; their prompts at most the longest each), summed.
  double policy_state = 0;
  const double instances = std::max(1u, s.router.instances);
  const double total_prompt = replay != nullptr ? replay->prompt_tokens : requests * prompt_max;
  const double per_instance = std::ceil(requests / instances);
  const RoutedSize routed{per_instance, instances > 1 ? std::min(total_prompt, per_instance * prompt_max) : total_prompt,
                          b.prompt_pieces};
  for (const std::string& name : s.policies) {
    const PolicySpec* spec = find_policy(name);
    if (spec != nullptr && spec->has_state_estimate())
      policy_state = std::max(
          policy_state, instances * spec->state_bytes(s.policy_params.of(*spec), policy_context(s), routed));
  }
  // Runs at once, and workloads alive at once: a replicate's workload lives
  // from its first run to its last, runs start in list order, and a thread
  // that would wait for a workload prepares one at most `jobs` ahead, so
  // with several jobs at most twice as many workloads as jobs.
  const double runs_total = static_cast<double>(run_count(s));
  const double at_once = std::min(static_cast<double>(std::max(1u, jobs)), runs_total);
  const double workloads = std::min(static_cast<double>(s.replicates), at_once > 1 ? 2 * at_once : 1.0);
  const double workload = replay != nullptr ? 0 : workloads * b.workload_bytes;
  // Replicate 0's per-request results are kept; another seed's live only
  // while its run summarises them.
  const double per_run = requests * (SimulationRun::kBytesPerRequest +
                                     (s.cluster.engine == EngineKind::Batched ? SimulationRun::kBatchedBytesPerRequest
                                                                              : 0.0));
  const double runs = static_cast<double>(s.policies.size()) * per_run + (s.replicates > 1 ? at_once * per_run : 0);
  // A run's session tally, when the requests share sessions.
  const bool sessions = replay != nullptr ? replay->sessions : is_session_kind(s.workload.kind);
  const double tally = sessions ? requests * SessionTally::kEstimatedBytesPerRequest : 0.0;
  // With lagged KV events the router's view is a mirror of every cache.
  const double caches = (s.router.kv_event_lag_ms > 0 ? 2 : 1) * tree(replica_tokens, replicas, replica_pieces);
  // A policy's run holds its caches, a tree of every distinct token (a
  // router's own tree of the routed prompts: counted for every policy, as
  // the specs do not say which keep one) and, at worst, the largest policy
  // state. The ideal bound's run holds a never-evicting cache of every
  // distinct token, or nothing when the block ids gave the bound as the
  // trace was read; the pooled bound's run one cache of every replica's
  // budget. At once run at most as many policies' runs as there are, the
  // rest of `at_once` being bound runs.
  const double distinct_tree = tree(distinct, 1, b.tree_pieces);
  const double policy_run = caches + distinct_tree + policy_state + tally;
  const bool ideal_known = replay != nullptr && replay->ideal_from_block_ids;
  const double ideal_run = ideal_known ? 0 : distinct_tree;
  const double pooled_run =
      tree(std::min(replicas * static_cast<double>(s.cluster.cache_tokens) + prompt_max, distinct), 1, b.tree_pieces);
  const double policy_runs = std::min(at_once, static_cast<double>(s.policies.size() * s.replicates));
  return workload + runs + policy_runs * policy_run + (at_once - policy_runs) * std::max(ideal_run, pooled_run);
}

ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress,
                                const ReplayedTrace* replay, unsigned jobs, bool record_timeline, bool keep_series) {
  engine::EngineOptions options;
  options.jobs = jobs;
  options.keep_series = keep_series;
  options.timeline = record_timeline;
  if (progress)
    options.progress = [&](std::size_t, std::size_t run, std::uint64_t done, std::uint64_t total) {
      return progress(run, done, total);
    };
  engine::EngineResult result = engine::execute({&scenario}, replay, options);
  return engine::assemble(scenario, std::move(result.points[0]), result.cancelled);
}

namespace {

using Json = nlohmann::ordered_json;

double share_of(double hit_rate, double ideal_hit_rate) { return ideal_hit_rate > 0 ? hit_rate / ideal_hit_rate : 0.0; }

// The numeric metrics of a results row, in the row's key order; a predicted_*
// value is absent (nullopt) when the policy predicted nothing.
std::vector<std::pair<const char*, std::optional<double>>> row_metrics(const RunSummary& s, double ideal_hit_rate,
                                                                       bool decode, bool batched) {
  std::vector<std::pair<const char*, std::optional<double>>> m = {
      {"mean_ttft_ms", s.mean_ttft_ms},
      {"p50_ttft_ms", s.p50_ttft_ms},
      {"p90_ttft_ms", s.p90_ttft_ms},
      {"p99_ttft_ms", s.p99_ttft_ms},
      {"max_ttft_ms", s.max_ttft_ms},
      {"hit_rate", s.hit_rate},
      {"hit_share_of_ideal", share_of(s.hit_rate, ideal_hit_rate)},
      {"prompt_tokens", static_cast<double>(s.prompt_tokens)},
      {"prefill_tokens", static_cast<double>(s.prefill_tokens)},
      {"cached_tokens", static_cast<double>(s.cached_tokens)},
      {"imbalance", s.imbalance},
      {"predicted_hit_rate", std::nullopt},
      {"predicted_requests_actual_hit_rate", std::nullopt},
  };
  if (s.has_prediction) {
    m[11].second = s.predicted_hit_rate;
    m[12].second = s.predicted_actual_hit_rate;
  }
  if (decode) {
    m.emplace_back("mean_e2e_ms", s.mean_e2e_ms);
    m.emplace_back("p50_e2e_ms", s.p50_e2e_ms);
    m.emplace_back("p99_e2e_ms", s.p99_e2e_ms);
  }
  if (batched) {
    // TPOT is absent when no request generated more than one token.
    const auto tpot = [&](double v) { return s.has_tpot ? std::optional<double>(v) : std::nullopt; };
    m.emplace_back("mean_tpot_ms", tpot(s.mean_tpot_ms));
    m.emplace_back("p50_tpot_ms", tpot(s.p50_tpot_ms));
    m.emplace_back("p99_tpot_ms", tpot(s.p99_tpot_ms));
    m.emplace_back("output_tokens", static_cast<double>(s.output_tokens));
    m.emplace_back("output_tokens_per_s", s.output_tokens_per_s);
    m.emplace_back("span_s", s.span_s);
    m.emplace_back("mean_batch", s.mean_batch);
    m.emplace_back("preemptions", static_cast<double>(s.preemptions));
    m.emplace_back("recomputed_tokens", static_cast<double>(s.recomputed_tokens));
  }
  // Workloads with sessions only; absent (left out) otherwise.
  const auto session = [&](double v) { return s.has_sessions ? std::optional<double>(v) : std::nullopt; };
  m.emplace_back("sessions", session(static_cast<double>(s.sessions)));
  m.emplace_back("multi_call_sessions", session(static_cast<double>(s.multi_call_sessions)));
  m.emplace_back("later_call_hit_rate", session(s.later_call_hit_rate));
  m.emplace_back("one_replica_session_share", session(s.one_replica_session_share));
  return m;
}

// Keys of row_metrics a one-seed row writes as null when absent (the others
// it leaves out).
bool null_when_absent(std::string_view key) {
  return key == "predicted_hit_rate" || key == "mean_tpot_ms" || key == "p50_tpot_ms" || key == "p99_tpot_ms";
}

// One seed's metrics as results_to_json writes a row's (integers as
// integers, predicted_hit_rate null when the policy predicted nothing).
void write_row_metrics(Json& row, const RunSummary& s, double ideal_hit_rate, bool decode, bool batched) {
  row["mean_ttft_ms"] = s.mean_ttft_ms;
  row["p50_ttft_ms"] = s.p50_ttft_ms;
  row["p90_ttft_ms"] = s.p90_ttft_ms;
  row["p99_ttft_ms"] = s.p99_ttft_ms;
  row["max_ttft_ms"] = s.max_ttft_ms;
  row["hit_rate"] = s.hit_rate;
  row["hit_share_of_ideal"] = share_of(s.hit_rate, ideal_hit_rate);
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
  if (decode) {
    row["mean_e2e_ms"] = s.mean_e2e_ms;
    row["p50_e2e_ms"] = s.p50_e2e_ms;
    row["p99_e2e_ms"] = s.p99_e2e_ms;
  }
  if (batched) {
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
  if (s.has_sessions) {
    row["sessions"] = s.sessions;
    row["multi_call_sessions"] = s.multi_call_sessions;
    row["later_call_hit_rate"] = s.later_call_hit_rate;
    row["one_replica_session_share"] = s.one_replica_session_share;
  }
}

ReplicatedMetric replicated(std::string key, std::vector<double> values) {
  ReplicatedMetric m;
  m.key = std::move(key);
  m.per_seed = std::move(values);
  m.interval = t_interval(m.per_seed);
  return m;
}

std::vector<ReplicatedMetric> bound_metrics(const std::vector<SeedReport>& seeds, CacheBound SeedReport::*which) {
  std::vector<double> capacity, hit, cached, prefill;
  for (const SeedReport& r : seeds) {
    const CacheBound& b = r.*which;
    capacity.push_back(static_cast<double>(b.capacity_tokens));
    hit.push_back(b.hit_rate);
    cached.push_back(static_cast<double>(b.cached_tokens));
    prefill.push_back(static_cast<double>(b.prefill_tokens));
  }
  return {replicated("capacity_tokens", capacity), replicated("hit_rate", hit), replicated("cached_tokens", cached),
          replicated("prefill_tokens", prefill)};
}

Json interval_json(const std::vector<ReplicatedMetric>& metrics) {
  Json out = Json::object();
  for (const ReplicatedMetric& m : metrics) {
    Json& entry = out[m.key];
    entry["half_width"] = m.interval.half_width;
    entry["low"] = m.interval.low();
    entry["high"] = m.interval.high();
  }
  return out;
}

Json bound_json(const CacheBound& b) {
  Json out = Json::object();
  out["capacity_tokens"] = b.capacity_tokens;
  out["hit_rate"] = b.hit_rate;
  out["cached_tokens"] = b.cached_tokens;
  out["prefill_tokens"] = b.prefill_tokens;
  return out;
}

Json replicated_bound_json(const std::vector<ReplicatedMetric>& metrics, const std::vector<SeedReport>& seeds,
                           CacheBound SeedReport::*which) {
  Json out = Json::object();
  for (const ReplicatedMetric& m : metrics) out[m.key] = m.interval.mean;
  out["interval"] = interval_json(metrics);
  Json per_seed = Json::array();
  for (const SeedReport& r : seeds) {
    Json entry = Json::object();
    entry["seed"] = r.seed;
    entry.update(bound_json(r.*which));  // its keys after "seed", in bound_json's order
    per_seed.push_back(std::move(entry));
  }
  out["per_seed"] = std::move(per_seed);
  return out;
}

// `span_s`: the run's span (RunSummary::span_s), for the batched engine's
// per-replica output rate.
Json replicas_json(const std::vector<ReplicaTotals>& replicas, bool batched, double span_s) {
  Json out = Json::array();
  for (const ReplicaTotals& r : replicas) {
    Json entry = Json::object();
    entry["requests"] = r.requests;
    entry["prefill_tokens"] = r.prefill_tokens;
    entry["cached_tokens"] = r.cached_tokens;
    entry["work_ms"] = ticks_to_ms(r.busy_ticks);
    entry["peak_in_flight"] = r.peak_in_flight;
    entry["peak_kv_usage"] = r.peak_kv_usage;
    if (batched) {
      entry["steps"] = r.steps;
      entry["mean_batch"] = r.mean_batch;
      entry["peak_batch"] = r.peak_batch;
      entry["output_tokens"] = r.output_tokens;
      entry["output_tokens_per_s"] = span_s > 0 ? static_cast<double>(r.output_tokens) / span_s : 0.0;
      entry["preemptions"] = r.preemptions;
      entry["recomputed_tokens"] = r.recomputed_tokens;
      entry["overcommits"] = r.overcommits;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// Batch size and KV held over time, per replica (charts): the samples the
// run takes of in-flight counts, kv_block_tokens-token blocks.
Json timeline_json(const Scenario& scenario, const SimulationRun& run) {
  const std::size_t n = run.replicas.size();
  const std::size_t samples = n > 0 ? run.batch_samples.size() / n : 0;
  Json batch = Json::array(), blocks = Json::array();
  for (std::size_t r = 0; r < n; ++r) {
    Json b = Json::array(), k = Json::array();
    for (std::size_t i = 0; i < samples; ++i) {
      b.push_back(run.batch_samples[i * n + r]);
      k.push_back(run.kv_block_samples[i * n + r]);
    }
    batch.push_back(std::move(b));
    blocks.push_back(std::move(k));
  }
  const std::uint64_t block = scenario.cluster.kv_block_tokens;
  Json out = Json::object();
  out["period_ms"] = ticks_to_ms(run.in_flight_period);
  out["kv_capacity_blocks"] = scenario.cluster.cache_tokens / block;
  out["batch"] = std::move(batch);
  out["kv_blocks"] = std::move(blocks);
  return out;
}

// Per replica index, the mean of each per-replica figure over the seeds.
Json mean_replicas_json(const std::vector<SeedReport>& seeds, std::size_t policy) {
  Json out = Json::array();
  const std::size_t replicas = seeds.front().outcomes[policy].run.replicas.size();
  const bool batched = seeds.front().outcomes[policy].run.batched;
  for (std::size_t i = 0; i < replicas; ++i) {
    std::vector<double> requests, prefill, cached, work, in_flight, kv;
    std::vector<double> steps, mean_batch, peak_batch, output, output_rate, preemptions, recomputed, overcommits;
    for (const SeedReport& r : seeds) {
      const ReplicaTotals& t = r.outcomes[policy].run.replicas[i];
      requests.push_back(static_cast<double>(t.requests));
      prefill.push_back(static_cast<double>(t.prefill_tokens));
      cached.push_back(static_cast<double>(t.cached_tokens));
      work.push_back(ticks_to_ms(t.busy_ticks));
      in_flight.push_back(t.peak_in_flight);
      kv.push_back(t.peak_kv_usage);
      if (batched) {
        const double span_s = r.outcomes[policy].summary.span_s;
        steps.push_back(static_cast<double>(t.steps));
        mean_batch.push_back(t.mean_batch);
        peak_batch.push_back(t.peak_batch);
        output.push_back(static_cast<double>(t.output_tokens));
        output_rate.push_back(span_s > 0 ? static_cast<double>(t.output_tokens) / span_s : 0.0);
        preemptions.push_back(static_cast<double>(t.preemptions));
        recomputed.push_back(static_cast<double>(t.recomputed_tokens));
        overcommits.push_back(static_cast<double>(t.overcommits));
      }
    }
    Json entry = Json::object();
    entry["requests"] = t_interval(requests).mean;
    entry["prefill_tokens"] = t_interval(prefill).mean;
    entry["cached_tokens"] = t_interval(cached).mean;
    entry["work_ms"] = t_interval(work).mean;
    entry["peak_in_flight"] = t_interval(in_flight).mean;
    entry["peak_kv_usage"] = t_interval(kv).mean;
    if (batched) {
      entry["steps"] = t_interval(steps).mean;
      entry["mean_batch"] = t_interval(mean_batch).mean;
      entry["peak_batch"] = t_interval(peak_batch).mean;
      entry["output_tokens"] = t_interval(output).mean;
      entry["output_tokens_per_s"] = t_interval(output_rate).mean;
      entry["preemptions"] = t_interval(preemptions).mean;
      entry["recomputed_tokens"] = t_interval(recomputed).mean;
      entry["overcommits"] = t_interval(overcommits).mean;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

std::string label_of(const std::string& policy) {
  const PolicySpec* spec = find_policy(policy);
  return std::string(spec != nullptr ? spec->label() : std::string_view(policy));
}

}  // namespace

const ReplicatedMetric* PolicyReplicates::find(std::string_view key) const {
  for (const ReplicatedMetric& m : metrics)
    if (m.key == key) return &m;
  return nullptr;
}

ReplicateStats replicate_stats(const ExperimentReport& report) {
  ReplicateStats stats;
  const std::vector<SeedReport>& seeds = report.seeds;
  if (seeds.empty()) return stats;
  stats.count = seeds.size();
  stats.t = student_t_975(seeds.size() - 1);
  const std::size_t policies = seeds.front().outcomes.size();
  for (std::size_t p = 0; p < policies; ++p) {
    PolicyReplicates row;
    row.policy = seeds.front().outcomes[p].policy;
    const bool decode = seeds.front().outcomes[p].run.decode;
    const bool batched = seeds.front().outcomes[p].run.batched;
    std::vector<std::vector<std::pair<const char*, std::optional<double>>>> per_seed;
    for (const SeedReport& r : seeds)
      per_seed.push_back(row_metrics(r.outcomes[p].summary, r.ideal.hit_rate, decode, batched));
    for (std::size_t k = 0; k < per_seed.front().size(); ++k) {
      std::vector<double> values;
      for (const auto& metrics : per_seed)
        if (metrics[k].second) values.push_back(*metrics[k].second);
      if (!values.empty()) row.metrics.push_back(replicated(per_seed.front()[k].first, std::move(values)));
    }
    stats.policies.push_back(std::move(row));
  }
  stats.ideal = bound_metrics(seeds, &SeedReport::ideal);
  stats.pooled = bound_metrics(seeds, &SeedReport::pooled);
  std::vector<double> prompt;
  for (const SeedReport& r : seeds) prompt.push_back(static_cast<double>(r.prompt_tokens));
  stats.prompt_tokens = replicated("prompt_tokens", prompt);
  for (const std::string_view metric : kHeadlineMetrics)
    for (std::size_t a = 0; a < policies; ++a)
      for (std::size_t b = a + 1; b < policies; ++b) {
        const ReplicatedMetric* x = stats.policies[a].find(metric);
        const ReplicatedMetric* y = stats.policies[b].find(metric);
        if (x != nullptr && y != nullptr && intervals_overlap(x->interval, y->interval))
          stats.not_distinguishable.push_back({std::string(metric), stats.policies[a].policy, stats.policies[b].policy});
      }
  return stats;
}

std::string results_to_json(const Scenario& scenario, const ExperimentReport& report) {
  Json doc = Json::object();
  doc["schema"] = "prefixroute.results/1";
  doc["recommended"] = recommended_policy();
  doc["scenario"] = json_text::parse_unbounded(scenario_to_json(scenario));
  const bool with_replicates = !report.seeds.empty() && !report.cancelled;
  // The batched engine's or the hardware's figures for one replica.
  const bool batched = scenario.cluster.engine == EngineKind::Batched;
  const auto add_hardware = [&] {
    if (batched || scenario.hardware.enabled()) doc["hardware"] = json_text::parse_unbounded(hardware_summary_json(scenario));
  };
  if (!with_replicates) {
    Json& workload = doc["workload"];
    workload["requests"] = report.requests;
    workload["prompt_tokens"] = report.prompt_tokens;
    workload["fingerprint"] = hashing::to_hex16(report.fingerprint);
    add_hardware();
    if (!report.cancelled) {
      Json& bounds = doc["bounds"];
      bounds["ideal"] = bound_json(report.ideal);
      bounds["pooled"] = bound_json(report.pooled);
    }
    Json results = Json::array();
    for (const PolicyOutcome& o : report.outcomes) {
      Json row = Json::object();
      row["policy"] = o.policy;
      row["label"] = label_of(o.policy);
      write_row_metrics(row, o.summary, report.ideal.hit_rate, o.run.decode, o.run.batched);
      row["replicas"] = replicas_json(o.run.replicas, o.run.batched, o.summary.span_s);
      if (o.run.batched) row["timeline"] = timeline_json(scenario, o.run);
      results.push_back(std::move(row));
    }
    doc["results"] = std::move(results);
    if (report.cancelled) doc["cancelled"] = true;
    return doc.dump(2) + "\n";
  }

  const ReplicateStats stats = replicate_stats(report);
  const std::vector<SeedReport>& seeds = report.seeds;
  {
    std::vector<double> requests;
    hashing::Fnv1a64 combined;
    Json per_seed = Json::array();
    for (const SeedReport& r : seeds) {
      requests.push_back(static_cast<double>(r.requests));
      combined.feed(r.fingerprint);
      Json entry = Json::object();
      entry["seed"] = r.seed;
      entry["requests"] = r.requests;
      entry["prompt_tokens"] = r.prompt_tokens;
      entry["fingerprint"] = hashing::to_hex16(r.fingerprint);
      per_seed.push_back(std::move(entry));
    }
    const std::vector<ReplicatedMetric> metrics = {replicated("requests", requests),
                                                   stats.prompt_tokens};
    Json workload = Json::object();
    workload["requests"] = metrics[0].interval.mean;
    workload["prompt_tokens"] = metrics[1].interval.mean;
    workload["fingerprint"] = hashing::to_hex16(combined.value);
    workload["interval"] = interval_json(metrics);
    workload["per_seed"] = std::move(per_seed);
    doc["workload"] = std::move(workload);
  }
  add_hardware();
  {
    Json& bounds = doc["bounds"];
    bounds["ideal"] = replicated_bound_json(stats.ideal, seeds, &SeedReport::ideal);
    bounds["pooled"] = replicated_bound_json(stats.pooled, seeds, &SeedReport::pooled);
  }
  Json results = Json::array();
  for (std::size_t p = 0; p < stats.policies.size(); ++p) {
    const PolicyReplicates& pr = stats.policies[p];
    const bool decode = seeds.front().outcomes[p].run.decode;
    const bool batched_row = seeds.front().outcomes[p].run.batched;
    Json row = Json::object();
    row["policy"] = pr.policy;
    row["label"] = label_of(pr.policy);
    // The row's keys in the one-seed order: a metric no seed has (a policy
    // that never predicts; TPOT when no request generated two tokens) is
    // written as one seed writes it.
    for (const auto& [key, ignored] : row_metrics(RunSummary{}, 0, decode, batched_row)) {
      const ReplicatedMetric* m = pr.find(key);
      if (m != nullptr) {
        row[key] = m->interval.mean;
      } else if (null_when_absent(key)) {
        row[key] = nullptr;
      }
    }
    row["replicas"] = mean_replicas_json(seeds, p);
    // The timeline's samples are taken at times set by each seed's own
    // arrival span (the sampling period differs from seed to seed), so they
    // cannot be averaged sample by sample: replicate 0's is kept.
    if (batched_row) row["timeline"] = timeline_json(scenario, report.outcomes[p].run);
    row["interval"] = interval_json(pr.metrics);
    Json per_seed = Json::array();
    for (const SeedReport& r : seeds) {
      Json entry = Json::object();
      entry["seed"] = r.seed;
      write_row_metrics(entry, r.outcomes[p].summary, r.ideal.hit_rate, decode, batched_row);
      per_seed.push_back(std::move(entry));
    }
    row["per_seed"] = std::move(per_seed);
    results.push_back(std::move(row));
  }
  doc["results"] = std::move(results);
  Json seed_list = Json::array();
  for (const SeedReport& r : seeds) seed_list.push_back(r.seed);
  Json headline = Json::array();
  Json pairs = Json::object();
  for (const std::string_view metric : kHeadlineMetrics) {
    headline.push_back(std::string(metric));
    Json list = Json::array();
    for (const ReplicateStats::Pair& pair : stats.not_distinguishable)
      if (pair.metric == metric) {
        Json two = Json::array();
        two.push_back(pair.a);
        two.push_back(pair.b);
        list.push_back(std::move(two));
      }
    pairs[std::string(metric)] = std::move(list);
  }
  Json section = Json::object();
  section["count"] = stats.count;
  section["seeds"] = std::move(seed_list);
  section["confidence"] = 0.95;
  section["t"] = stats.t;
  section["headline_metrics"] = std::move(headline);
  section["not_distinguishable"] = std::move(pairs);
  doc["replicates"] = std::move(section);
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
