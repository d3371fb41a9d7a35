#include "table_printer.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/run/replicates.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute {
namespace {

std::string with_thousands(std::uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string printf_string(const char* format, auto... args) {
  // Sized by a first pass: a row with a long trace name or policy must not be cut.
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return "";
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

double share_of_ideal(double hit_rate, double ideal_hit_rate) { return ideal_hit_rate > 0 ? hit_rate / ideal_hit_rate : 0.0; }

double share_of_ideal(double hit_rate, const ExperimentReport& report) {
  return share_of_ideal(hit_rate, report.ideal.hit_rate);
}

std::string label_of(const std::string& policy) {
  for (const auto* info : policy_catalogue())
    if (info->name() == policy) return std::string(info->label());
  return policy;
}

std::string metric_title(std::string_view key) {
  if (key == "mean_ttft_ms") return "mean TTFT";
  if (key == "p99_ttft_ms") return "p99 TTFT";
  if (key == "hit_rate") return "hit rate";
  if (key == "prefill_tokens") return "prefill tokens";
  return std::string(key);
}

// "not distinguishable at N = 5 (95 % intervals overlap):" and one line per
// headline metric, policies named by `name` (name or label).
std::string distinguishability_note(const ReplicateStats& stats, const char* line_start, const char* line_end,
                                    std::string (*name)(const std::string&)) {
  std::string out = printf_string("not distinguishable at N = %zu (their 95%% intervals overlap):%s", stats.count,
                                  line_end);
  for (const std::string_view metric : kHeadlineMetrics) {
    std::string pairs;
    for (const ReplicateStats::Pair& p : stats.not_distinguishable)
      if (p.metric == metric) pairs += (pairs.empty() ? "" : ", ") + name(p.a) + " ~ " + name(p.b);
    out += printf_string("%s%s: %s%s", line_start, metric_title(metric).c_str(),
                         pairs.empty() ? "every pair is distinguishable" : pairs.c_str(), line_end);
  }
  return out;
}

std::string same_name(const std::string& policy) { return policy; }

double mean_of(const std::vector<ReplicatedMetric>& metrics, std::string_view key) {
  for (const ReplicatedMetric& m : metrics)
    if (m.key == key) return m.interval.mean;
  return 0;
}

double half_of(const std::vector<ReplicatedMetric>& metrics, std::string_view key) {
  for (const ReplicatedMetric& m : metrics)
    if (m.key == key) return m.interval.half_width;
  return 0;
}

// The batched engine's settings, one line ("" under fifo).
std::string engine_line(const Scenario& scenario) {
  if (scenario.cluster.engine != EngineKind::Batched) return "";
  return "engine: batched, " + std::to_string(scenario.cluster.max_batched_tokens) + "-token steps, up to " +
         std::to_string(scenario.cluster.max_running) + " sequences, " +
         std::to_string(scenario.cluster.kv_block_tokens) + "-token KV blocks\n";
}

std::string seeds_text(const Scenario& scenario) {
  return printf_string("seeds %llu..%llu", static_cast<unsigned long long>(scenario.seed),
                       static_cast<unsigned long long>(scenario.seed + scenario.replicates - 1));
}

// Replicates > 1: every figure as mean ± half-width of its 95 % interval.
std::string format_replicates_text(const Scenario& scenario, const ExperimentReport& report) {
  const ReplicateStats stats = replicate_stats(report);
  const auto& w = scenario.workload;
  std::string out = printf_string(
      "trace: %llu requests, %u tenants, %u replicas, %llu token cache per replica (%s: %u replicates; "
      "mean ± half-width of the 95%% interval)\n",
      static_cast<unsigned long long>(report.requests), w.tenants, scenario.cluster.replicas,
      static_cast<unsigned long long>(scenario.cluster.cache_tokens), seeds_text(scenario).c_str(),
      scenario.replicates);
  out += engine_line(scenario);
  for (const PolicyReplicates& p : stats.policies) {
    const auto m = [&](const char* key) { return p.find(key)->interval; };
    out += printf_string(
        "%-18s mean_ttft=%7.1f ± %5.1f ms  p99_ttft=%7.1f ± %6.1f ms  prefill_tokens=%11s ± %-9s  "
        "hit_rate=%5.1f ± %4.1f%% (%5.1f%% of ideal)  imbalance=%.2f ± %.2f\n",
        p.policy.c_str(), m("mean_ttft_ms").mean, m("mean_ttft_ms").half_width, m("p99_ttft_ms").mean,
        m("p99_ttft_ms").half_width, with_thousands(static_cast<std::uint64_t>(std::llround(m("prefill_tokens").mean))).c_str(),
        with_thousands(static_cast<std::uint64_t>(std::llround(m("prefill_tokens").half_width))).c_str(),
        m("hit_rate").mean * 100, m("hit_rate").half_width * 100, m("hit_share_of_ideal").mean * 100,
        m("imbalance").mean, m("imbalance").half_width);
    if (p.find("output_tokens_per_s") != nullptr) {  // the batched engine's figures
      out.pop_back();
      if (p.find("mean_tpot_ms") != nullptr)
        out += printf_string("  mean_tpot=%6.2f ± %5.2f ms  p99_tpot=%7.2f ± %6.2f ms", m("mean_tpot_ms").mean,
                             m("mean_tpot_ms").half_width, m("p99_tpot_ms").mean, m("p99_tpot_ms").half_width);
      out += printf_string("  output=%9.0f ± %7.0f tok/s  batch=%5.1f ± %4.1f  preempted=%.1f ± %.1f\n",
                           m("output_tokens_per_s").mean, m("output_tokens_per_s").half_width, m("mean_batch").mean,
                           m("mean_batch").half_width, m("preemptions").mean, m("preemptions").half_width);
    }
    if (p.find("later_call_hit_rate") != nullptr) {  // a workload with sessions
      out.pop_back();
      out += printf_string("  later_call_hit=%5.1f ± %4.1f%%  one_replica=%5.1f ± %4.1f%%\n",
                           m("later_call_hit_rate").mean * 100, m("later_call_hit_rate").half_width * 100,
                           m("one_replica_session_share").mean * 100, m("one_replica_session_share").half_width * 100);
    }
  }
  out += printf_string("%-18s one unbounded cache:            prefill_tokens=%11s ± %-9s  hit_rate=%5.1f ± %4.1f%%\n",
                       "bound: ideal", with_thousands(static_cast<std::uint64_t>(std::llround(mean_of(stats.ideal, "prefill_tokens")))).c_str(),
                       with_thousands(static_cast<std::uint64_t>(std::llround(half_of(stats.ideal, "prefill_tokens")))).c_str(),
                       mean_of(stats.ideal, "hit_rate") * 100, half_of(stats.ideal, "hit_rate") * 100);
  out += printf_string("%-18s one cache of %-11s tokens: prefill_tokens=%11s ± %-9s  hit_rate=%5.1f ± %4.1f%%\n",
                       "bound: pooled", with_thousands(report.pooled.capacity_tokens).c_str(),
                       with_thousands(static_cast<std::uint64_t>(std::llround(mean_of(stats.pooled, "prefill_tokens")))).c_str(),
                       with_thousands(static_cast<std::uint64_t>(std::llround(half_of(stats.pooled, "prefill_tokens")))).c_str(),
                       mean_of(stats.pooled, "hit_rate") * 100, half_of(stats.pooled, "hit_rate") * 100);
  out += distinguishability_note(stats, "  ", "\n", &same_name);
  return out;
}

// The batched engine's table (format_markdown_table's) with means ± half-widths.
std::string format_replicates_batched_markdown(const Scenario& scenario, const ReplicateStats& stats) {
  std::string out =
      "| Policy | Mean TTFT | p99 TTFT | Mean TPOT | p99 TPOT | Output tokens/s | Mean batch | Prefix cache hit rate "
      "| Share of ideal | Prefill tokens | Preemptions |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  const auto tokens = [](double v) { return with_thousands(static_cast<std::uint64_t>(std::llround(v))); };
  for (const PolicyReplicates& p : stats.policies) {
    const auto m = [&](const char* key) { return p.find(key)->interval; };
    const std::string tpot =
        p.find("mean_tpot_ms") != nullptr
            ? printf_string("%.1f ± %.1f ms | %.1f ± %.1f ms", m("mean_tpot_ms").mean, m("mean_tpot_ms").half_width,
                            m("p99_tpot_ms").mean, m("p99_tpot_ms").half_width)
            : "– | –";
    out += printf_string("| %s | %.1f ± %.1f ms | %.1f ± %.1f ms | %s | %s ± %s | %.1f ± %.1f | %.1f ± %.1f%% | "
                         "%.1f ± %.1f%% | %s ± %s | %.1f ± %.1f |\n",
                         label_of(p.policy).c_str(), m("mean_ttft_ms").mean, m("mean_ttft_ms").half_width,
                         m("p99_ttft_ms").mean, m("p99_ttft_ms").half_width, tpot.c_str(),
                         tokens(m("output_tokens_per_s").mean).c_str(),
                         tokens(m("output_tokens_per_s").half_width).c_str(), m("mean_batch").mean,
                         m("mean_batch").half_width, m("hit_rate").mean * 100, m("hit_rate").half_width * 100,
                         m("hit_share_of_ideal").mean * 100, m("hit_share_of_ideal").half_width * 100,
                         tokens(m("prefill_tokens").mean).c_str(), tokens(m("prefill_tokens").half_width).c_str(),
                         m("preemptions").mean, m("preemptions").half_width);
  }
  out += printf_string("| *Bound: ideal (one unbounded cache)* | | | | | | | %.1f ± %.1f%% | 100%% | %s ± %s | |\n",
                       mean_of(stats.ideal, "hit_rate") * 100, half_of(stats.ideal, "hit_rate") * 100,
                       tokens(mean_of(stats.ideal, "prefill_tokens")).c_str(),
                       tokens(half_of(stats.ideal, "prefill_tokens")).c_str());
  out += printf_string("\nMean ± half-width of the 95 %% interval (Student t) over %u replicates (%s); ",
                       scenario.replicates, seeds_text(scenario).c_str());
  out += distinguishability_note(stats, "- ", "\n", &label_of);
  return out;
}

std::string format_replicates_markdown(const Scenario& scenario, const ExperimentReport& report) {
  const ReplicateStats stats = replicate_stats(report);
  if (!report.outcomes.empty() && report.outcomes.front().run.batched)
    return format_replicates_batched_markdown(scenario, stats);
  std::string out =
      "| Policy | Mean TTFT | p99 TTFT | Prefix cache hit rate | Share of ideal | Prefill tokens | Imbalance |\n"
      "|---|---|---|---|---|---|---|\n";
  const auto tokens = [](double v) { return with_thousands(static_cast<std::uint64_t>(std::llround(v))); };
  for (const PolicyReplicates& p : stats.policies) {
    const auto m = [&](const char* key) { return p.find(key)->interval; };
    out += printf_string("| %s | %.1f ± %.1f ms | %.1f ± %.1f ms | %.1f ± %.1f%% | %.1f ± %.1f%% | %s ± %s | %.2f ± %.2f |\n",
                         label_of(p.policy).c_str(), m("mean_ttft_ms").mean, m("mean_ttft_ms").half_width,
                         m("p99_ttft_ms").mean, m("p99_ttft_ms").half_width, m("hit_rate").mean * 100,
                         m("hit_rate").half_width * 100, m("hit_share_of_ideal").mean * 100,
                         m("hit_share_of_ideal").half_width * 100, tokens(m("prefill_tokens").mean).c_str(),
                         tokens(m("prefill_tokens").half_width).c_str(), m("imbalance").mean, m("imbalance").half_width);
  }
  out += printf_string("| *Bound: ideal (one unbounded cache)* | | | %.1f ± %.1f%% | 100%% | %s ± %s | |\n",
                       mean_of(stats.ideal, "hit_rate") * 100, half_of(stats.ideal, "hit_rate") * 100,
                       tokens(mean_of(stats.ideal, "prefill_tokens")).c_str(),
                       tokens(half_of(stats.ideal, "prefill_tokens")).c_str());
  std::vector<double> pooled_share;  // of each seed's ideal
  for (const SeedReport& r : report.seeds) pooled_share.push_back(share_of_ideal(r.pooled.hit_rate, r.ideal.hit_rate));
  const Interval share = t_interval(pooled_share);
  out += printf_string("| *Bound: pooled (one %s-token cache)* | | | %.1f ± %.1f%% | %.1f ± %.1f%% | %s ± %s | |\n",
                       with_thousands(report.pooled.capacity_tokens).c_str(), mean_of(stats.pooled, "hit_rate") * 100,
                       half_of(stats.pooled, "hit_rate") * 100, share.mean * 100, share.half_width * 100,
                       tokens(mean_of(stats.pooled, "prefill_tokens")).c_str(),
                       tokens(half_of(stats.pooled, "prefill_tokens")).c_str());
  out += printf_string("\nMean ± half-width of the 95 %% interval (Student t) over %u replicates (%s); ",
                       scenario.replicates, seeds_text(scenario).c_str());
  out += distinguishability_note(stats, "- ", "\n", &label_of);
  return out;
}

}  // namespace

namespace {

bool has_stages(const ExperimentReport& report) {
  for (const PolicyOutcome& o : report.outcomes)
    if (!o.summary.stages.empty()) return true;
  return false;
}

std::string load_text(const Scenario& scenario, double load) {
  return client_kind(scenario.client.kind) == ClientKind::Closed ? printf_string("%.0f conc", load)
                                                                  : printf_string("%g/s", load);
}

// Each policy's stages, one row each (replicate 0's with replicates).
std::string stage_table(const Scenario& scenario, const ExperimentReport& report, bool markdown) {
  std::string out;
  if (markdown)
    out = "| Policy | Stage | Offered | Completed/s | Input tok/s | Output tok/s | Mean TTFT | p90 TTFT | p99 TTFT | "
          "Mean TPOT | KV use mean / p90 | Hit rate | Failed |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  else
    out = printf_string("%-18s %5s %10s %9s %11s %11s %10s %10s %10s %9s %11s %6s %6s\n", "stages", "#", "offered",
                        "done/s", "in tok/s", "out tok/s", "mean_ttft", "p90_ttft", "p99_ttft", "mean_tpot",
                        "kv mean/p90", "hit", "failed");
  for (const PolicyOutcome& o : report.outcomes) {
    for (std::size_t k = 0; k < o.summary.stages.size(); ++k) {
      const StageSummary& st = o.summary.stages[k];
      const std::string tpot = st.has_tpot ? printf_string("%.1f ms", st.mean_tpot_ms) : "-";
      const std::string kv =
          st.has_kv ? printf_string("%.0f%% / %.0f%%", st.mean_kv_use * 100, st.p90_kv_use * 100) : "-";
      if (markdown)
        out += printf_string("| %s | %zu | %s | %.1f | %s | %s | %.1f ms | %.1f ms | %.1f ms | %s | %s | %.1f%% | %s |\n",
                             label_of(o.policy).c_str(), k + 1, load_text(scenario, st.load).c_str(),
                             st.completed_per_s,
                             with_thousands(static_cast<std::uint64_t>(std::llround(st.input_tokens_per_s))).c_str(),
                             with_thousands(static_cast<std::uint64_t>(std::llround(st.output_tokens_per_s))).c_str(),
                             st.mean_ttft_ms, st.p90_ttft_ms, st.p99_ttft_ms, tpot.c_str(), kv.c_str(),
                             st.hit_rate * 100, with_thousands(st.failed).c_str());
      else
        out += printf_string("%-18s %5zu %10s %9.1f %11.0f %11.0f %7.1f ms %7.1f ms %7.1f ms %9s %11s %5.1f%% %6s\n",
                             o.policy.c_str(), k + 1, load_text(scenario, st.load).c_str(), st.completed_per_s,
                             st.input_tokens_per_s, st.output_tokens_per_s, st.mean_ttft_ms, st.p90_ttft_ms,
                             st.p99_ttft_ms, tpot.c_str(), kv.c_str(), st.hit_rate * 100,
                             with_thousands(st.failed).c_str());
    }
  }
  return out;
}

// A client's line: what it sent and how (runs with a benchmark client).
std::string client_line(const Scenario& scenario, const ExperimentReport& report) {
  if (scenario.client.is_workload_timing() || report.outcomes.empty()) return "";
  std::string out = "client: " + scenario.client.kind;
  for (const PolicyOutcome& o : report.outcomes)
    if (o.summary.failed > 0 || o.summary.mean_client_wait_ms > 0)
      out += printf_string("; %s %s failed, client wait mean %.1f ms", o.policy.c_str(),
                           with_thousands(o.summary.failed).c_str(), o.summary.mean_client_wait_ms);
  return out + "\n";
}

}  // namespace

std::string slo_text(const SloSettings& slo) {
  std::string out;
  if (slo.ttft_ms > 0) out = printf_string("p%g TTFT <= %g ms", slo.ttft_percentile, slo.ttft_ms);
  if (slo.tpot_ms > 0)
    out += printf_string("%sp%g TPOT <= %g ms", out.empty() ? "" : ", ", slo.tpot_percentile, slo.tpot_ms);
  return out;
}

std::string format_slo_table(const Scenario& scenario, const ExperimentReport& report) {
  if (!scenario.slo.any() || report.outcomes.empty()) return "";
  const bool replicated = !report.seeds.empty() && !report.cancelled;
  std::string out = printf_string("SLO: %s%s\n", slo_text(scenario.slo).c_str(),
                                  replicated ? " (mean ± half-width of the 95% interval; met: share of seeds)" : "");
  out += printf_string("%-20s %15s %15s %15s %19s %6s\n", "policy", "ttft_attained", "tpot_attained", "all_attained",
                       "goodput", "met");
  const auto percent = [&](const std::optional<Interval>& v) {
    if (!v) return std::string("-");
    return replicated ? printf_string("%.1f ± %.1f%%", v->mean * 100, v->half_width * 100)
                      : printf_string("%.1f%%", v->mean * 100);
  };
  const ReplicateStats stats = replicated ? replicate_stats(report) : ReplicateStats{};
  for (std::size_t p = 0; p < report.outcomes.size(); ++p) {
    // The figure of `key`: its interval over the seeds, or the one seed's value.
    const auto figure = [&](const char* key) -> std::optional<Interval> {
      if (replicated) {
        const ReplicatedMetric* m = stats.policies[p].find(key);
        return m != nullptr ? std::optional<Interval>(m->interval) : std::nullopt;
      }
      const PolicyOutcome& o = report.outcomes[p];
      for (const RowMetric& m : row_metrics(o.summary, 0, o.run.decode, o.run.batched))
        if (m.key == std::string_view(key) && m.value) return Interval{*m.value, 0};
      return std::nullopt;
    };
    const std::optional<Interval> goodput = figure("goodput_per_s"), met = figure("slo_met");
    const std::string goodput_text =
        !goodput ? "-"
        : replicated ? printf_string("%.2f ± %.2f/s", goodput->mean, goodput->half_width)
                     : printf_string("%.2f/s", goodput->mean);
    const std::string met_text = !met ? "-" : replicated ? printf_string("%.0f%%", met->mean * 100)
                                                         : std::string(met->mean > 0 ? "yes" : "no");
    out += printf_string("%-20s %15s %15s %15s %19s %6s\n", report.outcomes[p].policy.c_str(),
                         percent(figure("ttft_attainment")).c_str(), percent(figure("tpot_attainment")).c_str(),
                         percent(figure("slo_attainment")).c_str(), goodput_text.c_str(), met_text.c_str());
  }
  return out;
}

std::string format_stage_table(const Scenario& scenario, const ExperimentReport& report, bool markdown) {
  return has_stages(report) ? stage_table(scenario, report, markdown) : std::string();
}

namespace {

// A disaggregated scenario's pools and link (nothing when aggregated: the
// trace line's replicas are the cluster).
std::string topology_line(const Scenario& scenario) {
  const TopologySettings& t = scenario.topology;
  if (!t.disaggregated()) return "";
  const PoolClustersResult pools = pool_clusters(scenario);
  return printf_string(
      "topology: disaggregated, %u prefill x %llu token cache, %u decode x %llu token cache; split %s, decode "
      "%s, link %s %g GB/s + %.3f ms setup, %.0f KV bytes/token (cluster.replicas not read)\n",
      t.prefill_replicas, static_cast<unsigned long long>(pools.pools.prefill.cache_tokens), t.decode_replicas,
      static_cast<unsigned long long>(pools.pools.decode.cache_tokens), t.split.c_str(), t.decode_choice.c_str(),
      t.link.c_str(), t.link_bytes_per_s() / 1e9, t.link_setup_ms, pools.pools.kv_bytes_per_token);
}

// Under a policy's line, its pools' figures (disaggregated runs).
std::string pools_lines(const std::vector<PoolTotals>& pools) {
  std::string out;
  for (const PoolTotals& p : pools) {
    out += printf_string("  %-7s pool  requests=%s  prefills=%s  busy=%5.1f%%  mean_queue=%8.1f ms  peak_kv=%5.1f%%",
                         p.name.c_str(), with_thousands(p.requests).c_str(), with_thousands(p.prefills).c_str(),
                         p.busy_share * 100, p.mean_queue_ms, p.peak_kv_usage * 100);
    if (p.name == "decode")
      out += printf_string("  active=%.1f/replica  transfers=%s  sent_tokens=%s  mean_transfer=%.3f ms  peak_link=%u",
                           p.mean_active, with_thousands(p.transfers).c_str(),
                           with_thousands(p.transferred_tokens).c_str(), p.mean_transfer_ms, p.peak_link_transfers);
    out += "\n";
  }
  return out;
}

}  // namespace

std::string format_text_table(const Scenario& scenario, const ExperimentReport& report) {
  if (!report.seeds.empty() && !report.cancelled)
    return format_replicates_text(scenario, report) + client_line(scenario, report) +
           format_stage_table(scenario, report, false);
  const auto& w = scenario.workload;
  // The synthetic trace's shape: its tenants, or what the other kinds are.
  const std::string shape = w.kind == "tenants" ? printf_string("%u tenants", w.tenants)
                            : w.kind == "gsp"   ? printf_string("gsp: %u groups x %u prompts", w.gsp.num_groups,
                                                                w.gsp.prompts_per_group)
                            : w.kind == "shared_prefix"
                                ? printf_string("shared_prefix: %u groups x %u prompts%s", w.shared_prefix.num_groups,
                                                w.shared_prefix.prompts_per_group,
                                                w.shared_prefix.multi_turn ? ", multi-turn" : "")
                            : w.kind == "prefix_repetition"
                                ? printf_string("prefix_repetition: %u prefixes", w.prefix_repetition.num_prefixes)
                            : w.kind == "cumulative"
                                ? printf_string("cumulative chat prompts, a pool of %u", w.cumulative.pool_prompts)
                            : w.kind == "agentic" ? printf_string("agent loops of %u tenants", w.tenants)
                                                  : printf_string("chat sessions of %u tenants", w.tenants);
  std::string out =
      scenario.replays_trace()
          ? printf_string("trace: %s, %llu requests, %llu prompt tokens, %u replicas, %llu token cache per replica "
                          "(one replicate: a replayed trace's arrivals are fixed)\n",
                          scenario.trace.name.c_str(), static_cast<unsigned long long>(report.requests),
                          static_cast<unsigned long long>(report.prompt_tokens), scenario.cluster.replicas,
                          static_cast<unsigned long long>(scenario.cluster.cache_tokens))
          : printf_string("trace: %llu requests, %s, %u replicas, %llu token cache per replica (seed %llu)\n",
                          static_cast<unsigned long long>(report.requests), shape.c_str(), scenario.cluster.replicas,
                          static_cast<unsigned long long>(scenario.cluster.cache_tokens),
                          static_cast<unsigned long long>(scenario.seed));
  out += engine_line(scenario);
  out += topology_line(scenario);
  for (const PolicyOutcome& o : report.outcomes) {
    const RunSummary& s = o.summary;
    out += printf_string(
        "%-18s mean_ttft=%7.1f ms  p50=%7.1f ms  p90=%7.1f ms  p99_ttft=%7.1f ms  prefill_tokens=%13s  "
        "hit_rate=%5.1f%% (%5.1f%% of ideal)  imbalance=%.2f",
        o.policy.c_str(), s.mean_ttft_ms, s.p50_ttft_ms, s.p90_ttft_ms, s.p99_ttft_ms,
        with_thousands(s.prefill_tokens).c_str(), s.hit_rate * 100,
        share_of_ideal(s.hit_rate, report) * 100, s.imbalance);
    if (o.run.batched) {
      if (s.has_tpot) out += printf_string("  mean_tpot=%6.2f ms  p99_tpot=%7.2f ms", s.mean_tpot_ms, s.p99_tpot_ms);
      out += printf_string("  output=%9.0f tok/s  batch=%5.1f  preempted=%s", s.output_tokens_per_s, s.mean_batch,
                           with_thousands(s.preemptions).c_str());
    }
    if (s.has_sessions)
      out += printf_string("  later_call_hit=%5.1f%%  one_replica=%5.1f%% of %s sessions", s.later_call_hit_rate * 100,
                           s.one_replica_session_share * 100, with_thousands(s.multi_call_sessions).c_str());
    out += "\n";
    out += pools_lines(o.run.pools);
  }
  if (!report.cancelled) {
    out += printf_string("%-18s one unbounded cache:            prefill_tokens=%13s  hit_rate=%5.1f%%\n",
                         "bound: ideal", with_thousands(report.ideal.prefill_tokens).c_str(),
                         report.ideal.hit_rate * 100);
    out += printf_string("%-18s one cache of %-11s tokens: prefill_tokens=%13s  hit_rate=%5.1f%%\n",
                         "bound: pooled", with_thousands(report.pooled.capacity_tokens).c_str(),
                         with_thousands(report.pooled.prefill_tokens).c_str(), report.pooled.hit_rate * 100);
  }
  return out + client_line(scenario, report) + format_stage_table(scenario, report, false);
}

std::string format_markdown_table(const Scenario& scenario, const ExperimentReport& report) {
  if (!report.seeds.empty() && !report.cancelled) return format_replicates_markdown(scenario, report);
  const bool batched = !report.outcomes.empty() && report.outcomes.front().run.batched;
  if (batched) {
    // The batched engine's table: latency of the first and of every later
    // token, the cluster's output rate, and the cache.
    std::string out =
        "| Policy | Mean TTFT | p99 TTFT | Mean TPOT | p99 TPOT | Output tokens/s | Mean batch | Prefix cache hit rate "
        "| Share of ideal | Prefill tokens | Preemptions |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const PolicyOutcome& o : report.outcomes) {
      const RunSummary& s = o.summary;
      const std::string tpot = s.has_tpot ? printf_string("%.1f ms | %.1f ms", s.mean_tpot_ms, s.p99_tpot_ms) : "– | –";
      out += printf_string("| %s | %.1f ms | %.1f ms | %s | ", label_of(o.policy).c_str(), s.mean_ttft_ms,
                           s.p99_ttft_ms, tpot.c_str()) +
             with_thousands(static_cast<std::uint64_t>(std::llround(s.output_tokens_per_s))) +
             printf_string(" | %.1f | %.1f%% | %.1f%% | ", s.mean_batch, s.hit_rate * 100,
                           share_of_ideal(s.hit_rate, report) * 100) +
             with_thousands(s.prefill_tokens) + " | " + with_thousands(s.preemptions) + " |\n";
    }
    if (!report.cancelled)
      out += printf_string("| *Bound: ideal (one unbounded cache)* | | | | | | | %.1f%% | 100%% | ",
                           report.ideal.hit_rate * 100) +
             with_thousands(report.ideal.prefill_tokens) + " | |\n";
    return out;
  }
  // Workloads with sessions add the per-session columns.
  const bool sessions = !report.outcomes.empty() && report.outcomes.front().summary.has_sessions;
  std::string out =
      sessions ? "| Policy | Mean TTFT | p99 TTFT | Prefix cache hit rate | Share of ideal | Prefill tokens | Imbalance "
                 "| Later-call hit rate | Sessions on one replica |\n|---|---|---|---|---|---|---|---|---|\n"
               : "| Policy | Mean TTFT | p99 TTFT | Prefix cache hit rate | Share of ideal | Prefill tokens | Imbalance |\n"
                 "|---|---|---|---|---|---|---|\n";
  const std::string empty_session_cells = sessions ? " | |" : "";
  for (const PolicyOutcome& o : report.outcomes) {
    const RunSummary& s = o.summary;
    out += printf_string("| %s | %.1f ms | %.1f ms | %.1f%% | %.1f%% | %s | %.2f |", label_of(o.policy).c_str(),
                         s.mean_ttft_ms, s.p99_ttft_ms, s.hit_rate * 100, share_of_ideal(s.hit_rate, report) * 100,
                         with_thousands(s.prefill_tokens).c_str(), s.imbalance);
    if (sessions)
      out += printf_string(" %.1f%% | %.1f%% |", s.later_call_hit_rate * 100, s.one_replica_session_share * 100);
    out += "\n";
  }
  if (!report.cancelled) {
    out += printf_string("| *Bound: ideal (one unbounded cache)* | | | %.1f%% | 100%% | %s | |%s\n",
                         report.ideal.hit_rate * 100, with_thousands(report.ideal.prefill_tokens).c_str(),
                         empty_session_cells.c_str());
    out += printf_string("| *Bound: pooled (one %s-token cache)* | | | %.1f%% | %.1f%% | %s | |%s\n",
                         with_thousands(report.pooled.capacity_tokens).c_str(), report.pooled.hit_rate * 100,
                         share_of_ideal(report.pooled.hit_rate, report) * 100,
                         with_thousands(report.pooled.prefill_tokens).c_str(), empty_session_cells.c_str());
  }
  return out;
}

std::string format_fields_markdown() {
  // Defaults come from the canonical JSON of the reference scenario, so the
  // table shows exactly what a results file echoes.
  const auto defaults = nlohmann::json::parse(scenario_to_json(Scenario::reference()));
  std::string out = "| Key | Default | Allowed | Meaning |\n|---|---|---|---|\n";
  for (const FieldSpec& f : scenario_fields()) {
    nlohmann::json value = defaults;
    std::string key(f.key);
    std::size_t start = 0;
    for (std::size_t dot; (dot = key.find('.', start)) != std::string::npos; start = dot + 1)
      value = value[key.substr(start, dot - start)];
    value = value[key.substr(start)];
    std::string allowed;
    if (f.kind == FieldKind::Text) {
      allowed = f.choices.empty() ? "text" : "one of `" + std::string(f.choices) + "`";
    } else if (f.kind == FieldKind::PolicyList) {
      for (const auto* info : policy_catalogue()) {
        if (!allowed.empty()) allowed += ", ";
        allowed.append("`").append(info->name()).append("`");
      }
      allowed += " or `all`";
    } else {
      const bool integer = f.kind == FieldKind::Integer;
      const auto bound = [integer](double v) {
        return integer ? std::to_string(static_cast<unsigned long long>(v)) : nlohmann::json(v).dump();
      };
      allowed.append(integer ? "integer [" : "number [").append(bound(f.min)).append(", ").append(bound(f.max));
      allowed += "]";
      if (!f.unit.empty()) allowed.append(" ").append(f.unit);
    }
    out.append("| `").append(key).append("` | `").append(value.dump()).append("` | ").append(allowed);
    out.append(" | ").append(f.description).append(" |\n");
  }
  return out;
}

std::string format_policies_markdown() {
  std::string out = "| Policy | Name | What it does | Parameters |\n|---|---|---|---|\n";
  for (const PolicySpec* spec : policy_catalogue()) {
    std::string params;
    for (const ParamSpec& p : spec->params) {
      if (!params.empty()) params += ", ";
      params.append("`").append(spec->name()).append(".").append(p.key).append("`");
    }
    out.append("| ").append(spec->label());
    if (spec->name() == recommended_policy()) out += " (recommended)";
    out.append(" | `").append(spec->name()).append("` | ").append(spec->identity.description);
    out.append(" | ").append(params.empty() ? "none" : params).append(" |\n");
  }
  return out;
}

}  // namespace prefixroute
