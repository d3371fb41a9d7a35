// The topology section: its default keeps the aggregated cluster, its rules
// refuse what a disaggregated run cannot read or model, naming the field, and
// the pools' clusters come from the pool's GPU and TP under a hardware.model.
#include <gtest/gtest.h>

#include "field_errors.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::topology_fields_test {
namespace {

using testsupport::has_error;

const std::vector<Override> kDisaggregated = {{"topology.kind", "disaggregated"},
                                              {"topology.kv_bytes_per_token", "131072"}};

std::vector<Override> with(std::vector<Override> extra) {
  std::vector<Override> all = kDisaggregated;
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

TEST(TopologyFields, DefaultIsAggregated) {
  const ScenarioParse p = parse_scenario("");
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_FALSE(p.scenario.topology.disaggregated());
  EXPECT_TRUE(parse_scenario("", kDisaggregated).ok()) << parse_scenario("", kDisaggregated).error_text();
}

TEST(TopologyFields, PoolFieldsAreRefusedWhenAggregated) {
  EXPECT_TRUE(has_error(parse_scenario("", {{"topology.decode_replicas", "3"}}), "topology.decode_replicas",
                        {"read only when topology.kind is disaggregated"}));
}

TEST(TopologyFields, BadChoicesNameTheFieldAndTheChoices) {
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.split", "sometimes"}})), "topology.split",
                        {"always", "never", "llmd_prefix", "dynamo_isl"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.link", "carrier_pigeon"}})), "topology.link",
                        {"nvlink", "ib_400g", "roce_200g", "custom"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.decode_tp", "3"}})), "topology.decode_tp",
                        {"1, 2, 4 or 8"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.prefill_replicas", "0"}})), "topology.prefill_replicas",
                        {"got 0"}));
}

TEST(TopologyFields, CustomLinkNeedsABandwidthAndPresetsRefuseOne) {
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.link", "custom"}})), "topology.link_gb_per_s",
                        {"> 0 when topology.link is custom"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.link_gb_per_s", "50"}})), "topology.link_gb_per_s",
                        {"read only when topology.link is custom"}));
  const ScenarioParse ok = parse_scenario("", with({{"topology.link", "custom"}, {"topology.link_gb_per_s", "50"}}));
  ASSERT_TRUE(ok.ok()) << ok.error_text();
  EXPECT_EQ(ok.scenario.topology.link_bytes_per_s(), 50e9);
}

TEST(TopologyFields, LinkPresetsCarryTheirBandwidths) {
  TopologySettings t;
  t.link = "nvlink";
  EXPECT_EQ(t.link_bytes_per_s(), 600e9);
  t.link = "ib_400g";
  EXPECT_EQ(t.link_bytes_per_s(), 40e9);
  t.link = "roce_200g";
  EXPECT_EQ(t.link_bytes_per_s(), 20e9);
}

TEST(TopologyFields, WhatADisaggregatedRunCannotModelIsRefused) {
  EXPECT_TRUE(has_error(parse_scenario("", {{"topology.kind", "disaggregated"}}), "topology.kv_bytes_per_token",
                        {"without a hardware.model"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"cluster.engine", "batched"}})), "cluster.engine", {"fifo"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"router.instances", "2"}})), "router.instances", {"must be 1"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.split_uncached_tokens", "64"}})),
                        "topology.split_uncached_tokens", {"llmd_prefix"}));
  EXPECT_TRUE(has_error(parse_scenario("", with({{"topology.split_eff_isl_ratio", "0.5"}})),
                        "topology.split_eff_isl_ratio", {"dynamo_isl"}));
  EXPECT_TRUE(parse_scenario("", with({{"topology.split", "dynamo_isl"}, {"topology.split_eff_isl_ratio", "0.5"}})).ok());
}

TEST(TopologyFields, PoolsTakeTheirOwnGpuAndTpUnderAHardwareModel) {
  const ScenarioParse p = parse_scenario("", {{"topology.kind", "disaggregated"},
                                              {"hardware.model", "llama-3.1-8b"},
                                              {"topology.prefill_gpu", "h100"},
                                              {"topology.decode_gpu", "h200"},
                                              {"topology.decode_tp", "2"},
                                              {"topology.prefill_replicas", "3"},
                                              {"topology.decode_replicas", "2"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  const PoolClustersResult pools = pool_clusters(p.scenario);
  ASSERT_TRUE(pools.errors.empty());
  EXPECT_EQ(pools.pools.prefill.replicas, 3u);
  EXPECT_EQ(pools.pools.decode.replicas, 2u);
  // Two H200s hold far more KV than one H100; the TP-2 pool prefills faster.
  EXPECT_GT(pools.pools.decode.cache_tokens, 2 * pools.pools.prefill.cache_tokens);
  EXPECT_GT(pools.pools.decode.prefill.tokens_per_s, pools.pools.prefill.prefill.tokens_per_s);
  // Llama-3.1-8B in BF16: 2 x 32 layers x 8 KV heads x 128 x 2 B.
  EXPECT_EQ(pools.pools.kv_bytes_per_token, 131072.0);
}

TEST(TopologyFields, APoolWhoseModelDoesNotFitNamesThePoolsField) {
  EXPECT_TRUE(has_error(parse_scenario("", {{"topology.kind", "disaggregated"},
                                            {"hardware.model", "llama-3.1-70b"},
                                            {"hardware.tp", "4"},
                                            {"topology.prefill_tp", "1"}}),
                        "topology.prefill_tp", {"prefill pool"}));
}

}  // namespace
}  // namespace prefixroute::topology_fields_test
