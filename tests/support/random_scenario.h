// Random valid scenarios for tests: every field of the schema's field table
// (scenario_fields()) drawn within its allowed range, with the fields that set
// the size of a run capped so hundreds of scenarios run in seconds. Fields
// added to the schema later are drawn from their whole range automatically;
// the rules the field table cannot state (hardware.tp in 1, 2, 4, 8; weights
// that fit their GPUs; no fifo decode time under the batched engine; a step
// budget of at least max_running; a multi-turn pool sent cycled; SLO
// percentiles of three decimals and a TPOT target only under the batched
// engine; the topology left aggregated) are applied after the draw.
//
// Independent of the catalogue. Case `index` of a stream (its master seed)
// is the same whatever the catalogue holds: each value is drawn from a stream
// of its own, seeded from the case and the name of what it draws (a field's
// key, a cross-field rule, a policy's name), never from a shared sequence
// whose position would move when a policy adds parameters or a catalogue
// line. A policy is in a case's list when its own draw falls below the case's
// density; the list is ordered by each policy's own sort key. So adding a
// policy to the catalogue adds it to some cases and adds its parameters to
// every case, and changes nothing else: every other policy is listed in the
// same cases, in the same relative order, with the same parameters and the
// same workload, cluster and router (tests/policies/random_scenario_test.cpp).
// A case whose draws list no policy cannot be run (RandomCase::runnable()).
//
// The policy-independent fields are drawn again under a new attempt when
// parse_scenario refuses a case (a cross-field rule the draw does not know);
// the policy list and the policies' parameters are drawn once per case, so a
// refusal they caused would repeat on every attempt and be reported, never
// silently move the case.
//
// Used by tests/property_test.cpp (properties over 200 scenarios) and by the
// prefixroute-random-scenarios tool (tests/random_scenarios_tool.cpp), which
// prints scenarios for the native == wasm comparison in Node and Chromium.
// Uses <cmath> freely: only the drawn values matter, and they are printed as
// canonical scenario JSON before any run.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::testsupport {

