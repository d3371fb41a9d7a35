#include "prefixroute/run/run_list.h"

#include <string>

namespace prefixroute {

bool parse_shard(std::string_view text, Shard& out, std::string& error) {
  const auto fail = [&] {
    error = "expected K/N with 1 <= K <= N <= " + std::to_string(kMaxShards) + " (e.g. 2/3: the second of three "
            "shards); got \"" + std::string(text.substr(0, 40)) + "\"";
    return false;
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return fail();
  const auto read = [](std::string_view digits, std::size_t& value) {
    if (digits.empty() || digits.size() > 6) return false;
    value = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<std::size_t>(c - '0');
    }
    return true;
  };
  Shard s;
  if (!read(text.substr(0, slash), s.index) || !read(text.substr(slash + 1), s.count)) return fail();
  if (s.index < 1 || s.count < 1 || s.index > s.count || s.count > kMaxShards) return fail();
  out = s;
  return true;
}

std::size_t run_count(const Scenario& scenario) {
  return static_cast<std::size_t>(scenario.replicates) * (scenario.policies.size() + 2);
}

RunKey run_key(const Scenario& scenario, std::size_t index) {
  const std::size_t per_replicate = scenario.policies.size() + 2;
  return RunKey{index / per_replicate, index % per_replicate};
}

Scenario replicate_scenario(const Scenario& scenario, std::size_t r) {
  Scenario s = scenario;
  s.seed += r;
  s.replicates = 1;
  return s;
}

}  // namespace prefixroute
