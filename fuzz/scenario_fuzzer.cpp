// Scenario parser + validator fuzzer.
//
// The input is read three ways: (1) as a scenario document; (2) as override
// pairs, one `dotted.key=value` a line, as the command line's --set list; (3)
// split at the first 0x01 byte into a document and override lines. Every call
// must return (never throw, crash or allocate without bound), and:
//   - a parse that fails names at least one field, each with a message;
//   - a parse that succeeds gives a scenario that validate() accepts, whose
//     canonical JSON parses back to the same canonical JSON;
//   - a valid scenario small enough to run in a few milliseconds is run:
//     every policy on one trace, then the results JSON (the simulator must
//     survive any combination of values the validator lets through).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/synthetic.h"
#include "scenario_properties.h"

namespace {

using prefixroute::Override;
using prefixroute::ScenarioParse;

[[noreturn]] void fail(const std::string& what, const ScenarioParse& parse) {
  std::fprintf(stderr, "SCENARIO PROPERTY VIOLATED: %s\nerrors:\n%s", what.c_str(), parse.error_text().c_str());
  std::abort();
}

std::vector<Override> override_lines(std::string_view text) {
  std::vector<Override> out;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const std::string_view line = text.substr(0, newline);
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) out.emplace_back(std::string(line), "");
    else out.emplace_back(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return out;
}

// Small enough to run under the sanitizers within a few milliseconds, for
// every workload kind (its request count and longest prompt: synthetic.h).
bool cheap(const prefixroute::Scenario& s) {
  const auto& w = s.workload;
  const prefixroute::SyntheticBounds b = prefixroute::synthetic_bounds(w);
  return b.requests * b.max_prompt_tokens <= 20000 && b.requests <= 200 && s.cluster.replicas <= 64 &&
         static_cast<double>(w.tenants) * w.prefix_tokens_max <= 20000 && b.shared_tokens + b.unique_tokens <= 1e6;
}

void check(const ScenarioParse& parse) {
  const std::string violation = prefixroute::testsupport::parse_property_violation(parse);
  if (!violation.empty()) fail(violation, parse);
  if (!parse.ok()) return;
  if (!parse.scenario.replays_trace() && cheap(parse.scenario)) {
    const auto report = prefixroute::run_experiment(parse.scenario);
    if (report.outcomes.size() != parse.scenario.policies.size()) fail("a policy produced no outcome", parse);
    const std::string json = prefixroute::results_to_json(parse.scenario, report);
    if (json.empty()) fail("empty results JSON", parse);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(prefixroute::parse_scenario(text));
  check(prefixroute::parse_scenario("", override_lines(text)));
  const auto split = text.find('\x01');
  if (split != std::string_view::npos)
    check(prefixroute::parse_scenario(text.substr(0, split), override_lines(text.substr(split + 1))));
  return 0;
}
