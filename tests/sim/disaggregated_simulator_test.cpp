// The disaggregated (P/D) simulator against hand-computed runs: a transfer's
// time inside TTFT, the aggregated TTFT with an infinitely fast link, a
// decode-side prefix hit shortening the transfer by its tokens, two
// transfers sharing a link, and llm-d's split rule.
#include "prefixroute/sim/disaggregated_simulator.h"

#include <gtest/gtest.h>

#include <vector>

#include "prefixroute/policies/round_robin.h"
#include "prefixroute/workload/request_source.h"
#include "prefixroute/workload/workload.h"
#include "tokens.h"

namespace prefixroute::disaggregated_simulator_test {
namespace {

using testsupport::run_of;
constexpr Tick kMs = kTicksPerMillisecond;

// One token of prefill per millisecond, caches far larger than the traces.
ClusterConfig pool(std::uint32_t replicas) {
  ClusterConfig c;
  c.replicas = replicas;
  c.cache_tokens = 100'000;
  c.protect_after_hits = 0;
  c.prefill.tokens_per_s = 1000.0;
  return c;
}

// 100,000 KV bytes per token over 1 GB/s: 0.1 ms per token sent; 0.05 ms setup.
TopologySettings topology() {
  TopologySettings t;
  t.kind = "disaggregated";
  t.split = "always";
  t.link = "custom";
  t.link_gb_per_s = 1;
  t.link_setup_ms = 0.05;
  return t;
}

PoolClusters pools(std::uint32_t prefill, std::uint32_t decode, double kv_bytes = 100'000) {
  PoolClusters p;
  p.prefill = pool(prefill);
  p.decode = pool(decode);
  p.kv_bytes_per_token = kv_bytes;
  return p;
}

SimulationRun run(const Workload& trace, const PoolClusters& p, const TopologySettings& t) {
  TraceSource source(trace);
  RoundRobin policy;
  return simulate_disaggregated(source, p, t, policy, 42);
}

TEST(DisaggregatedSimulator, TtftIsPrefillThenSetupThenTokensOverTheLink) {
  // 900-token prefix + 100-token turn: 1000 ms of prefill, then 50 us setup
  // and 1000 x 100,000 B / 1 GB/s = 100 ms on the link.
  const Workload trace({run_of(1000, 900)}, {Request{0, 0, 100, 11, 0}}, 1'000'000'000);
  const SimulationRun r = run(trace, pools(1, 1), topology());
  ASSERT_EQ(r.ttft.size(), 1u);
  EXPECT_EQ(r.ttft[0], 1000 * kMs + 50'000 + 100 * kMs);
  ASSERT_EQ(r.pools.size(), 2u);
  EXPECT_EQ(r.pools[1].transfers, 1u);
  EXPECT_EQ(r.pools[1].transferred_tokens, 1000u);
  EXPECT_DOUBLE_EQ(r.pools[1].mean_transfer_ms, 100.05);
}

TEST(DisaggregatedSimulator, AnInfinitelyFastLinkAndAnIdleDecodePoolGiveTheAggregatedTtft) {
  // Requests that queue behind each other and share prefixes: the prefill
  // worker sees exactly what one aggregated replica sees.
  std::vector<Request> requests = {
      {0 * kMs, 0, 20, 11, 5}, {50 * kMs, 0, 10, 12, 3}, {200 * kMs, 1, 30, 13, 0},
      {210 * kMs, 0, 5, 14, 8}, {400 * kMs, 1, 10, 15, 2},
  };
  const Workload trace({run_of(1000, 100), run_of(2000, 50)}, std::move(requests), 1'000'000'000);
  ClusterConfig aggregated = pool(1);
  aggregated.decode_ms_per_token = 2;
  RoundRobin policy;
  const SimulationRun expected = simulate(trace, aggregated, policy);
  PoolClusters p = pools(1, 1);
  p.decode.decode_ms_per_token = 2;
  TopologySettings t = topology();
  t.link_gb_per_s = 1e9;  // 1e18 B/s: 100,000 B per token moves in 1e-13 s, 0 ticks
  t.link_setup_ms = 0;
  const SimulationRun got = run(trace, p, t);
  EXPECT_EQ(got.ttft, expected.ttft);
  EXPECT_EQ(got.end_to_end, expected.end_to_end);
  EXPECT_EQ(got.cached_of, expected.cached_of);
}

TEST(DisaggregatedSimulator, ADecodeSideHitShortensTheTransferByExactlyItsTokens) {
  // Request 1 shares request 0's 500-token prefix, which the decode worker
  // holds after request 0: it sends 100 tokens, not 600 (500 x 0.1 ms less).
  const Workload trace({run_of(1000, 500)}, {Request{0, 0, 100, 11, 0}, Request{2000 * kMs, 0, 100, 12, 0}},
                       1'000'000'000);
  const SimulationRun r = run(trace, pools(1, 1), topology());
  const Tick transfer0 = r.ttft[0] - 600 * kMs;  // prefill of 600 uncached tokens
  const Tick transfer1 = r.ttft[1] - 100 * kMs;  // prefill: the prefix hits on the prefill worker too
  EXPECT_EQ(transfer0, 50'000 + 600 * 100'000);
  EXPECT_EQ(transfer1, 50'000 + 100 * 100'000);
  EXPECT_EQ(transfer0 - transfer1, 500 * 100'000);
  EXPECT_EQ(r.pools[1].decode_hit_tokens, 500u);
  EXPECT_EQ(r.pools[1].transferred_tokens, 700u);
}

TEST(DisaggregatedSimulator, TwoConcurrentTransfersShareTheDecodeWorkersLinkEqually) {
  // Two 200-token prompts at t = 0 on two prefill workers end together at
  // 200 ms; both send 200 tokens (20 ms alone) into the one decode worker,
  // so each takes 40 ms after the setup.
  const Workload trace({run_of(1000, 100), run_of(5000, 100)}, {Request{0, 0, 100, 11, 0}, Request{0, 1, 100, 12, 0}},
                       1'000'000'000);
  const SimulationRun r = run(trace, pools(2, 1), topology());
  EXPECT_EQ(r.ttft[0], 200 * kMs + 50'000 + 40 * kMs);
  EXPECT_EQ(r.ttft[1], 200 * kMs + 50'000 + 40 * kMs);
  EXPECT_EQ(r.pools[1].peak_link_transfers, 2u);
}

TEST(DisaggregatedSimulator, TransfersIntoDifferentDecodeWorkersDoNotShare) {
  // The same two requests on two decode workers (least loaded: 0 then 1).
  const Workload trace({run_of(1000, 100), run_of(5000, 100)}, {Request{0, 0, 100, 11, 0}, Request{0, 1, 100, 12, 0}},
                       1'000'000'000);
  const SimulationRun r = run(trace, pools(2, 2), topology());
  EXPECT_EQ(r.ttft[0], 200 * kMs + 50'000 + 20 * kMs);
  EXPECT_EQ(r.ttft[1], 200 * kMs + 50'000 + 20 * kMs);
  EXPECT_EQ(r.replica_of[0], 2u);  // decode worker 0, after the 2 prefill replicas
  EXPECT_EQ(r.replica_of[1], 3u);
}

TEST(DisaggregatedSimulator, LlmdPrefixRuleKeepsAPromptTheDecodeWorkerHoldsLocal) {
  // Request 1 repeats request 0's prompt, minus nothing: 0 tokens uncached on
  // the decode worker < 16, so it is prefilled there (0 uncached tokens: its
  // TTFT is 0 with an idle queue). Request 2, another tenant, is split.
  const Workload trace({run_of(1000, 500), run_of(9000, 500)},
                       {Request{0, 0, 0, 11, 0}, Request{2000 * kMs, 0, 0, 11, 0}, Request{4000 * kMs, 1, 0, 13, 0}},
                       1'000'000'000);
  TopologySettings t = topology();
  t.split = "llmd_prefix";
  t.split_uncached_tokens = 16;
  const SimulationRun r = run(trace, pools(1, 1), t);
  EXPECT_EQ(r.ttft[0], 500 * kMs + 50'000 + 50 * kMs);
  EXPECT_EQ(r.ttft[1], 0);
  EXPECT_EQ(r.ttft[2], 500 * kMs + 50'000 + 50 * kMs);
  EXPECT_EQ(r.pools[0].prefills, 2u);
  EXPECT_EQ(r.pools[1].prefills, 1u);
  EXPECT_EQ(r.pools[1].transfers, 2u);
}

TEST(DisaggregatedSimulator, DynamoIslBoundingPrefillsLocallyOnlyWhatIsShortAndMostlyCached) {
  // Request 0 (500 + 100 tokens) is split: 600 uncached, ratio 1. Request 1
  // shares its 500-token prefix: 100 uncached < 2048, 100/600 < 0.7: local,
  // prefilling 100 tokens (100 ms). Request 2, another tenant's 500 tokens:
  // 500 < 2048 but ratio 1 >= 0.7: split.
  const Workload trace({run_of(1000, 500), run_of(9000, 500)},
                       {Request{0, 0, 100, 11, 0}, Request{2000 * kMs, 0, 100, 12, 0}, Request{4000 * kMs, 1, 0, 13, 0}},
                       1'000'000'000);
  TopologySettings t = topology();
  t.split = "dynamo_isl";
  const SimulationRun r = run(trace, pools(1, 1), t);
  EXPECT_EQ(r.ttft[0], 600 * kMs + 50'000 + 60 * kMs);
  EXPECT_EQ(r.ttft[1], 100 * kMs);
  EXPECT_EQ(r.ttft[2], 500 * kMs + 50'000 + 50 * kMs);
  EXPECT_EQ(r.pools[0].prefills, 2u);
  EXPECT_EQ(r.pools[1].prefills, 1u);
  // A lower cap sends request 1 to the prefill pool too.
  t.split_eff_isl_tokens = 100;
  EXPECT_EQ(run(trace, pools(1, 1), t).pools[1].prefills, 0u);
}

TEST(DisaggregatedSimulator, NeverSplittingPrefillsEverythingOnTheDecodePool) {
  const Workload trace({run_of(1000, 100)}, {Request{0, 0, 100, 11, 0}}, 1'000'000'000);
  TopologySettings t = topology();
  t.split = "never";
  const SimulationRun r = run(trace, pools(1, 1), t);
  EXPECT_EQ(r.ttft[0], 200 * kMs);
  EXPECT_EQ(r.pools[0].requests, 0u);
  EXPECT_EQ(r.pools[1].prefills, 1u);
  EXPECT_EQ(r.pools[1].transfers, 0u);
}

}  // namespace
}  // namespace prefixroute::disaggregated_simulator_test
