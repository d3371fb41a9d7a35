// Random valid scenarios for tests: every field of the schema's field table
// (scenario_fields()) drawn within its allowed range, with the fields that set
// the size of a run capped so hundreds of scenarios run in seconds. Fields
// added to the schema later are drawn from their whole range automatically;
// the rules the field table cannot state (hardware.tp in 1, 2, 4, 8; weights
// that fit their GPUs; no fifo decode time under the batched engine; a step
// budget of at least max_running) are applied after the draw.
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

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/base/random.h"
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
};

inline std::vector<Override> random_overrides(Rng& rng) {
  std::vector<Override> out;
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
  for (const FieldSpec& f : scenario_fields()) {
    const std::string key(f.key);
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
    } else {  // the policy list: a random non-empty subset in random order
      std::vector<std::string> names;
      for (const auto* info : policy_catalogue()) names.emplace_back(info->name());
      for (std::size_t i = names.size(); i > 1; --i) std::swap(names[i - 1], names[rng.uniform_int(0, i - 1)]);
      names.resize(rng.uniform_int(1, names.size()));
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ",") + n;
      out.emplace_back(key, list);
    }
  }
  for (const auto& [lo, hi] : kOrdered) {
    const auto a = numbers.find(std::string(lo)), b = numbers.find(std::string(hi));
    if (a != numbers.end() && b != numbers.end() && a->second > b->second) std::swap(a->second, b->second);
  }
  // Rules across fields.
  constexpr std::uint32_t kTp[] = {1, 2, 4, 8};
  numbers["hardware.tp"] = kTp[rng.uniform_int(0, 3)];
  const bool batched = texts["cluster.engine"] == "batched";
  if (batched) numbers.erase("cluster.decode_ms_per_token");
  if (batched && numbers.count("cluster.max_batched_tokens") && numbers.count("cluster.max_running") &&
      numbers["cluster.max_batched_tokens"] < numbers["cluster.max_running"])
    std::swap(numbers["cluster.max_batched_tokens"], numbers["cluster.max_running"]);
  if (batched && numbers.count("cluster.max_batched_tokens") && !numbers.count("cluster.max_running") &&
      numbers["cluster.max_batched_tokens"] < 256)
    numbers["cluster.max_running"] = numbers["cluster.max_batched_tokens"];
  if (batched && numbers.count("cluster.max_running") && !numbers.count("cluster.max_batched_tokens") &&
      numbers["cluster.max_running"] > 8192)
    numbers["cluster.max_batched_tokens"] = numbers["cluster.max_running"];
  if (texts["hardware.model"] != "none") {
    numbers["hardware.memory_utilization"] = draw(rng, 0.8, 1.0, false);
    if (rng.uniform_int(0, 1) == 0) numbers.erase("cluster.cache_tokens");  // the derived capacity
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
    if (it != texts.end()) out.emplace_back(it->first, it->second);
  }
  for (const FieldSpec& f : scenario_fields()) {
    const auto it = numbers.find(std::string(f.key));
    if (it != numbers.end()) out.emplace_back(it->first, number_text(it->second, f.kind == FieldKind::Integer));
  }
  return out;
}

}  // namespace prefixroute::testsupport
