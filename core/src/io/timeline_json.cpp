#include "prefixroute/io/timeline_json.h"

#include <nlohmann/json.hpp>

#include "prefixroute/base/hashing.h"

namespace prefixroute {
namespace {

using Json = nlohmann::ordered_json;

// values[w * rows + row] as [[row ...] per window].
template <typename T>
Json by_window(const std::vector<T>& values, std::uint32_t windows, std::uint32_t rows) {
  Json out = Json::array();
  for (std::uint32_t w = 0; w < windows; ++w) {
    Json row = Json::array();
    for (std::uint32_t r = 0; r < rows; ++r) row.push_back(values[static_cast<std::size_t>(w) * rows + r]);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

std::string timelines_to_json(const Scenario& scenario, const ExperimentReport& report) {
  Json doc = Json::object();
  doc["schema"] = "prefixroute.timeline/1";
  doc["workload"]["requests"] = report.requests;
  doc["workload"]["fingerprint"] = hashing::to_hex16(report.fingerprint);
  doc["engine"] = scenario.cluster.engine == EngineKind::Batched ? "batched" : "fifo";
  const Timeline* first = nullptr;
  for (const PolicyOutcome& o : report.outcomes)
    if (o.run.timeline.windows > 0 && first == nullptr) first = &o.run.timeline;
  doc["windows"] = first ? first->windows : 0;
  doc["window_ms"] = first ? ticks_to_ms(first->window_ticks) : 0.0;
  doc["replicas"] = scenario.cluster.replicas;
  doc["replicas_shown"] = first ? first->shown : 0;
  doc["other_row"] = first ? first->other : false;
  Json policies = Json::array();
  for (const PolicyOutcome& o : report.outcomes) {
    const Timeline& t = o.run.timeline;
    if (t.windows == 0) continue;
    const std::uint32_t w = t.windows;
    const std::uint32_t rows = t.rows();
    Json p = Json::object();
    p["policy"] = o.policy;
    p["requests"] = by_window(t.requests, w, rows);
    p["mean_wait_ms"] = by_window(t.mean_wait_ms, w, rows);
    p["mean_ttft_ms"] = by_window(t.mean_ttft_ms, w, rows);
    p["hit_rate"] = by_window(t.hit_rate, w, rows);
    p["mean_in_flight"] = by_window(t.mean_in_flight, w, rows);
    if (t.batched) {
      p["mean_batch"] = by_window(t.mean_batch, w, rows);
      p["kv_use"] = by_window(t.kv_use, w, rows);
    }
    p["groups"] = by_window(t.groups, w, rows);
    p["top_group"] = by_window(t.top_group, w, rows);
    p["top_share"] = by_window(t.top_share, w, rows);
    p["group_keys"] = t.group_keys;
    policies.push_back(std::move(p));
  }
  doc["policies"] = std::move(policies);
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
