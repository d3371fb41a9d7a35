#include "prefixroute/io/capacity_json.h"

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "prefixroute/policies/catalogue.h"

namespace prefixroute {
namespace {

using Json = nlohmann::ordered_json;

Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

// A whole number (replicas, a concurrency) as a JSON integer.
Json value_json(double v, bool integer) { return integer ? Json(static_cast<std::uint64_t>(v)) : Json(v); }

Json step_json(const Scenario& scenario, const CapacityStep& step, bool integer) {
  Json j = Json::object();
  j["value"] = value_json(step.value, integer);
  j["met"] = step.met;
  j["slo_attainment"] = step.slo_attainment;
  j["goodput_per_s"] = step.goodput_per_s;
  if (scenario.slo.ttft_ms > 0) j["ttft_ms"] = optional_number(step.ttft_ms);
  if (scenario.slo.tpot_ms > 0) j["tpot_ms"] = optional_number(step.tpot_ms);
  return j;
}

Json steps_json(const Scenario& scenario, const std::vector<CapacityStep>& steps, bool integer) {
  Json out = Json::array();
  for (const CapacityStep& s : steps) out.push_back(step_json(scenario, s, integer));
  return out;
}

Json interval_entry(const Interval& i) {
  Json j = Json::object();
  j["half_width"] = i.half_width;
  j["low"] = i.low();
  j["high"] = i.high();
  return j;
}

Interval scaled(const Interval& i, double factor) { return Interval{i.mean * factor, i.half_width * factor}; }

}  // namespace

std::string capacity_to_json(const Scenario& scenario, const CapacityReport& report) {
  const double tp = scenario.hardware.tp;
  const double price = scenario.capacity.gpu_hour_price;
  Json doc = Json::object();
  doc["schema"] = "prefixroute.capacity/1";
  doc["scenario"] = json_text::parse_unbounded(scenario_to_json(scenario));
  Json& load = doc["load"];
  load["key"] = report.axis.key;
  load["unit"] = report.axis.unit;
  load["base"] = report.axis.base;
  load["min"] = report.axis.min;
  load["max"] = report.axis.max;
  load["integer"] = report.axis.integer;
  Json& replicas = doc["replicas"];
  replicas["base"] = report.base_replicas;
  replicas["max"] = scenario.capacity.max_replicas;
  replicas["gpus_per_replica"] = scenario.hardware.tp;
  const bool replicated = scenario.replicates > 1 && !scenario.replays_trace();
  Json results = Json::array();
  for (const PolicyCapacity& p : report.policies) {
    Json row = Json::object();
    row["policy"] = p.policy;
    const PolicySpec* spec = find_policy(p.policy);
    row["label"] = std::string(spec != nullptr ? spec->label() : std::string_view(p.policy));
    bool limited = false;
    for (const SeedCapacity& s : p.seeds) limited = limited || s.load.limited;
    row["max_load"] = p.max_load ? Json(p.max_load->mean) : Json(nullptr);
    row["max_load_limited"] = limited;
    row["replicas"] = p.replicas ? Json(p.replicas->mean) : Json(nullptr);
    row["gpus"] = p.replicas ? Json(p.replicas->mean * tp) : Json(nullptr);
    if (price > 0) row["cost_per_month"] = p.replicas ? Json(p.replicas->mean * tp * price * kHoursPerMonth) : Json(nullptr);
    if (replicated) {
      Json interval = Json::object();
      if (p.max_load) interval["max_load"] = interval_entry(*p.max_load);
      if (p.replicas) {
        interval["replicas"] = interval_entry(*p.replicas);
        interval["gpus"] = interval_entry(scaled(*p.replicas, tp));
      }
      row["interval"] = std::move(interval);
    }
    Json per_seed = Json::array();
    for (const SeedCapacity& s : p.seeds) {
      Json entry = Json::object();
      entry["seed"] = s.seed;
      entry["max_load"] = s.load.found ? value_json(s.load.value, report.axis.integer) : Json(nullptr);
      entry["max_load_limited"] = s.load.limited;
      entry["replicas"] = s.replicas.found ? value_json(s.replicas.value, true) : Json(nullptr);
      entry["gpus"] = s.replicas.found ? value_json(s.replicas.value * tp, true) : Json(nullptr);
      entry["load_steps"] = steps_json(scenario, s.load.steps, report.axis.integer);
      entry["replica_steps"] = steps_json(scenario, s.replicas.steps, true);
      per_seed.push_back(std::move(entry));
    }
    row["per_seed"] = std::move(per_seed);
    results.push_back(std::move(row));
  }
  doc["results"] = std::move(results);
  if (report.cancelled) doc["cancelled"] = true;
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
