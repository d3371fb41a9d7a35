// The client section of a scenario: its stages' syntax, and every field that
// does not fit the client's kind refused with its field named.
#include "prefixroute/workload/client.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "field_errors.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::client_fields_test {
namespace {

using testsupport::has_error;

TEST(ClientStagesText, ReadsLoadsAndDurations) {
  std::vector<ClientStage> stages;
  std::string error;
  ASSERT_TRUE(parse_client_stages("3x20, 10x20,15.5x0.5", false, stages, error)) << error;
  EXPECT_EQ(stages, (std::vector<ClientStage>{{3, 20}, {10, 20}, {15.5, 0.5}}));
}

TEST(ClientStagesText, RefusesMalformedStagesNamingThem) {
  std::vector<ClientStage> stages;
  std::string error;
  EXPECT_FALSE(parse_client_stages("3x20,10y20", false, stages, error));
  EXPECT_NE(error.find("stage 2 (\"10y20\")"), std::string::npos) << error;
  EXPECT_NE(error.find("RATExSECONDS"), std::string::npos) << error;
  EXPECT_FALSE(parse_client_stages("0x20", false, stages, error));
  EXPECT_NE(error.find("in (0, 1e7]"), std::string::npos) << error;
  EXPECT_FALSE(parse_client_stages("2.5x20", true, stages, error));
  EXPECT_NE(error.find("whole number"), std::string::npos) << error;
  EXPECT_FALSE(parse_client_stages("2x-1", false, stages, error));
  EXPECT_FALSE(parse_client_stages("2x1e3", false, stages, error));
  EXPECT_FALSE(parse_client_stages("", false, stages, error));
  EXPECT_FALSE(parse_client_stages("2x1,", false, stages, error));
}

TEST(ClientFields, EachFieldOutsideItsKindIsRefusedByName) {
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.concurrency", "4"}}), "client.concurrency",
                        {"closed client only", "poisson"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.think_s", "1"}}), "client.think_s", {"closed client only"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "burst"}, {"client.rate_per_s", "5"}}),
                        "client.rate_per_s", {"poisson, constant or closed client only", "client.kind is burst"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "burst"}, {"client.stages", "5x5"}}), "client.stages",
                        {"client.kind is burst", "leave it empty"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "constant"}}), "client.rate_per_s", {"> 0"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "closed"}}), "client.concurrency", {"at least 1"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.stage_interval_s", "1"}}), "client.stage_interval_s",
                        {"with stages only"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.warmup", "5x5"}}), "client.warmup", {"give the stages"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "bursty"}}), "client.kind", {"poisson"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.stages", "5x"}}), "client.stages", {"RATExSECONDS"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "closed"}, {"client.stages", "1.5x10"}}), "client.stages",
                        {"whole number"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.stages", "1x5"}, {"client.warmup", "1x1,2x2"}}),
                        "client.warmup", {"one stage"}));
}

// The schema's x-client-kinds (FieldSpec::client_kinds) is what validation
// applies: a client field set under a kind it does not list is refused by
// name, under a kind it lists it is not (the page greys out the former).
TEST(ClientFields, TheFieldTableSaysWhichKindsReadEachField) {
  const std::vector<std::pair<std::string, std::string>> sample = {
      {"client.rate_per_s", "5"}, {"client.concurrency", "4"}, {"client.think_s", "1"},
      {"client.stages", "2x3"},   {"client.warmup", "2x1"},    {"client.stage_interval_s", "1"}};
  // Each kind's smallest valid client with stages, so that only the field tried can be misplaced.
  const std::vector<std::pair<std::string, std::vector<Override>>> bases = {
      {"poisson", {{"client.stages", "1x2"}}},
      {"constant", {{"client.stages", "1x2"}}},
      {"burst", {}},
      {"closed", {{"client.stages", "1x2"}}}};
  int listed = 0, refused = 0;
  for (const auto& [kind, base] : bases) {
    std::vector<Override> valid = base;
    valid.insert(valid.begin(), {"client.kind", kind});
    ASSERT_TRUE(parse_scenario("", valid).ok()) << kind;
    for (const auto& [key, value] : sample) {
      const FieldSpec* spec = nullptr;
      for (const FieldSpec& f : scenario_fields())
        if (f.key == key) spec = &f;
      ASSERT_NE(spec, nullptr) << key;
      ASSERT_FALSE(spec->client_kinds.empty()) << key;
      const std::string kinds = "," + std::string(spec->client_kinds) + ",";
      const bool reads = kinds.find("," + kind + ",") != std::string::npos;
      std::vector<Override> with = valid;
      with.push_back({key, value});
      const ScenarioParse p = parse_scenario("", with);
      bool named = false;
      for (const FieldError& e : p.errors)
        named = named || (e.field == key && e.message.find("client only") != std::string::npos);
      EXPECT_EQ(named, !reads) << kind << " " << key;
      listed += reads;
      refused += named;
    }
  }
  EXPECT_EQ(listed + refused, 24);
  EXPECT_GE(refused, 8);
}

TEST(ClientFields, OpenLoopStagesNeedEnoughRequests) {
  // 100 x 30 + 200 x 10 = 5000 requests; the reference workload has 4000.
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.stages", "100x30,200x10"}}), "workload.requests",
                        {"send 5000 requests", "has 4000", "at least 5000"}));
  EXPECT_TRUE(parse_scenario("", {{"client.stages", "100x30,200x10"}, {"workload.requests", "5000"}}).ok());
}

TEST(ClientFields, ValidClientsParseAndRoundTrip) {
  const ScenarioParse p = parse_scenario("", {{"client.kind", "closed"},
                                              {"client.stages", "2x10,4x10"},
                                              {"client.warmup", "1x5"},
                                              {"client.think_s", "0.5"},
                                              {"client.rate_per_s", "20"},
                                              {"client.timeout_s", "30"},
                                              {"client.stage_interval_s", "1"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  const ScenarioParse again = parse_scenario(scenario_to_json(p.scenario));
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.scenario.client, p.scenario.client);
  EXPECT_FALSE(p.scenario.client.is_workload_timing());
  EXPECT_TRUE(Scenario::reference().client.is_workload_timing());
}

}  // namespace
}  // namespace prefixroute::client_fields_test
