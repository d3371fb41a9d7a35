#include "table_printer.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario.h"

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
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

double share_of_ideal(double hit_rate, const ExperimentReport& report) {
  return report.ideal.hit_rate > 0 ? hit_rate / report.ideal.hit_rate : 0.0;
}

std::string label_of(const std::string& policy) {
  for (const auto* info : policy_catalogue())
    if (info->name() == policy) return std::string(info->label());
  return policy;
}

}  // namespace

std::string format_text_table(const Scenario& scenario, const ExperimentReport& report) {
  const auto& w = scenario.workload;
  std::string out =
      scenario.replays_trace()
          ? printf_string("trace: %s, %llu requests, %llu prompt tokens, %u replicas, %llu token cache per replica\n",
                          scenario.trace.name.c_str(), static_cast<unsigned long long>(report.requests),
                          static_cast<unsigned long long>(report.prompt_tokens), scenario.cluster.replicas,
                          static_cast<unsigned long long>(scenario.cluster.cache_tokens))
          : printf_string("trace: %llu requests, %u tenants, %u replicas, %llu token cache per replica (seed %llu)\n",
                          static_cast<unsigned long long>(report.requests), w.tenants, scenario.cluster.replicas,
                          static_cast<unsigned long long>(scenario.cluster.cache_tokens),
                          static_cast<unsigned long long>(scenario.seed));
  if (scenario.cluster.engine == EngineKind::Batched)
    out += "engine: batched, " + std::to_string(scenario.cluster.max_batched_tokens) + "-token steps, up to " +
           std::to_string(scenario.cluster.max_running) + " sequences, " +
           std::to_string(scenario.cluster.kv_block_tokens) + "-token KV blocks\n";
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
    out += "\n";
  }
  if (!report.cancelled) {
    out += printf_string("%-18s one unbounded cache:            prefill_tokens=%13s  hit_rate=%5.1f%%\n",
                         "bound: ideal", with_thousands(report.ideal.prefill_tokens).c_str(),
                         report.ideal.hit_rate * 100);
    out += printf_string("%-18s one cache of %-11s tokens: prefill_tokens=%13s  hit_rate=%5.1f%%\n",
                         "bound: pooled", with_thousands(report.pooled.capacity_tokens).c_str(),
                         with_thousands(report.pooled.prefill_tokens).c_str(), report.pooled.hit_rate * 100);
  }
  return out;
}

std::string format_markdown_table(const ExperimentReport& report) {
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
  std::string out =
      "| Policy | Mean TTFT | p99 TTFT | Prefix cache hit rate | Share of ideal | Prefill tokens | Imbalance |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const PolicyOutcome& o : report.outcomes) {
    const RunSummary& s = o.summary;
    out += printf_string("| %s | %.1f ms | %.1f ms | %.1f%% | %.1f%% | %s | %.2f |\n", label_of(o.policy).c_str(),
                         s.mean_ttft_ms, s.p99_ttft_ms, s.hit_rate * 100, share_of_ideal(s.hit_rate, report) * 100,
                         with_thousands(s.prefill_tokens).c_str(), s.imbalance);
  }
  if (!report.cancelled) {
    out += printf_string("| *Bound: ideal (one unbounded cache)* | | | %.1f%% | 100%% | %s | |\n",
                         report.ideal.hit_rate * 100, with_thousands(report.ideal.prefill_tokens).c_str());
    out += printf_string("| *Bound: pooled (one %s-token cache)* | | | %.1f%% | %.1f%% | %s | |\n",
                         with_thousands(report.pooled.capacity_tokens).c_str(), report.pooled.hit_rate * 100,
                         share_of_ideal(report.pooled.hit_rate, report) * 100,
                         with_thousands(report.pooled.prefill_tokens).c_str());
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

}  // namespace prefixroute
