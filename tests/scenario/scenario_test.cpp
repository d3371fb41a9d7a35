// Scenario documents: parsing, overrides, validation messages, canonical JSON
// and the published JSON Schema. Parsing must never throw: every call below
// that feeds it bad input is wrapped in EXPECT_NO_THROW.
#include "prefixroute/scenario/scenario.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/base/random.h"
#include "field_errors.h"
#include "random_scenario.h"

namespace prefixroute::scenario_test {
namespace {

using Json = nlohmann::json;
using testsupport::has_error;

ScenarioParse parse(std::string_view text, const std::vector<Override>& overrides = {}) {
  ScenarioParse result;
  EXPECT_NO_THROW(result = parse_scenario(text, overrides)) << text.substr(0, 80);
  return result;
}

std::vector<std::string> all_policy_names() {
  std::vector<std::string> names;
  for (const auto* info : policy_catalogue()) names.emplace_back(info->name());
  return names;
}

// Field-by-field equality of two scenarios (Scenario has no operator==).
::testing::AssertionResult same_scenario(const Scenario& a, const Scenario& b) {
  const auto& wa = a.workload;
  const auto& wb = b.workload;
  const bool same =
      a.seed == b.seed && wa.requests == wb.requests && wa.tenants == wb.tenants &&
      wa.zipf_s == wb.zipf_s && wa.arrival_rate_per_s == wb.arrival_rate_per_s &&
      wa.prefix_tokens_min == wb.prefix_tokens_min && wa.prefix_tokens_max == wb.prefix_tokens_max &&
      wa.turn_tokens_min == wb.turn_tokens_min && wa.turn_tokens_max == wb.turn_tokens_max &&
      wa.vocab_size == wb.vocab_size && a.cluster.replicas == b.cluster.replicas &&
      a.cluster.cache_tokens == b.cluster.cache_tokens &&
      a.cluster.protect_after_hits == b.cluster.protect_after_hits &&
      a.cluster.prefill.tokens_per_s == b.cluster.prefill.tokens_per_s &&
      a.policies == b.policies &&
      a.policy_params == b.policy_params &&
      a.trace.block_size == b.trace.block_size && a.trace.time_scale == b.trace.time_scale &&
      a.trace.limit == b.trace.limit && a.trace.on_error == b.trace.on_error &&
      a.trace.name == b.trace.name && a.trace.lines == b.trace.lines &&
      a.trace.skipped_lines == b.trace.skipped_lines &&
      a.trace.content_hash == b.trace.content_hash &&
      // Catches fields added after this helper was written.
      scenario_to_json(a) == scenario_to_json(b);
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "scenarios differ:\n"
                                       << scenario_to_json(a, 2) << "\nvs\n"
                                       << scenario_to_json(b, 2);
}

// ---------------------------------------------------------------------------
// Parsing valid documents

TEST(ParseScenario, EmptyTextGivesTheReferenceScenario) {
  const ScenarioParse p = parse("");
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_TRUE(same_scenario(p.scenario, Scenario::reference()));
}

TEST(ParseScenario, WhitespaceOnlyTextIsEmpty) {
  const ScenarioParse p = parse(" \n\t\r\n ");
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_TRUE(same_scenario(p.scenario, Scenario::reference()));
}

TEST(ParseScenario, ReferenceScenarioIsValidAndRunsTheSeedWriteUpsFourPolicies) {
  EXPECT_EQ(Scenario::reference().policies,
            (std::vector<std::string>{"round_robin", "least_loaded", "affinity", "affinity_balanced"}));
  EXPECT_TRUE(validate(Scenario::reference()).empty());
}

TEST(ParseScenario, MissingKeysTakeTheirDefaults) {
  const ScenarioParse p = parse(R"({"cluster": {"replicas": 8}})");
  ASSERT_TRUE(p.ok()) << p.error_text();
  Scenario expected = Scenario::reference();
  expected.cluster.replicas = 8;
  EXPECT_TRUE(same_scenario(p.scenario, expected));
}

TEST(ParseScenario, ReadsEveryNumericField) {
  const ScenarioParse p = parse(R"({
    "schema_version": 1,
    "seed": 7,
    "workload": {"requests": 123, "tenants": 5, "zipf_s": 0.75, "arrival_rate_per_s": 12.5,
                 "prefix_tokens_min": 10, "prefix_tokens_max": 20, "turn_tokens_min": 3,
                 "turn_tokens_max": 9, "vocab_size": 777},
    "cluster": {"replicas": 3, "cache_tokens": 456, "prefill_tokens_per_s": 2500.5,
                "protect_after_hits": 4},
    "affinity_balanced": {"load_slack_s": 0.125},
    "policies": ["affinity", "round_robin"]
  })");
  ASSERT_TRUE(p.ok()) << p.error_text();
  const Scenario& s = p.scenario;
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.workload.requests, 123u);
  EXPECT_EQ(s.workload.tenants, 5u);
  EXPECT_EQ(s.workload.zipf_s, 0.75);
  EXPECT_EQ(s.workload.arrival_rate_per_s, 12.5);
  EXPECT_EQ(s.workload.prefix_tokens_min, 10u);
  EXPECT_EQ(s.workload.prefix_tokens_max, 20u);
  EXPECT_EQ(s.workload.turn_tokens_min, 3u);
  EXPECT_EQ(s.workload.turn_tokens_max, 9u);
  EXPECT_EQ(s.workload.vocab_size, 777u);
  EXPECT_EQ(s.cluster.replicas, 3u);
  EXPECT_EQ(s.cluster.cache_tokens, 456u);
  EXPECT_EQ(s.cluster.prefill.tokens_per_s, 2500.5);
  EXPECT_EQ(s.cluster.protect_after_hits, 4u);
  EXPECT_EQ(get_number(s, "affinity_balanced.load_slack_s"), 0.125);
  EXPECT_EQ(s.policies, (std::vector<std::string>{"affinity", "round_robin"}));
}

