// GoogleTest assertions on the errors the core returns as values: a refused
// scenario, override, sweep value or replay names the field (FieldError::field)
// and says what was wrong and what is allowed (FieldError::message). A test of
// bad input asserts both, not merely that something failed:
//
//   EXPECT_TRUE(has_error(parse_scenario("", {{"cluster.replicas", "0"}}),
//                         "cluster.replicas", {"[1, 4096]", "got 0"}));
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute::testsupport {

/// The first error on `field`, or nullptr.
inline const FieldError* error_for(const std::vector<FieldError>& errors, std::string_view field) {
  for (const FieldError& e : errors)
    if (e.field == field) return &e;
  return nullptr;
}

/// Success when `errors` has an error on `field` whose message contains every
/// fragment (the success message is that error's message); the failure names
/// the missing field or fragment and lists every error.
inline ::testing::AssertionResult has_error(const std::vector<FieldError>& errors, std::string_view field,
                                            const std::vector<std::string>& fragments = {}) {
  if (errors.empty()) return ::testing::AssertionFailure() << "no errors at all";
  const FieldError* e = error_for(errors, field);
  if (e == nullptr) {
    std::string all;
    for (const FieldError& x : errors) all += x.field + ": " + x.message + "\n";
    return ::testing::AssertionFailure() << "no error names " << field << "; errors:\n" << all;
  }
  for (const std::string& f : fragments)
    if (e->message.find(f) == std::string::npos)
      return ::testing::AssertionFailure() << field << ": message \"" << e->message << "\" lacks \"" << f << "\"";
  return ::testing::AssertionSuccess() << e->message;
}

/// has_error on a parse's errors; fails with "parsed without errors" when it has none.
inline ::testing::AssertionResult has_error(const ScenarioParse& p, std::string_view field,
                                            const std::vector<std::string>& fragments = {}) {
  if (p.ok()) return ::testing::AssertionFailure() << "parsed without errors";
  return has_error(p.errors, field, fragments);
}

}  // namespace prefixroute::testsupport
