#include "prefixroute/io/shard_json.h"

#include <map>
#include <optional>
#include <variant>

#include "base/json_text.h"
#include "prefixroute/base/hashing.h"
#include "run/executor.h"

namespace prefixroute {
namespace {

using json_text::Json;

constexpr const char* kShardSchema = "prefixroute.shard/1";
// Shard documents hold per-replica totals of many runs: larger than scenarios.
constexpr std::size_t kMaxShardBytes = std::size_t{1} << 30;

// The figures a shard document carries, each named once for writing and
// reading back: a RunSummary's, then a replica's (ReplicaTotals). Each list
// is in the document's key order; a group is present only where its figures
// are (the batched engine's runs; workloads with sessions).
template <class Struct>
using Member = std::variant<std::uint64_t Struct::*, std::int64_t Struct::*, std::uint32_t Struct::*,
                            double Struct::*, bool Struct::*>;

template <class Struct>
struct Figure {
  const char* key;
  Member<Struct> member;
};

const Figure<RunSummary> kSummary[] = {
    {"requests", &RunSummary::requests},
    {"mean_ttft_ms", &RunSummary::mean_ttft_ms},
    {"p50_ttft_ms", &RunSummary::p50_ttft_ms},
    {"p90_ttft_ms", &RunSummary::p90_ttft_ms},
    {"p99_ttft_ms", &RunSummary::p99_ttft_ms},
    {"max_ttft_ms", &RunSummary::max_ttft_ms},
    {"hit_rate", &RunSummary::hit_rate},
    {"prompt_tokens", &RunSummary::prompt_tokens},
    {"prefill_tokens", &RunSummary::prefill_tokens},
    {"cached_tokens", &RunSummary::cached_tokens},
    {"imbalance", &RunSummary::imbalance},
    {"has_prediction", &RunSummary::has_prediction},
    {"predicted_hit_rate", &RunSummary::predicted_hit_rate},
    {"predicted_actual_hit_rate", &RunSummary::predicted_actual_hit_rate},
    {"mean_e2e_ms", &RunSummary::mean_e2e_ms},
    {"p50_e2e_ms", &RunSummary::p50_e2e_ms},
    {"p99_e2e_ms", &RunSummary::p99_e2e_ms},
};
const Figure<RunSummary> kBatchedSummary[] = {
    {"has_tpot", &RunSummary::has_tpot},
    {"mean_tpot_ms", &RunSummary::mean_tpot_ms},
    {"p50_tpot_ms", &RunSummary::p50_tpot_ms},
    {"p99_tpot_ms", &RunSummary::p99_tpot_ms},
    {"span_s", &RunSummary::span_s},
    {"output_tokens", &RunSummary::output_tokens},
    {"output_tokens_per_s", &RunSummary::output_tokens_per_s},
    {"preemptions", &RunSummary::preemptions},
    {"recomputed_tokens", &RunSummary::recomputed_tokens},
    {"mean_batch", &RunSummary::mean_batch},
};
// Present exactly when the run's workload has sessions (has_sessions).
const Figure<RunSummary> kSessionSummary[] = {
    {"sessions", &RunSummary::sessions},
    {"multi_call_sessions", &RunSummary::multi_call_sessions},
    {"later_call_hit_rate", &RunSummary::later_call_hit_rate},
    {"one_replica_session_share", &RunSummary::one_replica_session_share},
};
// Present exactly when the run had a benchmark client (has_client).
const Figure<RunSummary> kClientSummary[] = {
    {"failed", &RunSummary::failed},
    {"mean_client_wait_ms", &RunSummary::mean_client_wait_ms},
    {"p99_client_wait_ms", &RunSummary::p99_client_wait_ms},
};
// Present exactly when the scenario has SLO targets (has_slo).
const Figure<RunSummary> kSloSummary[] = {
    {"has_ttft_target", &RunSummary::has_ttft_target},
    {"has_tpot_target", &RunSummary::has_tpot_target},
    {"ttft_attainment", &RunSummary::ttft_attainment},
    {"tpot_attainment", &RunSummary::tpot_attainment},
    {"slo_attainment", &RunSummary::slo_attainment},
    {"goodput_per_s", &RunSummary::goodput_per_s},
    {"slo_met", &RunSummary::slo_met},
};
// Each client stage's figures (the summary's "stages", with a client).
const Figure<StageSummary> kStage[] = {
    {"load", &StageSummary::load},
    {"duration_s", &StageSummary::duration_s},
    {"start_s", &StageSummary::start_s},
    {"end_s", &StageSummary::end_s},
    {"requests", &StageSummary::requests},
    {"failed", &StageSummary::failed},
    {"completed_per_s", &StageSummary::completed_per_s},
    {"input_tokens_per_s", &StageSummary::input_tokens_per_s},
    {"output_tokens_per_s", &StageSummary::output_tokens_per_s},
    {"mean_ttft_ms", &StageSummary::mean_ttft_ms},
    {"p50_ttft_ms", &StageSummary::p50_ttft_ms},
    {"p90_ttft_ms", &StageSummary::p90_ttft_ms},
    {"p99_ttft_ms", &StageSummary::p99_ttft_ms},
    {"has_tpot", &StageSummary::has_tpot},
    {"mean_tpot_ms", &StageSummary::mean_tpot_ms},
    {"p90_tpot_ms", &StageSummary::p90_tpot_ms},
    {"mean_e2e_ms", &StageSummary::mean_e2e_ms},
    {"has_kv", &StageSummary::has_kv},
    {"mean_kv_use", &StageSummary::mean_kv_use},
    {"p90_kv_use", &StageSummary::p90_kv_use},
    {"hit_rate", &StageSummary::hit_rate},
    {"mean_client_wait_ms", &StageSummary::mean_client_wait_ms},
};
const Figure<ReplicaTotals> kReplica[] = {
    {"requests", &ReplicaTotals::requests},
    {"prefill_tokens", &ReplicaTotals::prefill_tokens},
    {"cached_tokens", &ReplicaTotals::cached_tokens},
    {"busy_ticks", &ReplicaTotals::busy_ticks},
    {"peak_in_flight", &ReplicaTotals::peak_in_flight},
    {"peak_kv_usage", &ReplicaTotals::peak_kv_usage},
};
const Figure<ReplicaTotals> kBatchedReplica[] = {
    {"steps", &ReplicaTotals::steps},
    {"mean_batch", &ReplicaTotals::mean_batch},
    {"peak_batch", &ReplicaTotals::peak_batch},
    {"peak_held_tokens", &ReplicaTotals::peak_held_tokens},
    {"preemptions", &ReplicaTotals::preemptions},
    {"recomputed_tokens", &ReplicaTotals::recomputed_tokens},
    {"output_tokens", &ReplicaTotals::output_tokens},
    {"overcommits", &ReplicaTotals::overcommits},
};

template <class Struct, std::size_t N>
void write_figures(Json& out, const Struct& from, const Figure<Struct> (&figures)[N]) {
  for (const Figure<Struct>& f : figures) std::visit([&](auto member) { out[f.key] = from.*member; }, f.member);
}

Json summary_json(const RunSummary& s, bool batched) {
  Json j = Json::object();
  write_figures(j, s, kSummary);
  if (batched) write_figures(j, s, kBatchedSummary);
  if (s.has_sessions) write_figures(j, s, kSessionSummary);
  if (s.has_client) {
    write_figures(j, s, kClientSummary);
    Json stages = Json::array();
    for (const StageSummary& st : s.stages) {
      Json entry = Json::object();
      write_figures(entry, st, kStage);
      stages.push_back(std::move(entry));
    }
    j["stages"] = std::move(stages);
  }
  if (s.has_slo) write_figures(j, s, kSloSummary);
  return j;
}

Json runs_json(const std::vector<const Scenario*>& points, const ShardReport& shard) {
  Json results = Json::array();
  for (const ShardRun& r : shard.runs) {
    Json j = Json::object();
    j["run"] = r.run;
    Json& workload = j["workload"];
    workload["requests"] = r.requests;
    workload["prompt_tokens"] = r.prompt_tokens;
    workload["fingerprint"] = hashing::to_hex16(r.fingerprint);
    const std::size_t policies = points[r.point]->policies.size();
    if (r.key.phase < policies) {
      const SimulationRun& run = r.outcome.run;
      j["policy"] = r.outcome.policy;
      j["decode"] = run.decode;
      if (run.batched) j["batched"] = true;  // absent: the fifo engine
      j["summary"] = summary_json(r.outcome.summary, run.batched);
      Json replicas = Json::array();
      for (const ReplicaTotals& t : run.replicas) {
        Json entry = Json::object();
        write_figures(entry, t, kReplica);
        if (run.batched) write_figures(entry, t, kBatchedReplica);
        replicas.push_back(std::move(entry));
      }
      j["replicas"] = std::move(replicas);
      if (run.batched && r.key.replicate == 0) {
        // Replicate 0's batch and KV samples: the results JSON's timeline.
        Json& timeline = j["timeline"];
        timeline["period_ticks"] = run.in_flight_period;
        Json batch = Json::array(), blocks = Json::array();
        for (const std::uint32_t v : run.batch_samples) batch.push_back(v);
        for (const std::uint32_t v : run.kv_block_samples) blocks.push_back(v);
        timeline["batch"] = std::move(batch);
        timeline["kv_blocks"] = std::move(blocks);
      }
    } else {
      j["bound"] = r.key.phase == policies ? "ideal" : "pooled";
      j["capacity_tokens"] = r.bound.capacity_tokens;
      j["hit_rate"] = r.bound.hit_rate;
      j["cached_tokens"] = r.bound.cached_tokens;
      j["prefill_tokens"] = r.bound.prefill_tokens;
    }
    results.push_back(std::move(j));
  }
  return results;
}

Json header(const char* kind, const ShardReport& shard) {
  Json doc = Json::object();
  doc["schema"] = kShardSchema;
  doc["kind"] = kind;
  Json& place = doc["shard"];
  place["index"] = shard.shard.index;
  place["count"] = shard.shard.count;
  doc["runs"] = shard.total_runs;
  return doc;
}

// ---------------------------------------------------------------------------
// Reading documents back. Each reader returns false with a message naming
// what is wrong; the caller adds the document's name.

bool read_uint(const Json& obj, const char* key, std::uint64_t& out, std::string& error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_unsigned()) {
    error = std::string(key) + " must be a non-negative integer";
    return false;
  }
  out = it->get<std::uint64_t>();
  return true;
}

bool read_int(const Json& obj, const char* key, std::int64_t& out, std::string& error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) {
    error = std::string(key) + " must be an integer";
    return false;
  }
  out = it->get<std::int64_t>();
  return true;
}

