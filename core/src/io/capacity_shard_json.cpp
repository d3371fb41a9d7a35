#include "prefixroute/io/capacity_shard_json.h"

#include <map>

#include "base/json_text.h"

namespace prefixroute {
namespace {

using json_text::Json;

constexpr const char* kCapacityShardSchema = "prefixroute.capacity-shard/1";
constexpr std::size_t kMaxBytes = std::size_t{1} << 30;

Json optional_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json outcome_json(const SearchOutcome& o) {
  Json j = Json::object();
  j["found"] = o.found;
  j["limited"] = o.limited;
  j["value"] = o.value;
  Json steps = Json::array();
  for (const CapacityStep& s : o.steps) {
    Json step = Json::object();
    step["value"] = s.value;
    step["met"] = s.met;
    step["slo_attainment"] = s.slo_attainment;
    step["goodput_per_s"] = s.goodput_per_s;
    step["ttft_ms"] = optional_json(s.ttft_ms);
    step["tpot_ms"] = optional_json(s.tpot_ms);
    steps.push_back(std::move(step));
  }
  j["steps"] = std::move(steps);
  return j;
}

bool number(const Json& o, const char* key, double& out) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return false;
  out = it->get<double>();
  return true;
}

bool flag(const Json& o, const char* key, bool& out) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_boolean()) return false;
  out = it->get<bool>();
  return true;
}

bool optional_number(const Json& o, const char* key, std::optional<double>& out) {
  const auto it = o.find(key);
  if (it == o.end()) return false;
  if (it->is_null()) return true;
  if (!it->is_number()) return false;
  out = it->get<double>();
  return true;
}

bool read_outcome(const Json& j, SearchOutcome& o) {
  if (!j.is_object() || !flag(j, "found", o.found) || !flag(j, "limited", o.limited) || !number(j, "value", o.value))
    return false;
  const auto steps = j.find("steps");
  if (steps == j.end() || !steps->is_array()) return false;
  for (const Json& s : *steps) {
    CapacityStep step;
    if (!s.is_object() || !number(s, "value", step.value) || !flag(s, "met", step.met) ||
        !number(s, "slo_attainment", step.slo_attainment) || !number(s, "goodput_per_s", step.goodput_per_s) ||
        !optional_number(s, "ttft_ms", step.ttft_ms) || !optional_number(s, "tpot_ms", step.tpot_ms))
      return false;
    o.steps.push_back(step);
  }
  return true;
}

bool read_uint(const Json& o, const char* key, std::uint64_t& out) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_unsigned()) return false;
  out = it->get<std::uint64_t>();
  return true;
}

}  // namespace

std::string capacity_shard_to_json(const Scenario& scenario, const CapacityShardReport& shard) {
  Json doc = Json::object();
  doc["schema"] = kCapacityShardSchema;
  doc["shard"]["index"] = shard.shard.index;
  doc["shard"]["count"] = shard.shard.count;
  doc["searches"] = shard.total;
  doc["scenario"] = json_text::parse_unbounded(scenario_to_json(scenario));
  Json results = Json::array();
  for (const CapacitySearchRecord& r : shard.searches) {
    Json j = Json::object();
    j["search"] = r.index;
    j["seed"] = r.result.seed;
    j["load"] = outcome_json(r.result.load);
    j["replicas"] = outcome_json(r.result.replicas);
    results.push_back(std::move(j));
  }
  doc["results"] = std::move(results);
  return doc.dump(2) + "\n";
}

bool is_capacity_shard(const std::string& text) {
  return text.find(std::string("\"schema\": \"") + kCapacityShardSchema + "\"") != std::string::npos;
}

