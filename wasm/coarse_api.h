// The coarse API's argument checks, shared by the binding files.
//
// bindings.cpp owns them (its anonymous namespace); these are thin exported
// wrappers, so that another binding file (sweep_bindings.cpp) checks a
// scenario exactly as runScenario does: the same type checks on the JS
// arguments, the same override parsing, the same refusal of trace replay and
// the same memory bound, with the same fields and messages.
#pragma once

#include <emscripten/val.h>

#include <vector>

#include "prefixroute/scenario.h"

namespace prefixroute_wasm {

/// {ok: false, errors: [{field, message}, ...]}.
emscripten::val failure(const std::vector<prefixroute::FieldError>& errors);

/// Parses scenarioJson + overridesJson (JS values; must be strings) as
/// runScenario does, including its checks that the module can run the result.
prefixroute::ScenarioParse parse_with_overrides(const emscripten::val& scenario_json,
                                                const emscripten::val& overrides_json);

}  // namespace prefixroute_wasm