bool read_double(const Json& obj, const char* key, double& out, std::string& error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) {
    error = std::string(key) + " must be a number";
    return false;
  }
  out = it->get<double>();
  return true;
}

bool read_bool(const Json& obj, const char* key, bool& out, std::string& error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_boolean()) {
    error = std::string(key) + " must be true or false";
    return false;
  }
  out = it->get<bool>();
  return true;
}

bool read_string(const Json& obj, const char* key, std::string& out, std::string& error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_string()) {
    error = std::string(key) + " must be a string";
    return false;
  }
  out = it->get<std::string>();
  return true;
}

bool read_hex(const Json& obj, const char* key, std::uint64_t& out, std::string& error) {
  std::string text;
  if (!read_string(obj, key, text, error)) return false;
  bool hex = text.size() == 16;
  out = 0;
  for (const char c : text) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    hex = hex && digit >= 0;
    out = out * 16 + static_cast<std::uint64_t>(digit < 0 ? 0 : digit);
  }
  if (!hex) error = std::string(key) + " must be 16 lowercase hex digits";
  return hex;
}

bool read_u32(const Json& obj, const char* key, std::uint32_t& out, std::string& error) {
  std::uint64_t v = 0;
  if (!read_uint(obj, key, v, error)) return false;
  if (v > 0xffffffffULL) {
    error = std::string(key) + " must be at most 4294967295";
    return false;
  }
  out = static_cast<std::uint32_t>(v);
  return true;
}