TEST(ParseScenario, BoundsOfARangeAreAllowed) {
  EXPECT_TRUE(parse(R"({"cluster": {"replicas": 1}})").ok());
  EXPECT_TRUE(parse(R"({"cluster": {"replicas": 4096}})").ok());
  EXPECT_TRUE(parse(R"({"seed": 9007199254740991})").ok());
  EXPECT_TRUE(parse(R"({"cluster": {"cache_tokens": 0}})").ok());
}

// ---------------------------------------------------------------------------
// Validation errors: the field by name, what is allowed, what was given

TEST(ScenarioErrors, ZeroReplicasNamesClusterReplicasAndItsRange) {
  const ScenarioParse p = parse(R"({"cluster": {"replicas": 0}})");
  EXPECT_TRUE(has_error(p, "cluster.replicas", {"integer", "[1, 4096]", "got 0"}));
}

TEST(ScenarioErrors, AboveTheMaximumIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"cluster": {"replicas": 4097}})"), "cluster.replicas",
                        {"[1, 4096]", "got 4097"}));
  EXPECT_TRUE(has_error(parse(R"({"seed": 9007199254740992})"), "seed",
                        {"[0, 9007199254740991]", "got 9007199254740992"}));
}

TEST(ScenarioErrors, NegativeCountsAreRejected) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"requests": -5}})"), "workload.requests",
                        {"[1, 10000000]", "got -5"}));
  EXPECT_TRUE(has_error(parse(R"({"workload": {"tenants": -1}})"), "workload.tenants", {"[1, 100000]", "got -1"}));
  EXPECT_TRUE(has_error(parse(R"({"seed": -1})"), "seed", {"[0, 9007199254740991]", "got -1"}));
}

TEST(ScenarioErrors, ZeroRequestsIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"requests": 0}})"), "workload.requests",
                        {"[1, 10000000]", "got 0"}));
}

TEST(ScenarioErrors, NumberOutOfRangeNamesItsRangeAndUnit) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"zipf_s": -0.5}})"), "workload.zipf_s",
                        {"a number", "[0, 10]", "got -0.5"}));
  EXPECT_TRUE(has_error(parse(R"({"cluster": {"prefill_tokens_per_s": 0}})"),
                        "cluster.prefill_tokens_per_s", {"tokens/s"}));
}

TEST(ScenarioErrors, NanStringIsRejectedForANumber) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"zipf_s": "nan"}})"), "workload.zipf_s",
                        {"a number", "\"nan\"", "a string"}));
  EXPECT_TRUE(has_error(parse("", {{"workload.zipf_s", "nan"}}), "workload.zipf_s", {"\"nan\""}));
  EXPECT_TRUE(has_error(parse("", {{"workload.zipf_s", "NaN"}}), "workload.zipf_s",
                        {"a number in [0, 10]", "got \"NaN\" (a string)"}));
  EXPECT_TRUE(has_error(parse("", {{"workload.arrival_rate_per_s", "inf"}}),
                        "workload.arrival_rate_per_s", {"a number in [0.001, 10000000]", "got \"inf\" (a string)"}));
}

TEST(ScenarioErrors, NanAndInfinityLiteralsAreNotJson) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"zipf_s": NaN}})"), "(document)",
                        {"parse error at line 1, column 25", "invalid literal"}));
  EXPECT_TRUE(has_error(parse(R"({"workload": {"zipf_s": Infinity}})"), "(document)",
                        {"parse error at line 1, column 25", "invalid literal"}));
}