MergedCapacity merge_capacity_shards(const std::vector<ShardInput>& documents) {
  MergedCapacity merged;
  if (documents.empty()) {
    merged.errors.push_back({"(shards)", "no documents to merge"});
    return merged;
  }
  struct Parsed {
    std::string name;
    Json doc;
    Shard shard;
    std::uint64_t total = 0;
  };
  std::vector<Parsed> parsed;
  for (const ShardInput& input : documents) {
    Parsed p;
    p.name = input.name;
    const std::string field = "(shard " + input.name + ")";
    std::string error;
    if (!json_text::parse(input.text, p.doc, error, kMaxBytes)) {
      merged.errors.push_back({field, "not JSON: " + error});
      continue;
    }
    std::uint64_t index = 0, count = 0;
    const auto schema = p.doc.is_object() ? p.doc.find("schema") : p.doc.end();
    const auto shard = p.doc.is_object() ? p.doc.find("shard") : p.doc.end();
    if (schema == p.doc.end() || *schema != kCapacityShardSchema || shard == p.doc.end() || !shard->is_object() ||
        !read_uint(*shard, "index", index) || !read_uint(*shard, "count", count) || count < 1 ||
        count > kMaxShards || index < 1 || index > count || !read_uint(p.doc, "searches", p.total) ||
        !p.doc.contains("scenario") || !p.doc.contains("results") || !p.doc["results"].is_array()) {
      merged.errors.push_back({field, std::string("not a capacity shard document (schema \"") + kCapacityShardSchema +
                                          "\", shard.index 1..count, shard.count, searches, scenario, results)"});
      continue;
    }
    p.shard = Shard{static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
    parsed.push_back(std::move(p));
  }
  if (!merged.errors.empty()) return merged;
  const Parsed& first = parsed.front();
  std::map<std::size_t, std::string> seen;  // shard index -> document
  for (const Parsed& p : parsed) {
    const std::string field = "(shard " + p.name + ")";
    if (p.shard.count != first.shard.count || p.total != first.total)
      merged.errors.push_back({field, "is shard " + std::to_string(p.shard.index) + "/" + std::to_string(p.shard.count) +
                                          " of " + std::to_string(p.total) + " searches but " + first.name +
                                          " is one of " + std::to_string(first.shard.count) + " of " +
                                          std::to_string(first.total) + ": shards of one search share both"});
    else if (p.doc["scenario"].dump() != first.doc["scenario"].dump())
      merged.errors.push_back({field, "searches another scenario than " + first.name});
    else if (!seen.emplace(p.shard.index, p.name).second)
      merged.errors.push_back({field, "is shard " + std::to_string(p.shard.index) + " again (also " +
                                          seen[p.shard.index] + ")"});
  }
  for (std::size_t k = 1; k <= first.shard.count && merged.errors.empty(); ++k)
    if (seen.count(k) == 0)
      merged.errors.push_back({"(shards)", "shard " + std::to_string(k) + "/" + std::to_string(first.shard.count) +
                                               " is missing"});
  if (!merged.errors.empty()) return merged;
  ScenarioParse scenario = parse_scenario(first.doc["scenario"].dump());
  if (!scenario.ok()) {
    merged.errors.push_back({"(shard " + first.name + ")", "its scenario does not parse: " + scenario.error_text()});
    return merged;
  }
  if (capacity_search_count(scenario.scenario) != first.total) {
    merged.errors.push_back({"(shard " + first.name + ")", "its scenario has " +
                                                          std::to_string(capacity_search_count(scenario.scenario)) +
                                                          " searches, not " + std::to_string(first.total)});
    return merged;
  }
  std::vector<SeedCapacity> searches(first.total);
  std::vector<bool> have(first.total, false);
  for (const Parsed& p : parsed) {
    const std::string field = "(shard " + p.name + ")";
    for (const Json& r : p.doc["results"]) {
      std::uint64_t index = 0;
      SeedCapacity c;
      if (!r.is_object() || !read_uint(r, "search", index) || !read_uint(r, "seed", c.seed) ||
          !r.contains("load") || !r.contains("replicas") || !read_outcome(r["load"], c.load) ||
          !read_outcome(r["replicas"], c.replicas)) {
        merged.errors.push_back({field, "a malformed search (search, seed, load and replicas with their steps)"});
        return merged;
      }
      if (index >= first.total || !p.shard.selects(index) || have[index]) {
        merged.errors.push_back({field, "search " + std::to_string(index) + " is outside its shard or repeated"});
        return merged;
      }
      have[index] = true;
      searches[index] = std::move(c);
    }
  }
  for (std::size_t i = 0; i < have.size(); ++i)
    if (!have[i]) {
      merged.errors.push_back({"(shards)", "search " + std::to_string(i) + " is missing (a cancelled shard?)"});
      return merged;
    }
  merged.scenario = scenario.scenario;
  merged.report = assemble_capacity(merged.scenario, std::move(searches));
  return merged;
}

}  // namespace prefixroute