bool read_u32_array(const Json& obj, const char* key, std::vector<std::uint32_t>& out, std::string& error) {
  const auto it = obj.find(key);
  if (it == obj.end() || !it->is_array()) {
    error = std::string(key) + " must be an array of non-negative integers";
    return false;
  }
  for (const Json& v : *it) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 0xffffffffULL) {
      error = std::string(key) + " must be an array of non-negative integers";
      return false;
    }
    out.push_back(static_cast<std::uint32_t>(v.get<std::uint64_t>()));
  }
  return true;
}

// Replicate 0's batched timeline (runs_json), into `run`.
bool read_timeline(const Json& j, SimulationRun& run, std::string& e) {
  if (!j.is_object()) {
    e = "timeline must be an object (a batched run of the first replicate)";
    return false;
  }
  std::int64_t period = 0;
  if (!read_int(j, "period_ticks", period, e) || !read_u32_array(j, "batch", run.batch_samples, e) ||
      !read_u32_array(j, "kv_blocks", run.kv_block_samples, e))
    return false;
  const std::size_t n = run.replicas.size();
  if (period < 1 || run.batch_samples.size() != run.kv_block_samples.size() ||
      (n > 0 && run.batch_samples.size() % n != 0)) {
    e = "timeline must hold period_ticks >= 1 and as many batch as kv_blocks samples, a whole number per replica";
    return false;
  }
  run.in_flight_period = period;
  return true;
}