TEST(ScenarioErrors, NumberOverflowingADoubleIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"zipf_s": 1e400}})"), "(document)", {"number overflow", "1e400"}));
  EXPECT_TRUE(has_error(parse("", {{"workload.zipf_s", "1e400"}}), "workload.zipf_s",
                        {"a number in [0, 10]", "got \"1e400\" (a string)"}));
}

TEST(ScenarioErrors, ValidateRejectsNonFiniteValuesSetInCode) {
  Scenario s = Scenario::reference();
  s.workload.zipf_s = std::numeric_limits<double>::quiet_NaN();
  s.cluster.prefill.tokens_per_s = std::numeric_limits<double>::infinity();
  const auto errors = validate(s);
  ScenarioParse as_parse;
  as_parse.errors = errors;
  EXPECT_TRUE(has_error(as_parse, "workload.zipf_s", {"a number in [0, 10]", "got nan"}));
  EXPECT_TRUE(has_error(as_parse, "cluster.prefill_tokens_per_s", {"a number in [1, 1000000000]", "got inf"}));
}

TEST(ScenarioErrors, WrongTypesAreRejectedAndDescribed) {
  EXPECT_TRUE(has_error(parse(R"({"seed": true})"), "seed", {"an integer in [0, 9007199254740991]", "got true (a boolean)"}));
  EXPECT_TRUE(has_error(parse(R"({"seed": "42"})"), "seed", {"an integer in [0, 9007199254740991]", "got \"42\" (a string)"}));
  EXPECT_TRUE(has_error(parse(R"({"seed": null})"), "seed", {"must be an integer", "got null"}));
  EXPECT_TRUE(has_error(parse(R"({"cluster": {"replicas": [4]}})"), "cluster.replicas",
                        {"an integer in [1, 4096]", "got an array"}));
  EXPECT_TRUE(has_error(parse(R"({"cluster": {"replicas": {"n": 4}}})"), "cluster.replicas",
                        {"an integer in [1, 4096]", "got an object"}));
}

TEST(ScenarioErrors, GroupThatIsNotAnObjectIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"cluster": 4})"), "cluster", {"object", "replicas", "got 4"}));
}

TEST(ScenarioErrors, NonIntegralValueForAnIntegerIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"cluster": {"replicas": 2.5}})"), "cluster.replicas",
                        {"an integer", "got 2.5"}));
  EXPECT_TRUE(has_error(parse("", {{"workload.requests", "100.5"}}), "workload.requests",
                        {"an integer", "got 100.5"}));
}

TEST(ScenarioErrors, UnknownTopLevelKeyIsRejectedWithTheAllowedKeys) {
  EXPECT_TRUE(has_error(parse(R"({"bogus": 1})"), "bogus",
                        {"unknown key", "workload", "cluster", "policies", "seed"}));
}

TEST(ScenarioErrors, UnknownKeyInAGroupIsRejectedWithTheGroupsKeys) {
  EXPECT_TRUE(has_error(parse(R"({"workload": {"bogus": 1}})"), "workload.bogus",
                        {"unknown key", "requests", "zipf_s"}));
  EXPECT_TRUE(has_error(parse(R"({"cluster": {"replica": 4}})"), "cluster.replica",
                        {"unknown key", "replicas"}));
}

TEST(ScenarioErrors, AbsurdTotalPromptTokensAreRefused) {
  // 10^7 requests x (10^6 + 10^6) tokens is far over the 2e10 cap.
  const ScenarioParse p = parse(R"({"workload": {"requests": 10000000, "prefix_tokens_max": 1000000,
                                                  "turn_tokens_max": 1000000}})");
  EXPECT_TRUE(has_error(p, "workload.requests",
                        {"requests x (prefix_tokens_max + turn_tokens_max) must be at most 20000000000 tokens",
                         "got 20000000000000"}));
}

TEST(ScenarioErrors, TotalPromptTokensAtTheCapAreAllowed) {
  // 10^7 x (1000 + 1000) = 2e10 exactly.
  const ScenarioParse p = parse(R"({"workload": {"requests": 10000000, "prefix_tokens_min": 0,
      "prefix_tokens_max": 1000, "turn_tokens_min": 1, "turn_tokens_max": 1000}})");
  EXPECT_TRUE(p.ok()) << p.error_text();
}

TEST(ScenarioErrors, AbsurdPrefixStorageIsRefused) {
  const ScenarioParse p =
      parse(R"({"workload": {"tenants": 100000, "prefix_tokens_max": 1000000}})");
  EXPECT_TRUE(has_error(p, "workload.tenants",
                        {"tenants x prefix_tokens_max must be at most 50000000 tokens", "got 100000000000"}));
}

