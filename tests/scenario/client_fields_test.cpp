// The client section of a scenario: its stages' syntax, and every field that
// does not fit the client's kind refused with its field named.
#include "prefixroute/workload/client.h"

#include <gtest/gtest.h>

#include <string>
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
  EXPECT_TRUE(has_error(parse_scenario("", {{"client.kind", "burst"}, {"client.rate_per_s", "5"}}), "client.kind",
                        {"burst", "no client.rate_per_s"}));
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