bool read_value(const Json& o, const char* key, std::uint64_t& v, std::string& e) { return read_uint(o, key, v, e); }
bool read_value(const Json& o, const char* key, std::int64_t& v, std::string& e) { return read_int(o, key, v, e); }
bool read_value(const Json& o, const char* key, std::uint32_t& v, std::string& e) { return read_u32(o, key, v, e); }
bool read_value(const Json& o, const char* key, double& v, std::string& e) { return read_double(o, key, v, e); }
bool read_value(const Json& o, const char* key, bool& v, std::string& e) { return read_bool(o, key, v, e); }

template <class Struct, std::size_t N>
bool read_figures(const Json& in, Struct& into, const Figure<Struct> (&figures)[N], std::string& error) {
  for (const Figure<Struct>& f : figures)
    if (!std::visit([&](auto member) { return read_value(in, f.key, into.*member, error); }, f.member)) return false;
  return true;
}

bool read_summary(const Json& j, RunSummary& s, bool batched, std::string& e) {
  if (!j.is_object()) {
    e = "summary must be an object";
    return false;
  }
  s.has_sessions = j.contains("sessions");
  s.has_client = j.contains("failed");
  s.has_slo = j.contains("slo_attainment");
  if (!(read_figures(j, s, kSummary, e) && (!s.has_sessions || read_figures(j, s, kSessionSummary, e)) &&
        (!batched || read_figures(j, s, kBatchedSummary, e)) &&
        (!s.has_client || read_figures(j, s, kClientSummary, e)) && (!s.has_slo || read_figures(j, s, kSloSummary, e))))
    return false;
  if (!s.has_client) return true;
  const auto stages = j.find("stages");
  if (stages == j.end() || !stages->is_array()) {
    e = "stages must be an array (a run with a client)";
    return false;
  }
  for (const Json& entry : *stages) {
    StageSummary st;
    if (!entry.is_object()) {
      e = "stages must hold objects";
      return false;
    }
    if (!read_figures(entry, st, kStage, e)) return false;
    s.stages.push_back(st);
  }
  return true;
}

bool read_replicas(const Json& j, std::vector<ReplicaTotals>& out, std::string& e, bool batched) {
  if (!j.is_array()) {
    e = "replicas must be an array";
    return false;
  }
  for (const Json& r : j) {
    if (!r.is_object()) {
      e = "replicas must hold objects";
      return false;
    }
    ReplicaTotals t;
    if (!read_figures(r, t, kReplica, e) || (batched && !read_figures(r, t, kBatchedReplica, e))) return false;
    out.push_back(t);
  }
  return true;
}

// The first dotted key where two JSON values differ ("" when equal).
std::string first_difference(const Json& a, const Json& b, const std::string& at = "") {
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string path = at.empty() ? key : at + "." + key;
      const auto other = b.find(key);
      if (other == b.end()) return path;
      const std::string d = first_difference(value, *other, path);
      if (!d.empty()) return d;
    }
    for (const auto& [key, value] : b.items())
      if (a.find(key) == a.end()) return at.empty() ? key : at + "." + key;
    return "";
  }
  return a.dump() == b.dump() ? "" : (at.empty() ? "(document)" : at);
}