TEST(ScenarioErrors, PrefixMinAboveMaxIsRejected) {
  const ScenarioParse p = parse(R"({"workload": {"prefix_tokens_min": 50, "prefix_tokens_max": 40}})");
  EXPECT_TRUE(has_error(p, "workload.prefix_tokens_min", {"workload.prefix_tokens_max", "40", "50"}));
}

TEST(ScenarioErrors, TurnMinAboveMaxIsRejected) {
  const ScenarioParse p = parse(R"({"workload": {"turn_tokens_min": 9, "turn_tokens_max": 8}})");
  EXPECT_TRUE(has_error(p, "workload.turn_tokens_min", {"must be <= workload.turn_tokens_max (8)", "got 9"}));
}

TEST(ScenarioErrors, EmptyPolicyListIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"policies": []})"), "policies", {"at least one", "(round_robin, least_loaded"}));
  EXPECT_TRUE(has_error(parse("", {{"policies", ""}}), "policies", {"at least one", "(round_robin, least_loaded"}));
}

TEST(ScenarioErrors, UnknownPolicyIsRejectedWithTheKnownNames) {
  EXPECT_TRUE(has_error(parse(R"({"policies": ["affinity", "coin_flip"]})"), "policies",
                        {"\"coin_flip\"", "round_robin", "affinity_balanced"}));
}

TEST(ScenarioErrors, EmptyPolicyNameInACommaListIsRejected) {
  EXPECT_TRUE(has_error(parse("", {{"policies", "affinity,,round_robin"}}), "policies",
                        {"unknown policy \"\"", "allowed: round_robin, least_loaded", "or all"}));
}

TEST(ScenarioErrors, DuplicatePolicyIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"policies": ["affinity", "round_robin", "affinity"]})"),
                        "policies", {"\"affinity\"", "twice"}));
}

TEST(ScenarioErrors, PolicyListOfTheWrongTypeIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"policies": 3})"), "policies", {"policy names", "round_robin", "got 3"}));
  EXPECT_TRUE(has_error(parse(R"({"policies": ["affinity", 3]})"), "policies", {"element", "got an element 3"}));
}

TEST(ScenarioErrors, WrongSchemaVersionIsRejected) {
  EXPECT_TRUE(has_error(parse(R"({"schema_version": 2})"), "schema_version",
                        {"must be 1 (the only version so far)", "got 2"}));
  EXPECT_TRUE(has_error(parse(R"({"schema_version": "1"})"), "schema_version",
                        {"must be 1", "got \"1\" (a string)"}));
}

TEST(ScenarioDescription, IsReadCheckedAndNotEchoed) {
  const ScenarioParse p = parse(R"({"description": ["What it shows.", "By how much."], "seed": 7})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.scenario.seed, 7u);
  EXPECT_EQ(scenario_to_json(p.scenario), scenario_to_json(parse(R"({"seed": 7})").scenario));
}

TEST(ScenarioErrors, ADescriptionMustBeAFewLinesOfText) {
  EXPECT_TRUE(has_error(parse(R"({"description": "one string"})"), "description",
                        {"must be a list of at most 8 lines of text", "got \"one string\""}));
  EXPECT_TRUE(has_error(parse(R"({"description": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]})"), "description",
                        {"at most 8 lines"}));
  EXPECT_TRUE(has_error(parse(R"({"description": ["fine", 3]})"), "description[1]", {"must be a string; got 3"}));
  EXPECT_TRUE(has_error(parse(R"({"description": ["tab\there"]})"), "description[0]", {"control characters"}));
}

TEST(ScenarioErrors, MalformedJsonReportsThePosition) {
  const ScenarioParse p = parse(R"({"seed": 1,)");
  EXPECT_TRUE(has_error(p, "(document)", {"line 1, column"}));
  const ScenarioParse multi_line = parse("{\n  \"seed\": 1\n  \"cluster\": {}\n}");
  EXPECT_TRUE(has_error(multi_line, "(document)", {"line 3"}));
}

TEST(ScenarioErrors, DocumentThatIsNotAnObjectIsRejected) {
  EXPECT_TRUE(has_error(parse("[1, 2]"), "(document)", {"object", "an array"}));
  EXPECT_TRUE(has_error(parse("42"), "(document)", {"object", "got 42"}));
  EXPECT_TRUE(has_error(parse("\"text\""), "(document)", {"object", "got \"text\" (a string)"}));
}

std::string nested_arrays(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']');
}

