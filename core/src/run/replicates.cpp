#include "prefixroute/run/replicates.h"

#include <utility>

namespace prefixroute {
namespace {

double share_of(double hit_rate, double ideal_hit_rate) { return ideal_hit_rate > 0 ? hit_rate / ideal_hit_rate : 0.0; }

double count(std::uint64_t v) { return static_cast<double>(v); }

std::vector<ReplicatedMetric> bound_metrics(const std::vector<SeedReport>& seeds, CacheBound SeedReport::*which) {
  std::vector<double> capacity, hit, cached, prefill;
  for (const SeedReport& r : seeds) {
    const CacheBound& b = r.*which;
    capacity.push_back(count(b.capacity_tokens));
    hit.push_back(b.hit_rate);
    cached.push_back(count(b.cached_tokens));
    prefill.push_back(count(b.prefill_tokens));
  }
  return {replicated("capacity_tokens", capacity), replicated("hit_rate", hit), replicated("cached_tokens", cached),
          replicated("prefill_tokens", prefill)};
}

}  // namespace

std::vector<RowMetric> row_metrics(const RunSummary& s, double ideal_hit_rate, bool decode, bool batched) {
  const auto present = [](bool has, double v) { return has ? std::optional<double>(v) : std::nullopt; };
  std::vector<RowMetric> m = {
      {"mean_ttft_ms", s.mean_ttft_ms},
      {"p50_ttft_ms", s.p50_ttft_ms},
      {"p90_ttft_ms", s.p90_ttft_ms},
      {"p99_ttft_ms", s.p99_ttft_ms},
      {"max_ttft_ms", s.max_ttft_ms},
      {"hit_rate", s.hit_rate},
      {"hit_share_of_ideal", share_of(s.hit_rate, ideal_hit_rate)},
      {"prompt_tokens", count(s.prompt_tokens), true},
      {"prefill_tokens", count(s.prefill_tokens), true},
      {"cached_tokens", count(s.cached_tokens), true},
      {"imbalance", s.imbalance},
      {"predicted_hit_rate", present(s.has_prediction, s.predicted_hit_rate)},
      {"predicted_requests_actual_hit_rate", present(s.has_prediction, s.predicted_actual_hit_rate)},
  };
  if (decode) {
    m.push_back({"mean_e2e_ms", s.mean_e2e_ms});
    m.push_back({"p50_e2e_ms", s.p50_e2e_ms});
    m.push_back({"p99_e2e_ms", s.p99_e2e_ms});
  }
  if (batched) {
    // TPOT is absent when no request generated more than one token.
    m.push_back({"mean_tpot_ms", present(s.has_tpot, s.mean_tpot_ms)});
    m.push_back({"p50_tpot_ms", present(s.has_tpot, s.p50_tpot_ms)});
    m.push_back({"p99_tpot_ms", present(s.has_tpot, s.p99_tpot_ms)});
    m.push_back({"output_tokens", count(s.output_tokens), true});
    m.push_back({"output_tokens_per_s", s.output_tokens_per_s});
    m.push_back({"span_s", s.span_s});
    m.push_back({"mean_batch", s.mean_batch});
    m.push_back({"preemptions", count(s.preemptions), true});
    m.push_back({"recomputed_tokens", count(s.recomputed_tokens), true});
  }
  // Workloads with sessions only.
  m.push_back({"sessions", present(s.has_sessions, count(s.sessions)), true});
  m.push_back({"multi_call_sessions", present(s.has_sessions, count(s.multi_call_sessions)), true});
  m.push_back({"later_call_hit_rate", present(s.has_sessions, s.later_call_hit_rate)});
  m.push_back({"one_replica_session_share", present(s.has_sessions, s.one_replica_session_share)});
  // Runs with a benchmark client only.
  m.push_back({"failed", present(s.has_client, count(s.failed)), true});
  m.push_back({"mean_client_wait_ms", present(s.has_client, s.mean_client_wait_ms)});
  m.push_back({"p99_client_wait_ms", present(s.has_client, s.p99_client_wait_ms)});
  // Scenarios with SLO targets only (run/slo.h).
  m.push_back({"ttft_attainment", present(s.has_slo && s.has_ttft_target, s.ttft_attainment)});
  m.push_back({"tpot_attainment", present(s.has_slo && s.has_tpot_target, s.tpot_attainment)});
  m.push_back({"slo_attainment", present(s.has_slo, s.slo_attainment)});
  m.push_back({"goodput_per_s", present(s.has_slo, s.goodput_per_s)});
  m.push_back({"slo_met", present(s.has_slo, count(s.slo_met)), true});
  return m;
}

std::vector<RowMetric> stage_metrics(const StageSummary& st) {
  const auto present = [](bool has, double v) { return has ? std::optional<double>(v) : std::nullopt; };
  return {
      {"load", st.load},
      {"duration_s", st.duration_s},
      {"start_s", st.start_s},
      {"end_s", st.end_s},
      {"requests", count(st.requests), true},
      {"failed", count(st.failed), true},
      {"completed_per_s", st.completed_per_s},
      {"input_tokens_per_s", st.input_tokens_per_s},
      {"output_tokens_per_s", st.output_tokens_per_s},
      {"mean_ttft_ms", st.mean_ttft_ms},
      {"p50_ttft_ms", st.p50_ttft_ms},
      {"p90_ttft_ms", st.p90_ttft_ms},
      {"p99_ttft_ms", st.p99_ttft_ms},
      {"mean_tpot_ms", present(st.has_tpot, st.mean_tpot_ms)},
      {"p90_tpot_ms", present(st.has_tpot, st.p90_tpot_ms)},
      {"mean_e2e_ms", st.mean_e2e_ms},
      {"mean_kv_use", present(st.has_kv, st.mean_kv_use)},
      {"p90_kv_use", present(st.has_kv, st.p90_kv_use)},
      {"hit_rate", st.hit_rate},
      {"mean_client_wait_ms", st.mean_client_wait_ms},
  };
}

bool null_when_absent(std::string_view key) {
  return key == "predicted_hit_rate" || key == "mean_tpot_ms" || key == "p50_tpot_ms" || key == "p99_tpot_ms" ||
         key == "p90_tpot_ms" || key == "mean_kv_use" || key == "p90_kv_use";
}

std::vector<RowMetric> replica_metrics(const ReplicaTotals& r, bool batched, double span_s) {
  std::vector<RowMetric> m = {
      {"requests", count(r.requests), true},
      {"prefill_tokens", count(r.prefill_tokens), true},
      {"cached_tokens", count(r.cached_tokens), true},
      {"work_ms", ticks_to_ms(r.busy_ticks)},
      {"peak_in_flight", static_cast<double>(r.peak_in_flight), true},
      {"peak_kv_usage", r.peak_kv_usage},
  };
  if (batched) {
    m.push_back({"steps", count(r.steps), true});
    m.push_back({"mean_batch", r.mean_batch});
    m.push_back({"peak_batch", static_cast<double>(r.peak_batch), true});
    m.push_back({"output_tokens", count(r.output_tokens), true});
    m.push_back({"output_tokens_per_s", span_s > 0 ? count(r.output_tokens) / span_s : 0.0});
    m.push_back({"preemptions", count(r.preemptions), true});
    m.push_back({"recomputed_tokens", count(r.recomputed_tokens), true});
    m.push_back({"overcommits", count(r.overcommits), true});
  }
  return m;
}

ReplicatedMetric replicated(std::string key, std::vector<double> values) {
  ReplicatedMetric m;
  m.key = std::move(key);
  m.per_seed = std::move(values);
  m.interval = t_interval(m.per_seed);
  return m;
}

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
    std::vector<std::vector<RowMetric>> per_seed;
    for (const SeedReport& r : seeds)
      per_seed.push_back(row_metrics(r.outcomes[p].summary, r.ideal.hit_rate, decode, batched));
    for (std::size_t k = 0; k < per_seed.front().size(); ++k) {
      std::vector<double> values;
      for (const auto& metrics : per_seed)
        if (metrics[k].value) values.push_back(*metrics[k].value);
      if (!values.empty()) row.metrics.push_back(replicated(per_seed.front()[k].key, std::move(values)));
    }
    stats.policies.push_back(std::move(row));
  }
  stats.ideal = bound_metrics(seeds, &SeedReport::ideal);
  stats.pooled = bound_metrics(seeds, &SeedReport::pooled);
  std::vector<double> prompt;
  for (const SeedReport& r : seeds) prompt.push_back(count(r.prompt_tokens));
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

}  // namespace prefixroute