std::string value_at(const Json& doc, const std::string& dotted) {
  const Json* node = &doc;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!node->is_object() || node->find(part) == node->end()) return "(absent)";
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const std::string text = node->dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

struct Parsed {
  std::string name;
  Json doc;
  Shard shard;
  std::uint64_t runs = 0;
  std::string kind;
};

// Whether the results JSON of `scenario` shows its hardware summary, whose
// "source" of each derivable field tells given from default: the canonical
// scenario does not (without hardware.model it writes every value, which
// then reads back as given), so such a shard document lists the given ones.
bool needs_given(const Scenario& scenario) {
  return scenario.cluster.engine == EngineKind::Batched || scenario.hardware.enabled();
}

Json given_json(const Scenario& scenario) {
  Json keys = Json::array();
  for (std::size_t i = 0; i < kDerivableCount; ++i)
    if ((scenario.given >> i & 1u) != 0) keys.push_back(std::string(kDerivableFields[i]));
  return keys;
}

// The "given" list of a shard document into scenario.given.
bool read_given(const Json& keys, Scenario& scenario, std::string& error) {
  error = "given must be an array of derivable field names (" + std::string(kDerivableFields[0]) + ", ...)";
  if (!keys.is_array()) return false;
  std::uint32_t bits = 0;
  for (const Json& k : keys) {
    if (!k.is_string()) return false;
    std::size_t i = 0;
    while (i < kDerivableCount && kDerivableFields[i] != k.get<std::string>()) ++i;
    if (i == kDerivableCount) return false;
    bits |= 1u << i;
  }
  scenario.given = bits;
  error.clear();
  return true;
}

}  // namespace

std::string experiment_shard_to_json(const Scenario& scenario, const ShardReport& shard) {
  Json doc = header("experiment", shard);
  doc["scenario"] = json_text::parse_unbounded(scenario_to_json(scenario));
  if (needs_given(scenario)) doc["given"] = given_json(scenario);
  doc["results"] = runs_json({&scenario}, shard);
  return doc.dump(2) + "\n";
}

std::string sweep_shard_to_json(const SweepSpec& spec, const SweepReport& plan, const ShardReport& shard) {
  std::vector<const Scenario*> points;
  for (const SweepPoint& p : plan.points) points.push_back(&p.scenario);
  Json doc = header("sweep", shard);
  Json values = Json::array();
  for (const std::string& v : spec.values) values.push_back(v);
  Json& sweep = doc["sweep"];
  sweep["key"] = spec.key;
  sweep["values"] = std::move(values);
  Json scenarios = Json::array();
  for (const Scenario* s : points) scenarios.push_back(json_text::parse_unbounded(scenario_to_json(*s)));
  doc["scenarios"] = std::move(scenarios);
  doc["results"] = runs_json(points, shard);
  return doc.dump(2) + "\n";
}

