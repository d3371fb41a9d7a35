#include "prefixroute/io/sweep_json.h"

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/run/replicates.h"

namespace prefixroute {
namespace {

using Json = nlohmann::ordered_json;

}  // namespace

std::string sweep_to_json(const SweepSpec& spec, const SweepReport& report) {
  Json doc = Json::object();
  doc["schema"] = "prefixroute.sweep/1";
  doc["recommended"] = recommended_policy();
  doc["key"] = spec.key;
  if (!report.points.empty()) doc["base_scenario"] = json_text::parse_unbounded(scenario_to_json(report.points.front().scenario));
  struct Point {
    double hit, p99;
  };
  // A point's rows: its summaries, or with replicates its means and intervals.
  struct Row {
    std::string policy;
    double mean_ttft_ms, p99_ttft_ms, hit_rate, prefill_tokens, imbalance;
    const PolicyReplicates* replicates;
  };
  std::vector<ReplicateStats> stats(report.points.size());
  std::vector<std::vector<Row>> rows(report.points.size());
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    const ExperimentReport& r = report.points[i].report;
    if (!r.seeds.empty() && !r.cancelled) {
      stats[i] = replicate_stats(r);
      for (const PolicyReplicates& pr : stats[i].policies)
        rows[i].push_back({pr.policy, pr.find("mean_ttft_ms")->interval.mean, pr.find("p99_ttft_ms")->interval.mean,
                           pr.find("hit_rate")->interval.mean, pr.find("prefill_tokens")->interval.mean,
                           pr.find("imbalance")->interval.mean, &pr});
      continue;
    }
    for (const PolicyOutcome& o : r.outcomes) {
      const RunSummary& s = o.summary;
      rows[i].push_back({o.policy, s.mean_ttft_ms, s.p99_ttft_ms, s.hit_rate, static_cast<double>(s.prefill_tokens),
                         s.imbalance, nullptr});
    }
  }
  std::vector<Point> all;
  for (const std::vector<Row>& point_rows : rows)
    for (const Row& row : point_rows) all.push_back({row.hit_rate, row.p99_ttft_ms});
  auto dominated = [&](const Point& x) {
    for (const Point& y : all)
      if (y.hit >= x.hit && y.p99 <= x.p99 && (y.hit > x.hit || y.p99 < x.p99)) return true;
    return false;
  };
  Json points = Json::array();
  for (std::size_t i = 0; i < report.points.size(); ++i) {
    const SweepPoint& p = report.points[i];
    Json results = Json::array();
    for (std::size_t k = 0; k < rows[i].size(); ++k) {
      const Row& r = rows[i][k];
      // Assignments rather than an initializer list: the same bytes, and
      // about half the code in the WebAssembly module.
      Json row = Json::object();
      row["policy"] = r.policy;
      row["mean_ttft_ms"] = r.mean_ttft_ms;
      row["p99_ttft_ms"] = r.p99_ttft_ms;
      row["hit_rate"] = r.hit_rate;
      if (r.replicates != nullptr) {
        row["prefill_tokens"] = r.prefill_tokens;
      } else {
        row["prefill_tokens"] = p.report.outcomes[k].summary.prefill_tokens;  // an integer, as ever
      }
      row["imbalance"] = r.imbalance;
      row["pareto"] = !dominated({r.hit_rate, r.p99_ttft_ms});
      if (r.replicates != nullptr) {
        Json interval = Json::object();
        for (const char* key : {"mean_ttft_ms", "p99_ttft_ms", "hit_rate", "prefill_tokens", "imbalance"}) {
          const Interval& v = r.replicates->find(key)->interval;
          Json& entry = interval[key];
          entry["half_width"] = v.half_width;
          entry["low"] = v.low();
          entry["high"] = v.high();
        }
        row["interval"] = std::move(interval);
      }
      results.push_back(std::move(row));
    }
    Json point = Json::object();
    point["value"] = p.value;
    point["results"] = std::move(results);
    points.push_back(std::move(point));
  }
  doc["points"] = std::move(points);
  if (report.cancelled) doc["cancelled"] = true;
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