inline std::string number_text(double v, bool integer) {
  char text[40];
  if (integer) std::snprintf(text, sizeof text, "%.0f", v);
  else std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// A value in [lo, hi]: an end point now and then, else uniform, or
// log-uniform when the range spans orders of magnitude.
inline double draw(Rng& rng, double lo, double hi, bool integer) {
  const auto pick = rng.uniform_int(0, 9);
  double v;
  if (pick == 0) {
    v = lo;
  } else if (pick == 1) {
    v = hi;
  } else if (lo > 0 && hi / lo > 1000 && pick < 6) {
    v = lo * std::exp(rng.uniform01() * std::log(hi / lo));
  } else if (lo == 0 && hi > 1000 && pick < 6) {
    v = std::exp(rng.uniform01() * std::log(hi + 1)) - 1;
  } else {
    v = lo + rng.uniform01() * (hi - lo);
  }
  if (integer) v = std::floor(v);
  return std::clamp(v, lo, hi);
}

// Caps on the fields that set the size of a run (inclusive ranges, within the
// schema's). Everything else is drawn from its whole allowed range.
inline const std::map<std::string_view, std::pair<double, double>>& size_caps() {
  static const std::map<std::string_view, std::pair<double, double>> caps = {
      {"replicates", {1, 3}},
      {"workload.requests", {1, 300}},
      {"workload.tenants", {1, 20}},
      {"workload.prefix_tokens_min", {0, 200}},
      {"workload.prefix_tokens_max", {0, 200}},
      {"workload.turn_tokens_min", {1, 100}},
      {"workload.turn_tokens_max", {1, 100}},
      {"workload.output_tokens_min", {0, 200}},
      {"workload.output_tokens_max", {0, 200}},
      {"workload.turns_mean", {1, 10}},
      {"workload.calls_per_turn", {1, 10}},
      {"workload.tool_tokens_min", {0, 100}},
      {"workload.tool_tokens_max", {0, 100}},
      {"workload.reply_tokens_min", {0, 100}},
      {"workload.reply_tokens_max", {0, 100}},
      {"workload.context_tokens_max", {1, 2000}},
      {"workload.summary_tokens", {0, 100}},
      {"workload.gsp_num_groups", {1, 20}},
      {"workload.gsp_prompts_per_group", {1, 20}},
      {"workload.gsp_system_prompt_len", {0, 200}},
      {"workload.gsp_question_len", {1, 100}},
      {"workload.gsp_output_len", {0, 200}},
      {"workload.shared_prefix_num_groups", {1, 20}},
      {"workload.shared_prefix_num_prompts_per_group", {1, 20}},
      {"workload.shared_prefix_system_prompt_len", {0, 200}},
      {"workload.shared_prefix_system_prompt_len_std", {0, 100}},
      {"workload.shared_prefix_system_prompt_len_min", {0, 200}},
      {"workload.shared_prefix_system_prompt_len_max", {0, 200}},
      {"workload.shared_prefix_question_len", {1, 100}},
      {"workload.shared_prefix_question_len_std", {0, 50}},
      {"workload.shared_prefix_question_len_min", {1, 100}},
      {"workload.shared_prefix_question_len_max", {1, 100}},
      {"workload.shared_prefix_output_len", {0, 200}},
      {"workload.shared_prefix_output_len_std", {0, 100}},
      {"workload.shared_prefix_output_len_min", {0, 200}},
      {"workload.shared_prefix_output_len_max", {0, 200}},
      {"workload.prefix_repetition_prefix_len", {0, 200}},
      {"workload.prefix_repetition_suffix_len", {1, 100}},
      {"workload.prefix_repetition_num_prefixes", {1, 20}},
      {"workload.prefix_repetition_output_len", {0, 200}},
      {"workload.cumulative_pool_prompts", {1, 300}},
      // At least prefix_tokens_max + turn_tokens_max (at most 300 here), or refused.
      {"workload.cumulative_max_prompt_tokens", {300, 8192}},
      {"cluster.replicas", {1, 8}},
      {"cluster.cache_tokens", {0, 2000}},
      // Each router instance is a policy with its own state: 256 of them make a
      // 300-request run cost as much as 256 runs.
      {"router.instances", {1, 4}},
  };
  return caps;
}

// Pairs of fields that must be ordered (min <= max).
inline const std::vector<std::pair<std::string_view, std::string_view>> kOrdered = {
    {"workload.prefix_tokens_min", "workload.prefix_tokens_max"},
    {"workload.turn_tokens_min", "workload.turn_tokens_max"},
    {"workload.output_tokens_min", "workload.output_tokens_max"},
    {"workload.tool_tokens_min", "workload.tool_tokens_max"},
    {"workload.reply_tokens_min", "workload.reply_tokens_max"},
    {"workload.shared_prefix_system_prompt_len_min", "workload.shared_prefix_system_prompt_len_max"},
    {"workload.shared_prefix_question_len_min", "workload.shared_prefix_question_len_max"},
    {"workload.shared_prefix_output_len_min", "workload.shared_prefix_output_len_max"},
};

/// The stream of tests/property_test.cpp's RandomScenarios suite.
inline constexpr std::uint64_t kPropertySuiteSeed = 0x5EED'0007;

// A policy is in a case's list when its own uniform draw is below the case's
// density, drawn in this range: lists of every length in between, and a list
// of none only now and then (below 1 % of cases with today's catalogue).
inline constexpr double kDensityMin = 0.15;
inline constexpr double kDensityMax = 0.85;

// FNV-1a of a name: the name's part of its stream's seed (the same on every
// platform and in every build, unlike std::hash).
inline std::uint64_t name_hash(std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The stream of draws named `name` under `seed`.
inline Rng named_stream(std::uint64_t seed, std::string_view name) { return Rng(mix_seed(seed, name_hash(name))); }

/// One random case: the overrides that make its scenario (empty when it
/// lists no policy) and its policy list, in the order the scenario lists it.
struct RandomCase {
  std::vector<Override> overrides;
  std::vector<std::string> policies;
  bool runnable() const { return !policies.empty(); }
};

/// The policies of case `case_seed` among `catalogue`, in the case's order.
inline std::vector<std::string> random_policy_list(std::uint64_t case_seed,
                                                   const std::vector<const PolicySpec*>& catalogue) {
  Rng density_stream = named_stream(case_seed, "policies");
  const double density = kDensityMin + density_stream.uniform01() * (kDensityMax - kDensityMin);
  std::vector<std::pair<std::uint64_t, std::string>> listed;  // (sort key, name)
  for (const PolicySpec* spec : catalogue) {
    const std::string name(spec->name());
    Rng own = named_stream(case_seed, "policies:" + name);
    const bool in = own.uniform01() < density;
    const std::uint64_t sort_key = own.next_u64();
    if (in) listed.emplace_back(sort_key, name);
  }
  std::sort(listed.begin(), listed.end());  // names are unique: ties on the key are ordered by name
  std::vector<std::string> names;
  for (auto& entry : listed) names.push_back(std::move(entry.second));
  return names;
}

/// Case `index` of the stream `master_seed`, drawn for the policies of
/// `catalogue` (the whole catalogue unless a test asks what a shorter one
/// gives); `attempt` redraws its policy-independent fields (see the top).
inline RandomCase random_case(std::uint64_t master_seed, std::uint64_t index, std::uint32_t attempt,
                              const std::vector<const PolicySpec*>& catalogue = policy_catalogue()) {
  const std::uint64_t case_seed = mix_seed(master_seed, index);
  const std::uint64_t attempt_seed = mix_seed(case_seed, attempt);
  RandomCase out;
  out.policies = random_policy_list(case_seed, catalogue);
  if (!out.runnable()) return out;
  const auto in_catalogue = [&](std::string_view policy) {
    for (const PolicySpec* spec : catalogue)
      if (spec->name() == policy) return true;
    return false;
  };
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
  for (const FieldSpec& f : scenario_fields()) {
    if (!f.policy.empty() && !in_catalogue(f.policy)) continue;  // a policy the caller leaves out
    const std::string key(f.key);
    Rng rng = named_stream(f.policy.empty() ? attempt_seed : case_seed, key);
    if (f.kind == FieldKind::Integer || f.kind == FieldKind::Number) {
      const bool integer = f.kind == FieldKind::Integer;
      const auto cap = size_caps().find(f.key);
      if (cap != size_caps().end()) {
        numbers[key] = draw(rng, cap->second.first, cap->second.second, integer);
      } else if (rng.uniform_int(0, 2) != 0) {  // a third keep their defaults
        numbers[key] = draw(rng, f.min, f.max, integer);
      }
    } else if (f.kind == FieldKind::Text) {
      if (f.choices.empty()) continue;  // names and hashes of a replayed file: not a synthetic run
      std::vector<std::string> choices;
      std::string_view rest = f.choices;
      while (true) {
        const auto comma = rest.find(',');
        choices.emplace_back(rest.substr(0, comma));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      texts[key] = choices[rng.uniform_int(0, choices.size() - 1)];
    } else {  // the policy list, drawn above
      std::string list;
      for (const auto& n : out.policies) list += (list.empty() ? "" : ",") + n;
      out.overrides.emplace_back(key, list);
    }
  }
  for (const auto& [lo, hi] : kOrdered) {
    const auto a = numbers.find(std::string(lo)), b = numbers.find(std::string(hi));
    if (a != numbers.end() && b != numbers.end() && a->second > b->second) std::swap(a->second, b->second);
  }
  // The topology stays aggregated, its fields at their defaults (a changed
  // one is refused when aggregated, which would redraw the case): the
  // properties are those of the aggregated cluster, and every case is the
  // one it was before the section existed. The disaggregated topology has
  // its own suites (tests/sim/disaggregated_simulator_test.cpp, the
  // native == wasm comparison of tests/js/native-parity.test.mjs).
  for (auto it = numbers.begin(); it != numbers.end();)
    it = it->first.rfind("topology.", 0) == 0 ? numbers.erase(it) : std::next(it);
  for (auto it = texts.begin(); it != texts.end();)
    it = it->first.rfind("topology.", 0) == 0 ? texts.erase(it) : std::next(it);
  // Rules across fields, each from a stream of its own.
  constexpr std::uint32_t kTp[] = {1, 2, 4, 8};
  Rng tp_stream = named_stream(attempt_seed, "rule:hardware.tp");
  numbers["hardware.tp"] = kTp[tp_stream.uniform_int(0, 3)];
  // An openai log's key choices under a named format of fixed keys are refused: they stay auto there.
  if (texts["trace.format"] == "mooncake" || texts["trace.format"] == "bailian")
    for (const char* key : {"trace.time_field", "trace.prompt_field", "trace.session_field"}) texts[key] = "auto";
  // A multi-turn pool is sent cycled (a random order bounds no session's rounds).
  if (texts["workload.shared_prefix_multi_turn"] == "on") texts["workload.shared_prefix_order"] = "cycle";
  const bool batched = texts["cluster.engine"] == "batched";
  if (batched) numbers.erase("cluster.decode_ms_per_token");
  // SLO percentiles have at most three decimals; a TPOT target needs the batched engine.
  for (const char* key : {"slo.ttft_percentile", "slo.tpot_percentile"})
    if (numbers.count(key)) numbers[key] = std::round(numbers[key] * 1000) / 1000;
  if (!batched) numbers.erase("slo.tpot_ms");
  if (batched && numbers.count("cluster.max_batched_tokens") && numbers.count("cluster.max_running") &&
      numbers["cluster.max_batched_tokens"] < numbers["cluster.max_running"])
    std::swap(numbers["cluster.max_batched_tokens"], numbers["cluster.max_running"]);
  if (batched && numbers.count("cluster.max_batched_tokens") && !numbers.count("cluster.max_running") &&
      numbers["cluster.max_batched_tokens"] < 256)
    numbers["cluster.max_running"] = numbers["cluster.max_batched_tokens"];
  if (batched && numbers.count("cluster.max_running") && !numbers.count("cluster.max_batched_tokens") &&
      numbers["cluster.max_running"] > 8192)
    numbers["cluster.max_batched_tokens"] = numbers["cluster.max_running"];
  // The client: in a third of the cases a kind with fields that fit it (and
  // that sends every request, as the properties expect), else the
  // workload's own timing.
  for (auto it = numbers.begin(); it != numbers.end();) it = it->first.rfind("client.", 0) == 0 ? numbers.erase(it) : std::next(it);
  texts.erase("client.kind");
  Rng client_stream = named_stream(attempt_seed, "rule:client");
  switch (client_stream.uniform_int(0, 8)) {
    case 0:
      texts["client.kind"] = "constant";
      numbers["client.rate_per_s"] = draw(client_stream, 1, 5000, false);
      break;
    case 1:
      texts["client.kind"] = "burst";
      break;
    case 2:
      texts["client.kind"] = "closed";
      numbers["client.concurrency"] = draw(client_stream, 1, 16, true);
      if (client_stream.uniform_int(0, 1) == 0) numbers["client.think_s"] = draw(client_stream, 0, 0.5, false);
      if (client_stream.uniform_int(0, 1) == 0) numbers["client.rate_per_s"] = draw(client_stream, 1, 2000, false);
      if (client_stream.uniform_int(0, 2) == 0) numbers["client.timeout_s"] = draw(client_stream, 0.01, 5, false);
      break;
    case 3: {
      // Closed stages: the last lasts long enough to send every request.
      texts["client.kind"] = "closed";
      const auto a = client_stream.uniform_int(1, 8), b = client_stream.uniform_int(1, 8);
      texts["client.stages"] = std::to_string(a) + "x" + number_text(draw(client_stream, 0.01, 2, false), false) +
                               "," + std::to_string(b) + "x10000000";
      if (client_stream.uniform_int(0, 1) == 0)
        numbers["client.stage_interval_s"] = draw(client_stream, 0, 1, false);
      break;
    }
    default:
      break;
  }
  if (texts["hardware.model"] != "none") {
    Rng hardware_stream = named_stream(attempt_seed, "rule:hardware.memory_utilization");
    numbers["hardware.memory_utilization"] = draw(hardware_stream, 0.8, 1.0, false);
    if (hardware_stream.uniform_int(0, 1) == 0) numbers.erase("cluster.cache_tokens");  // the derived capacity
    HardwareSettings h;
    h.model = texts["hardware.model"];
    h.gpu = texts["hardware.gpu"];
    h.tp = static_cast<std::uint32_t>(numbers["hardware.tp"]);
    h.weight_dtype = texts["hardware.weight_dtype"];
    h.kv_dtype = texts["hardware.kv_dtype"];
    h.memory_utilization = numbers["hardware.memory_utilization"];
    const auto block = numbers.count("cluster.kv_block_tokens") ? numbers["cluster.kv_block_tokens"] : 16.0;
    if (!derive_hardware(h, static_cast<std::uint32_t>(block)).ok()) {  // every preset fits 8 B200s
      texts["hardware.gpu"] = "b200";
      numbers["hardware.tp"] = 8;
    }
  }
  for (const FieldSpec& f : scenario_fields()) {
    const auto it = texts.find(std::string(f.key));
    if (it != texts.end()) out.overrides.emplace_back(it->first, it->second);
  }
  for (const FieldSpec& f : scenario_fields()) {
    const auto it = numbers.find(std::string(f.key));
    if (it != numbers.end()) out.overrides.emplace_back(it->first, number_text(it->second, f.kind == FieldKind::Integer));
  }
  return out;
}

/// Case `index` parsed: the first of five attempts parse_scenario accepts.
/// `refusals` collects why the others were refused (all five: !parse.ok()).
/// A case that lists no policy is not parsed (its parse stays default).
struct ParsedCase {
  RandomCase draw;
  ScenarioParse parse;
  std::string refusals;
};

inline ParsedCase parsed_random_case(std::uint64_t master_seed, std::uint64_t index,
                                     const std::vector<const PolicySpec*>& catalogue = policy_catalogue()) {
  ParsedCase out;
  for (std::uint32_t attempt = 0; attempt < 5; ++attempt) {
    out.draw = random_case(master_seed, index, attempt, catalogue);
    if (!out.draw.runnable()) return out;
    out.parse = parse_scenario("", out.draw.overrides);
    if (out.parse.ok()) return out;
    out.refusals += out.parse.error_text();
  }
  return out;
}

}  // namespace prefixroute::testsupport