MergedShards merge_shards(const std::vector<ShardInput>& documents) {
  MergedShards merged;
  auto fail = [&](const std::string& field, const std::string& message) {
    merged.errors.push_back({field, message});
    return merged;
  };
  if (documents.empty()) return fail("(shards)", "no shard documents given; give all N shards of one run");

  // 1. Each document on its own: a shard document with a well-formed header.
  std::vector<Parsed> parsed;
  for (const ShardInput& input : documents) {
    Parsed p;
    p.name = input.name;
    std::string error;
    const std::string field = "(shard " + input.name + ")";
    if (!json_text::parse(input.text, p.doc, error, kMaxShardBytes)) {
      merged.errors.push_back({field, "not JSON: " + error});
      continue;
    }
    std::string schema;
    if (!p.doc.is_object() || !read_string(p.doc, "schema", schema, error) || schema != kShardSchema) {
      merged.errors.push_back({field, std::string("not a shard document (no \"schema\": \"") + kShardSchema +
                                          "\"); a results or sweep JSON cannot be merged, only the --shard outputs"});
      continue;
    }
    std::uint64_t index = 0, count = 0;
    const auto shard_it = p.doc.find("shard");
    if (!read_string(p.doc, "kind", p.kind, error) || (p.kind != "experiment" && p.kind != "sweep") ||
        shard_it == p.doc.end() || !shard_it->is_object() || !read_uint(*shard_it, "index", index, error) ||
        !read_uint(*shard_it, "count", count, error) || count < 1 || count > kMaxShards || index < 1 ||
        index > count || !read_uint(p.doc, "runs", p.runs, error)) {
      merged.errors.push_back({field, "a malformed shard header (kind, shard.index 1..count, shard.count, runs)" +
                                          (error.empty() ? std::string() : ": " + error)});
      continue;
    }
    p.shard = Shard{static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
    parsed.push_back(std::move(p));
  }
  if (!merged.errors.empty()) return merged;

  // 2. Together: one kind, one scenario (or sweep), one shard count, each shard once.
  const Parsed& first = parsed.front();
  const char* what = first.kind == "experiment" ? "scenario" : "scenarios";
  for (const Parsed& p : parsed) {
    const std::string field = "(shard " + p.name + ")";
    if (p.kind != first.kind) {
      merged.errors.push_back({field, "is a shard of a " + p.kind + " but " + first.name + " is of a " + first.kind});
      continue;
    }
    if (p.shard.count != first.shard.count) {
      merged.errors.push_back({field, "is shard " + std::to_string(p.shard.index) + "/" + std::to_string(p.shard.count) +
                                          " but " + first.name + " is one of " + std::to_string(first.shard.count) +
                                          ": shards of one run share N"});
      continue;
    }
    if (p.kind == "sweep") {
      const Json& a = first.doc.contains("sweep") ? first.doc["sweep"] : Json();
      const Json& b = p.doc.contains("sweep") ? p.doc["sweep"] : Json();
      if (a.dump() != b.dump()) {
        merged.errors.push_back({field, "sweeps another spec than " + first.name + " (" + b.dump().substr(0, 80) +
                                            " vs " + a.dump().substr(0, 80) + ")"});
        continue;
      }
    }
    const Json& a = first.doc.contains(what) ? first.doc[what] : Json();
    const Json& b = p.doc.contains(what) ? p.doc[what] : Json();
    if (a.dump() != b.dump()) {
      const std::string key = first_difference(a, b);
      merged.errors.push_back({field, "runs another scenario than " + first.name + ": " + key + " is " +
                                          value_at(b, key) + " here and " + value_at(a, key) + " there"});
      continue;
    }
    const Json given_a = first.doc.contains("given") ? first.doc["given"] : Json();
    const Json given_b = p.doc.contains("given") ? p.doc["given"] : Json();
    if (given_a.dump() != given_b.dump()) {
      merged.errors.push_back({field, "runs another scenario than " + first.name + ": the given fields are " +
                                          given_b.dump().substr(0, 80) + " here and " +
                                          given_a.dump().substr(0, 80) + " there"});
      continue;
    }
    if (p.runs != first.runs)
      merged.errors.push_back({field, "counts " + std::to_string(p.runs) + " runs but " + first.name + " counts " +
                                          std::to_string(first.runs)});
  }
  if (!merged.errors.empty()) return merged;
  const std::size_t n = first.shard.count;
  std::vector<const Parsed*> by_index(n + 1, nullptr);
  for (const Parsed& p : parsed) {
    if (by_index[p.shard.index] != nullptr) {
      merged.errors.push_back({"(shards)", "shard " + std::to_string(p.shard.index) + "/" + std::to_string(n) +
                                               " is given twice: " + by_index[p.shard.index]->name + " and " + p.name});
      continue;
    }
    by_index[p.shard.index] = &p;
  }
  std::string missing;
  for (std::size_t k = 1; k <= n; ++k)
    if (by_index[k] == nullptr) missing += (missing.empty() ? "" : ", ") + std::to_string(k) + "/" + std::to_string(n);
  if (!missing.empty())
    merged.errors.push_back({"(shards)", "missing shard" + std::string(missing.find(',') != std::string::npos ? "s " : " ") +
                                             missing + ": every shard 1/" + std::to_string(n) + " .. " +
                                             std::to_string(n) + "/" + std::to_string(n) + " must be given once"});
  if (!merged.errors.empty()) return merged;

  // 3. The scenario(s): valid, and the run count they imply.
  std::vector<Scenario> scenarios;
  const auto read_scenario = [&](const Json& doc, const std::string& where) {
    const ScenarioParse s = parse_scenario(doc.dump());
    if (!s.ok()) {
      for (const FieldError& e : s.errors) merged.errors.push_back({e.field, e.message + " (in the shards' " + where + ")"});
      return;
    }
    scenarios.push_back(s.scenario);
  };
  if (first.kind == "experiment") {
    merged.kind = MergedShards::Kind::Experiment;
    read_scenario(first.doc.contains("scenario") ? first.doc["scenario"] : Json(), "scenario");
    std::string error;
    if (!scenarios.empty() && first.doc.contains("given") && !read_given(first.doc["given"], scenarios.front(), error))
      return fail("(shard " + first.name + ")", error);
  } else {
    merged.kind = MergedShards::Kind::Sweep;
    const Json& sweep = first.doc["sweep"];
    std::string error;
    if (!sweep.is_object() || !read_string(sweep, "key", merged.spec.key, error) || !sweep.contains("values") ||
        !sweep["values"].is_array())
      return fail("(shard " + first.name + ")", "a sweep shard needs sweep.key and sweep.values");
    for (const Json& v : sweep["values"]) {
      if (!v.is_string()) return fail("(shard " + first.name + ")", "sweep.values must be strings");
      merged.spec.values.push_back(v.get<std::string>());
    }
    const Json& list = first.doc.contains("scenarios") ? first.doc["scenarios"] : Json();
    if (!list.is_array() || list.size() != merged.spec.values.size())
      return fail("(shard " + first.name + ")", "a sweep shard needs one scenario per sweep value");
    for (std::size_t i = 0; i < list.size(); ++i) read_scenario(list[i], "scenario of sweep value " + std::to_string(i));
  }
  if (!merged.errors.empty()) return merged;
  std::vector<std::size_t> point_start;  // flat index of each point's run 0
  std::size_t total = 0;
  for (const Scenario& s : scenarios) {
    point_start.push_back(total);
    total += run_count(s);
  }
  if (total != first.runs)
    return fail("(shards)", "the shards count " + std::to_string(first.runs) + " runs but their " + what + " make " +
                                std::to_string(total));

  // 4. Every run exactly once, in the shard that owns it.
  std::vector<std::vector<engine::RunRecord>> records(scenarios.size());
  for (std::size_t p = 0; p < scenarios.size(); ++p) records[p].resize(run_count(scenarios[p]));
  std::vector<bool> seen(total, false);
  for (const Parsed& p : parsed) {
    const std::string field = "(shard " + p.name + ")";
    const Json& results = p.doc.contains("results") ? p.doc["results"] : Json();
    if (!results.is_array()) {
      merged.errors.push_back({field, "results must be an array of runs"});
      continue;
    }
    for (const Json& r : results) {
      std::string error;
      std::uint64_t run = 0;
      if (!r.is_object() || !read_uint(r, "run", run, error) || run >= total) {
        merged.errors.push_back({field, "a run entry without a valid run index (0.." + std::to_string(total - 1) + ")"});
        break;
      }
      const std::string at = "run " + std::to_string(run) + ": ";
      if (!p.shard.selects(run)) {
        merged.errors.push_back({field, at + "belongs to shard " + std::to_string(run % n + 1) + "/" + std::to_string(n) +
                                            ", not " + std::to_string(p.shard.index) + "/" + std::to_string(n)});
        break;
      }
      if (seen[run]) {
        merged.errors.push_back({field, at + "listed twice"});
        break;
      }
      seen[run] = true;
      std::size_t point = 0;
      while (point + 1 < point_start.size() && point_start[point + 1] <= run) ++point;
      const Scenario& scenario = scenarios[point];
      const std::size_t in_point = run - point_start[point];
      const RunKey key = run_key(scenario, in_point);
      engine::RunRecord& record = records[point][in_point];
      const Json& w = r.contains("workload") ? r["workload"] : Json();
      bool ok = w.is_object() && read_uint(w, "requests", record.requests, error) &&
                read_uint(w, "prompt_tokens", record.prompt_tokens, error) &&
                read_hex(w, "fingerprint", record.fingerprint, error);
      const std::size_t policies = scenario.policies.size();
      if (ok && key.phase < policies) {
        std::string policy;
        SimulationRun& sim = record.outcome.run;
        // "batched" is written only for the batched engine's runs.
        ok = read_string(r, "policy", policy, error) && read_bool(r, "decode", sim.decode, error) &&
             (!r.contains("batched") || read_bool(r, "batched", sim.batched, error));
        const Json& summary = r.contains("summary") ? r["summary"] : Json();
        ok = ok && read_summary(summary, record.outcome.summary, sim.batched, error) &&
             read_replicas(r.contains("replicas") ? r["replicas"] : Json(), sim.replicas, error, sim.batched) &&
             (!sim.batched || key.replicate != 0 ||
              read_timeline(r.contains("timeline") ? r["timeline"] : Json(), sim, error));
        if (ok && sim.batched != (scenario.cluster.engine == EngineKind::Batched)) {
          error = std::string(sim.batched ? "is" : "is not") + " a batched engine's run but the scenario's "
                  "cluster.engine is " + (sim.batched ? "fifo" : "batched");
          ok = false;
        }
        if (ok && policy != scenario.policies[key.phase]) {
          error = "policy is \"" + policy + "\" but the scenario's policy " + std::to_string(key.phase) + " is \"" +
                  scenario.policies[key.phase] + "\"";
          ok = false;
        }
        record.outcome.policy = policy;
      } else if (ok) {
        std::string bound;
        const char* want = key.phase == policies ? "ideal" : "pooled";
        ok = read_string(r, "bound", bound, error) && read_uint(r, "capacity_tokens", record.bound.capacity_tokens, error) &&
             read_double(r, "hit_rate", record.bound.hit_rate, error) &&
             read_uint(r, "cached_tokens", record.bound.cached_tokens, error) &&
             read_uint(r, "prefill_tokens", record.bound.prefill_tokens, error);
        if (ok && bound != want) {
          error = std::string("is the ") + want + " bound's run, not \"" + bound + "\"";
          ok = false;
        }
      }
      if (!ok) {
        merged.errors.push_back({field, at + (error.empty() ? "malformed" : error)});
        break;
      }
      record.has_workload = record.done = true;
    }
  }
  if (!merged.errors.empty()) return merged;
  for (std::size_t i = 0; i < total; ++i)
    if (!seen[i]) {
      const Parsed& owner = *by_index[i % n + 1];
      return fail("(shard " + owner.name + ")", "run " + std::to_string(i) + " is missing (shard " +
                                                    std::to_string(i % n + 1) + "/" + std::to_string(n) +
                                                    " runs it): was that shard cancelled or cut short?");
    }
  // The runs of one seed ran on one trace.
  for (std::size_t p = 0; p < scenarios.size(); ++p) {
    const std::size_t per_replicate = scenarios[p].policies.size() + 2;
    for (std::size_t i = 0; i < records[p].size(); ++i) {
      const engine::RunRecord& a = records[p][i - i % per_replicate];
      const engine::RunRecord& b = records[p][i];
      if (a.requests != b.requests || a.prompt_tokens != b.prompt_tokens || a.fingerprint != b.fingerprint)
        return fail("(shards)", "runs " + std::to_string(point_start[p] + i - i % per_replicate) + " and " +
                                    std::to_string(point_start[p] + i) + " ran on different workloads (fingerprints " +
                                    hashing::to_hex16(a.fingerprint) + " and " + hashing::to_hex16(b.fingerprint) +
                                    "): the shards were made by different builds of prefixroute");
    }
  }

  // 5. The report one machine would have made.
  if (merged.kind == MergedShards::Kind::Experiment) {
    merged.scenario = scenarios.front();
    merged.report = engine::assemble(merged.scenario, std::move(records.front()), false);
  } else {
    for (std::size_t p = 0; p < scenarios.size(); ++p) {
      SweepPoint point{merged.spec.values[p], scenarios[p], {}};
      point.report = engine::assemble(point.scenario, std::move(records[p]), false);
      merged.sweep.points.push_back(std::move(point));
    }
  }
  return merged;
}

}  // namespace prefixroute
