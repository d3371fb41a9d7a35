// What every scenario parse must satisfy, whatever its input: the property the
// scenario and URL-state fuzzers (fuzz/scenario_fuzzer.cpp,
// fuzz/url_state_fuzzer.cpp) check on each input. Free of GoogleTest so the
// fuzzers can use it.
//   - a refusal names a field for every error, each with a message;
//   - an accepted scenario passes validate(), and its canonical JSON parses
//     back to the same canonical JSON.
#pragma once

#include <string>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute::testsupport {

/// "" when `parse` has the properties above, else the one that fails (with the
/// parse-back errors when the canonical JSON is refused).
inline std::string parse_property_violation(const ScenarioParse& parse) {
  if (!parse.ok()) {
    for (const FieldError& e : parse.errors)
      if (e.field.empty() || e.message.empty()) return "an error without field or message";
    return "";
  }
  if (!validate(parse.scenario).empty()) return "accepted scenario fails validate()";
  const std::string canonical = scenario_to_json(parse.scenario);
  const ScenarioParse again = parse_scenario(canonical);
  if (!again.ok()) return "canonical JSON does not parse back: " + canonical + "\n" + again.error_text();
  if (scenario_to_json(again.scenario) != canonical) return "canonical JSON round trip differs";
  return "";
}

}  // namespace prefixroute::testsupport
