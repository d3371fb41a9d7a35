// The scenario's openai key choices (trace.time_field, prompt_field,
// session_field): defaults, the values allowed, a choice under a named
// format of fixed keys refused, and the echo in the canonical document.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "field_errors.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::trace_mapping_fields_test {
namespace {

using testsupport::has_error;

ScenarioParse with(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::vector<Override> overrides;
  for (const auto& [key, value] : pairs) {
    std::string error;
    EXPECT_TRUE(parse_assignment(key + "=" + value, overrides.emplace_back(), error)) << error;
  }
  return parse_scenario("", overrides);
}

}  // namespace

TEST(TraceMappingFields, DefaultToAutoAndAreEchoed) {
  const ScenarioParse p = with({});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.scenario.trace.time_field, "auto");
  EXPECT_EQ(p.scenario.trace.prompt_field, "auto");
  EXPECT_EQ(p.scenario.trace.session_field, "auto");
  const ScenarioParse chosen = with({{"trace.session_field", "user"}, {"trace.time_field", "created"}});
  ASSERT_TRUE(chosen.ok());
  const std::string json = scenario_to_json(chosen.scenario);
  EXPECT_NE(json.find(R"("session_field":"user")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("time_field":"created")"), std::string::npos) << json;
}

TEST(TraceMappingFields, AValueOutsideTheChoicesNamesThem) {
  EXPECT_TRUE(has_error(with({{"trace.session_field", "account"}}), "trace.session_field",
                        {"session_id", "user", "none"}));
  EXPECT_TRUE(has_error(with({{"trace.time_field", "date"}}), "trace.time_field", {"timestamp", "created"}));
  EXPECT_TRUE(has_error(with({{"trace.prompt_field", "text"}}), "trace.prompt_field", {"messages", "prompt"}));
}

TEST(TraceMappingFields, AChoiceUnderAFormatWithFixedKeysIsRefused) {
  EXPECT_TRUE(has_error(with({{"trace.format", "mooncake"}, {"trace.time_field", "created"}}), "trace.time_field",
                        {"openai", "trace.format is mooncake"}));
  EXPECT_TRUE(has_error(with({{"trace.format", "bailian"}, {"trace.session_field", "none"}}), "trace.session_field",
                        {"trace.format is bailian"}));
  EXPECT_TRUE(with({{"trace.format", "openai"}, {"trace.session_field", "none"}}).ok());
  EXPECT_TRUE(with({{"trace.format", "mooncake"}, {"trace.session_field", "auto"}}).ok());
}

}  // namespace prefixroute::trace_mapping_fields_test