TEST(ScenarioErrors, DeepNestingIsRefused) {
  const ScenarioParse p = parse(R"({"seed": )" + nested_arrays(100) + "}");
  EXPECT_TRUE(has_error(p, "(document)", {"nesting deeper than 16 levels"}));
}

TEST(ScenarioErrors, VeryDeepNestingIsRefusedWithoutExhaustingTheStack) {
  const ScenarioParse p = parse(R"({"seed": )" + nested_arrays(200'000) + "}");
  EXPECT_TRUE(has_error(p, "(document)", {"nesting deeper than 16 levels"}));
}

TEST(ScenarioErrors, VeryDeepNestingInAnOverrideValueDoesNotExhaustTheStack) {
  const ScenarioParse p = parse("", {{"workload.requests", nested_arrays(200'000)}});
  // Too deep to read as JSON, the value is taken as text, and quoted shortened.
  EXPECT_TRUE(has_error(p, "workload.requests",
                        {"must be an integer in [1, 10000000]", "got \"[[[[", "... (a string)"}));
  EXPECT_LT(p.errors[0].message.size(), 200u) << p.errors[0].message.substr(0, 300);
}

TEST(ScenarioErrors, DocumentOverOneMegabyteIsRefused) {
  std::string big = R"({"seed": 1})";
  big += std::string((1 << 20) - big.size() + 1, ' ');
  ASSERT_EQ(big.size(), (1u << 20) + 1);
  EXPECT_TRUE(has_error(parse(big), "(document)", {"bytes", "1048576"}));
}

TEST(ScenarioErrors, DocumentOfExactlyOneMegabyteIsRead) {
  std::string big = R"({"seed": 1})";
  big += std::string((1 << 20) - big.size(), ' ');
  ASSERT_EQ(big.size(), 1u << 20);
  const ScenarioParse p = parse(big);
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.seed, 1u);
}

TEST(ScenarioErrors, SeveralErrorsAreReportedAtOnce) {
  const ScenarioParse p = parse(
      R"({"cluster": {"replicas": 0}, "workload": {"zipf_s": -1, "bogus": 2}, "extra": true})");
  EXPECT_TRUE(has_error(p, "cluster.replicas", {"[1, 4096]", "got 0"}));
  EXPECT_TRUE(has_error(p, "workload.zipf_s", {"[0, 10]", "got -1"}));
  EXPECT_TRUE(has_error(p, "workload.bogus", {"unknown key", "allowed keys in workload"}));
  EXPECT_TRUE(has_error(p, "extra", {"unknown key", "allowed top-level keys"}));
  EXPECT_EQ(p.errors.size(), 4u) << p.error_text();
}

TEST(ScenarioErrors, ErrorTextHasOneFieldColonMessageLinePerError) {
  const ScenarioParse p = parse(R"({"cluster": {"replicas": 0}, "seed": -1})");
  ASSERT_EQ(p.errors.size(), 2u);
  std::string expected;
  for (const FieldError& e : p.errors) expected += e.field + ": " + e.message + "\n";
  EXPECT_EQ(p.error_text(), expected);
}

// Each hostile document is refused as a value, never thrown: the field it names
// and what its message says. The three that are valid JSON documents are
// accepted, with the meaning the JSON reader gives them.
TEST(ScenarioErrors, HostileInputNeverThrows) {
  struct Hostile {
    std::string text;
    std::string field;  // "" when the document is accepted
    std::vector<std::string> fragments;
  };
  const std::vector<Hostile> cases = {
      {"{", "(document)", {"parse error at line 1, column 2", "unexpected end of input"}},
      {"}", "(document)", {"parse error at line 1, column 1", "unexpected '}'"}},
      {"[", "(document)", {"parse error at line 1, column 2", "unexpected end of input"}},
      {"null", "(document)", {"must be a JSON object; got null"}},
      {"true", "(document)", {"must be a JSON object; got true (a boolean)"}},
      {"\"", "(document)", {"parse error at line 1, column 2", "missing closing quote"}},
      {"{\"seed\":}", "(document)", {"parse error at line 1, column 9", "unexpected '}'"}},
      {"{\"seed\":1}}", "(document)", {"parse error at line 1, column 11", "expected end of input"}},
      {"{\"seed\" 1}", "(document)", {"parse error at line 1, column 9", "expected ':'"}},
      {std::string("{\"seed\":\0}", 10), "(document)", {"parse error at line 1, column 9"}},
      {"\xff\xfe{}", "(document)", {"parse error at line 1, column 1", "invalid literal"}},
      {"{\"\xff\": 1}", "(document)", {"parse error at line 1, column 3", "ill-formed UTF-8 byte"}},
      {R"({"a":"\ud800"})", "(document)",
       {"parse error at line 1, column 13", "surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF"}},
      {"{\"seed\": 18446744073709551616}", "seed", {"[0, 9007199254740991]", "got 1.8446744073709552e+19"}},
      {"{\"seed\": -9223372036854775809}", "seed", {"[0, 9007199254740991]", "got -9.223372036854776e+18"}},
      {"{\"seed\": 1e-400}", "", {}},
      {"{\"workload\": {\"requests\": 1e308}}", "workload.requests", {"[1, 10000000]", "got 1e+308"}},
      {"\xef\xbb\xbf{}", "", {}},
      {"{\"seed\": 1, \"seed\": 2}", "", {}},
      {"{\"policies\": [[[]]]}", "policies", {"must be a list of policy names", "got an element an array"}},
      {"{\"trace\": {\"name\": 5}}", "trace.name", {"must be a string; got 5"}},
      {"{\"trace\": {\"on_error\": \"explode\"}}", "trace.on_error", {"must be one of stop,skip; got \"explode\""}},
      {"{\"trace\": {\"content_hash\": \"xyz\"}}", "trace.content_hash", {"must be 16 lowercase hex digits (or empty)"}}};
  for (const Hostile& c : cases) {
    SCOPED_TRACE(c.text);
    ScenarioParse p;
    EXPECT_NO_THROW(p = parse_scenario(c.text));
    EXPECT_NO_THROW((void)p.error_text());
    if (c.field.empty()) {
      EXPECT_TRUE(p.ok()) << p.error_text();
    } else {
      EXPECT_EQ(p.errors.size(), 1u) << p.error_text();
      EXPECT_TRUE(has_error(p, c.field, c.fragments));
    }
  }
  EXPECT_EQ(parse("{\"seed\": 1e-400}").scenario.seed, 0u);  // underflows to 0
  EXPECT_TRUE(same_scenario(parse("\xef\xbb\xbf{}").scenario, Scenario::reference()));  // a UTF-8 BOM is skipped
  EXPECT_EQ(parse("{\"seed\": 1, \"seed\": 2}").scenario.seed, 2u);  // the last of duplicate keys wins
}

// ---------------------------------------------------------------------------
// Overrides

TEST(ScenarioOverrides, DottedKeySetsAField) {
  const ScenarioParse p = parse("", {{"workload.requests", "100"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.workload.requests, 100u);
}

TEST(ScenarioOverrides, TopLevelKeySetsAField) {
  const ScenarioParse p = parse("", {{"seed", "5"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.seed, 5u);
}

TEST(ScenarioOverrides, OverrideWinsOverTheDocument) {
  const ScenarioParse p = parse(R"({"cluster": {"replicas": 2, "cache_tokens": 99}})",
                                {{"cluster.replicas", "8"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.cluster.replicas, 8u);
  EXPECT_EQ(p.scenario.cluster.cache_tokens, 99u);
}

TEST(ScenarioOverrides, LaterOverridesWin) {
  const ScenarioParse p = parse("", {{"cluster.replicas", "8"}, {"cluster.replicas", "3"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.cluster.replicas, 3u);
}

TEST(ScenarioOverrides, PoliciesAcceptACommaListInItsOrder) {
  const ScenarioParse p = parse("", {{"policies", "affinity_balanced, round_robin"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.policies, (std::vector<std::string>{"affinity_balanced", "round_robin"}));
}

TEST(ScenarioOverrides, PoliciesAcceptAJsonArray) {
  const ScenarioParse p = parse("", {{"policies", R"(["least_loaded"])"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.policies, (std::vector<std::string>{"least_loaded"}));
}

TEST(ScenarioOverrides, PoliciesAllMeansTheWholeCatalogue) {
  const ScenarioParse p = parse(R"({"policies": ["affinity"]})", {{"policies", "all"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.policies, all_policy_names());
  const ScenarioParse in_doc = parse(R"({"policies": ["all"]})");
  ASSERT_TRUE(in_doc.ok()) << in_doc.error_text();
  EXPECT_EQ(in_doc.scenario.policies, all_policy_names());
}

TEST(ScenarioOverrides, BadValueIsReportedUnderItsKey) {
  EXPECT_TRUE(has_error(parse("", {{"cluster.replicas", "0"}}), "cluster.replicas", {"[1, 4096]", "got 0"}));
  EXPECT_TRUE(has_error(parse("", {{"cluster.replicas", "many"}}), "cluster.replicas",
                        {"[1, 4096]", "\"many\" (a string)"}));
}

TEST(ScenarioOverrides, UnknownKeyIsReported) {
  EXPECT_TRUE(has_error(parse("", {{"workload.bogus", "1"}}), "workload.bogus",
                        {"unknown key", "allowed keys in workload: requests, tenants"}));
  EXPECT_TRUE(has_error(parse("", {{"bogus", "1"}}), "bogus",
                        {"unknown key", "allowed top-level keys: schema_version, seed, replicates, workload"}));
}

TEST(ScenarioOverrides, MalformedKeyIsReported) {
  for (const std::string key : {"workload..requests", ".seed", "seed.", ""}) {
    SCOPED_TRACE(key);
    const ScenarioParse p = parse("", {{key, "1"}});
    ASSERT_FALSE(p.ok());
    EXPECT_NE(p.errors.front().message.find("malformed key"), std::string::npos)
        << p.error_text();
    // Named by the key as given (an empty key as "(override)"), with the form that is allowed.
    EXPECT_TRUE(has_error(p, key.empty() ? "(override)" : key,
                          {"malformed key", "use dotted keys such as workload.requests"}));
  }
}

TEST(ScenarioOverrides, KeyInsideANonObjectIsReported) {
  const ScenarioParse p = parse(R"({"cluster": 4})", {{"cluster.replicas", "2"}});
  EXPECT_TRUE(has_error(p, "cluster.replicas", {"cannot set a key inside cluster, which is not an object"}));
}

// ---------------------------------------------------------------------------
// Canonical JSON round trip

Scenario a_non_default_scenario() {
  Scenario s = Scenario::reference();
  s.seed = 123456789012345;
  s.workload.requests = 777;
  s.workload.tenants = 9;
  s.workload.zipf_s = 0.1 + 0.2;  // not a short decimal
  s.workload.arrival_rate_per_s = 1.0 / 3.0;
  s.workload.prefix_tokens_min = 11;
  s.workload.prefix_tokens_max = 13;
  s.workload.turn_tokens_min = 1;
  s.workload.turn_tokens_max = 2;
  s.workload.vocab_size = 4294967295u;
  s.cluster.replicas = 4096;
  s.cluster.cache_tokens = 0;
  s.cluster.protect_after_hits = 0;
  s.cluster.prefill.tokens_per_s = 12345.678901234567;
  set_number(s, "affinity_balanced.load_slack_s", 1e-9);
  s.policies = {"affinity_balanced", "least_loaded"};
  return s;
}

TEST(ScenarioJson, ReferenceScenarioRoundTrips) {
  const ScenarioParse p = parse(scenario_to_json(Scenario::reference()));
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_TRUE(same_scenario(p.scenario, Scenario::reference()));
}

TEST(ScenarioJson, NonDefaultScenarioRoundTripsExactly) {
  const Scenario s = a_non_default_scenario();
  ASSERT_TRUE(validate(s).empty());
  for (int indent : {-1, 2}) {
    const ScenarioParse p = parse(scenario_to_json(s, indent));
    ASSERT_TRUE(p.ok()) << p.error_text();
    EXPECT_TRUE(same_scenario(p.scenario, s)) << "indent " << indent;
  }
}

#if PREFIXROUTE_TESTS_SANITIZED
constexpr int kRandomScenarios = 40;
#else
constexpr int kRandomScenarios = 300;
#endif

// Case i draws from a stream of its own and its policy list as the property
// suite's generator does (random_scenario.h): adding a policy to the
// catalogue changes no other policy's cases.
TEST(ScenarioJson, RandomValidScenariosRoundTripExactly) {
  constexpr std::uint64_t kSeed = 2718;
  for (int i = 0; i < kRandomScenarios; ++i) {
    const std::uint64_t case_seed = mix_seed(kSeed, static_cast<std::uint64_t>(i));
    Rng rng(case_seed);
    Scenario s = Scenario::reference();
    s.seed = rng.uniform_int(0, 9007199254740991ULL);
    s.workload.requests = rng.uniform_int(1, 10'000);
    s.workload.tenants = static_cast<std::uint32_t>(rng.uniform_int(1, 50));
    s.workload.zipf_s = rng.uniform01() * 10;
    s.workload.arrival_rate_per_s = 1e-3 + rng.uniform01() * 1e4;
    s.workload.prefix_tokens_min = static_cast<std::uint32_t>(rng.uniform_int(0, 1000));
    s.workload.prefix_tokens_max =
        s.workload.prefix_tokens_min + static_cast<std::uint32_t>(rng.uniform_int(0, 1000));
    s.workload.turn_tokens_min = static_cast<std::uint32_t>(rng.uniform_int(1, 500));
    s.workload.turn_tokens_max =
        s.workload.turn_tokens_min + static_cast<std::uint32_t>(rng.uniform_int(0, 500));
    s.workload.vocab_size = static_cast<std::uint32_t>(rng.uniform_int(2, 4294967295ULL));
    s.cluster.replicas = static_cast<std::uint32_t>(rng.uniform_int(1, 4096));
    s.cluster.cache_tokens = rng.uniform_int(0, 1'000'000'000);
    s.cluster.protect_after_hits = static_cast<std::uint32_t>(rng.uniform_int(0, 4294967295ULL));
    s.cluster.prefill.tokens_per_s = 1 + rng.uniform01() * 1e9;
    set_number(s, "affinity_balanced.load_slack_s", rng.uniform01() * 3600);
    s.policies = testsupport::random_policy_list(case_seed, policy_catalogue());
    if (s.policies.empty()) s.policies = {"round_robin"};
    ASSERT_TRUE(validate(s).empty()) << "case " << i << ": " << scenario_to_json(s);
    const ScenarioParse p = parse(scenario_to_json(s));
    ASSERT_TRUE(p.ok()) << p.error_text();
    ASSERT_TRUE(same_scenario(p.scenario, s)) << "case " << i;
  }
}

TEST(ScenarioJson, CanonicalJsonHasEveryFieldOfTheTable) {
  const Json doc = Json::parse(scenario_to_json(Scenario::reference()));
  EXPECT_EQ(doc.at("schema_version"), kScenarioVersion);
  for (const FieldSpec& f : scenario_fields()) {
    std::string pointer = "/";
    for (const char c : f.key) pointer.push_back(c == '.' ? '/' : c);
    EXPECT_TRUE(doc.contains(Json::json_pointer(pointer))) << f.key;
  }
}

TEST(ScenarioJson, EqualScenariosGiveEqualBytes) {
  EXPECT_EQ(scenario_to_json(a_non_default_scenario()), scenario_to_json(a_non_default_scenario()));
  EXPECT_NE(scenario_to_json(a_non_default_scenario()), scenario_to_json(Scenario::reference()));
}

// ---------------------------------------------------------------------------
// Field table and JSON Schema

TEST(ScenarioSchema, FieldKeysAreUniqueAndRangesOrdered) {
  const auto& fields = scenario_fields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].kind == FieldKind::Integer || fields[i].kind == FieldKind::Number) {
      EXPECT_LE(fields[i].min, fields[i].max) << fields[i].key;
    }
    EXPECT_FALSE(fields[i].description.empty()) << fields[i].key;
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(fields[i].key, fields[j].key);
  }
}

TEST(ScenarioSchema, IsValidJsonDescribingEveryFieldWithItsRangeAndDefault) {
  const std::string text = scenario_json_schema();
  ASSERT_TRUE(Json::accept(text));
  const Json schema = Json::parse(text);
  EXPECT_EQ(schema.at("type"), "object");
  EXPECT_EQ(schema.at("additionalProperties"), false);
  const Json reference = Json::parse(scenario_to_json(Scenario::reference()));
  for (const FieldSpec& f : scenario_fields()) {
    SCOPED_TRACE(std::string(f.key));
    const std::string key(f.key);
    const auto dot = key.find('.');
    const Json* prop = nullptr;
    const Json* value = nullptr;
    if (dot == std::string::npos) {
      ASSERT_TRUE(schema["properties"].contains(key));
      prop = &schema["properties"][key];
      value = &reference[key];
    } else {
      const std::string group = key.substr(0, dot), sub = key.substr(dot + 1);
      ASSERT_TRUE(schema["properties"].contains(group));
      ASSERT_TRUE(schema["properties"][group]["properties"].contains(sub));
      prop = &schema["properties"][group]["properties"][sub];
      value = &reference[group][sub];
    }
    EXPECT_FALSE(prop->value("description", "").empty());
    EXPECT_EQ(prop->at("default"), *value);
    if (f.kind == FieldKind::Integer || f.kind == FieldKind::Number) {
      EXPECT_EQ(prop->at("type"), f.kind == FieldKind::Integer ? "integer" : "number");
      EXPECT_EQ(prop->at("minimum").get<double>(), f.min);
      EXPECT_EQ(prop->at("maximum").get<double>(), f.max);
    }
  }
}

TEST(ScenarioSchema, PoliciesEnumListsTheCatalogue) {
  const Json schema = Json::parse(scenario_json_schema());
  const Json& policies = schema["properties"]["policies"];
  EXPECT_EQ(policies["items"]["enum"].get<std::vector<std::string>>(), all_policy_names());
  EXPECT_EQ(policies["uniqueItems"], true);
  EXPECT_EQ(policies["minItems"], 1);
}

}  // namespace
}  // namespace prefixroute::scenario_test
