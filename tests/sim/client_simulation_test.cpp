// Benchmark clients (workload/client.h) through the simulator, against runs
// computed by hand: a closed loop of one is a serial run, a burst on one
// replica is its FIFO order, a constant client through one uncached replica is
// a D/D/1 queue, stage figures count their own windows, a timeout fails
// exactly the requests slower than it.
#include "prefixroute/workload/client.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "prefixroute/policies/round_robin.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "tokens.h"

namespace prefixroute::client_simulation_test {
namespace {

using Ticks = std::vector<Tick>;
constexpr Tick kMs = kTicksPerMillisecond;

// Requests of `tokens` prompt tokens each (no shared prefix: one empty
// tenant prefix, turns from a vocabulary too large to repeat a token), all
// "arriving" at 0: the client sets the send times.
Workload trace_of(const std::vector<std::uint32_t>& tokens, std::uint32_t output_tokens = 0) {
  std::vector<Request> requests;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    requests.push_back({0, 0, tokens[i], 100 + i, output_tokens});
  return Workload({testsupport::Tokens{}}, std::move(requests), 1'000'000'000);
}

// One replica, no cache, one prompt token per millisecond of prefill.
ClusterConfig one_replica(double decode_ms_per_token = 0) {
  ClusterConfig c;
  c.replicas = 1;
  c.cache_tokens = 0;
  c.protect_after_hits = 0;
  c.prefill.tokens_per_s = 1000.0;
  c.decode_ms_per_token = decode_ms_per_token;
  return c;
}

// Round robin that records when each request was sent (routed).
class SendTimes final : public RoutingPolicy {
 public:
  std::size_t choose(const RouteRequest&, const ClusterView& cluster, Tick now) override {
    sends.push_back(now);
    return next_++ % cluster.size();
  }
  std::string_view name() const override { return "send_times"; }
  Ticks sends;

 private:
  std::size_t next_ = 0;
};

struct ClientRun {
  SimulationRun run;
  RunSummary summary;
  Ticks sends;
};

ClientRun run_client(const Workload& trace, const ClusterConfig& cluster, const ClientConfig& config) {
  ClientSource client(std::make_unique<TraceSource>(trace), config, 42);
  SendTimes policy;
  ClientRun out;
  RoutingPolicy* routers[] = {&policy};
  out.run = simulate(client, cluster, std::span<RoutingPolicy* const>(routers));
  out.run.client = client.record();
  out.summary = summarize(out.run);
  out.sends = policy.sends;
  return out;
}

ClientConfig closed(std::uint32_t concurrency, double think_s = 0) {
  ClientConfig c;
  c.kind = "closed";
  c.concurrency = concurrency;
  c.think_s = think_s;
  return c;
}

// ---------------------------------------------------------------------------
// Closed loop

TEST(ClosedClient, OfOneIsASerialRun) {
  // Services 20, 10, 30, 5 ms, each sent when the previous completes.
  const ClientRun r = run_client(trace_of({20, 10, 30, 5}), one_replica(), closed(1));
  EXPECT_EQ(r.sends, (Ticks{0, 20 * kMs, 30 * kMs, 60 * kMs}));
  EXPECT_EQ(r.run.ttft, (Ticks{20 * kMs, 10 * kMs, 30 * kMs, 5 * kMs}));
}

TEST(ClosedClient, OfOneWithDecodeSendsAtEachCompletionPlusTheThinkTime) {
  // 4 output tokens at 1 ms: a request completes 4 ms after its first token;
  // the next goes 2 ms later.
  //   request  sent   first token  completion
  //      0        0        20           24
  //      1       26        36           40
  //      2       42        72           76
  const ClientRun r = run_client(trace_of({20, 10, 30}, 4), one_replica(1.0), closed(1, 0.002));
  EXPECT_EQ(r.sends, (Ticks{0, 26 * kMs, 42 * kMs}));
  EXPECT_EQ(r.run.ttft, (Ticks{20 * kMs, 10 * kMs, 30 * kMs}));
  EXPECT_EQ(r.run.end_to_end, (Ticks{24 * kMs, 14 * kMs, 34 * kMs}));
}

TEST(ClosedClient, KeepsItsConcurrencyOutstanding) {
  // Two slots on one replica: 0 and 1 go at 0 (1 queues behind 0); 2 goes
  // when 0 completes (20), 3 when 1 does (30).
  const ClientRun r = run_client(trace_of({20, 10, 30, 5}), one_replica(), closed(2));
  EXPECT_EQ(r.sends, (Ticks{0, 0, 20 * kMs, 30 * kMs}));
  // TTFT from each send: 1 waits 20 ms, 2 starts at 30 after 1, 3 after 2 (60).
  EXPECT_EQ(r.run.ttft, (Ticks{20 * kMs, 30 * kMs, 40 * kMs, 35 * kMs}));
}

TEST(ClosedClient, ATimeoutFailsTheSlowRequestsAndFreesTheirSlots) {
  // Timeout 15 ms, one slot:
  //   request  sent  starts  done   from its send
  //      0       0       0     20       20 > 15: fails, its slot free at 15
  //      1      15      20     30       15: completes
  //      2      30      30     60       30: fails at 45
  //      3      45      60     65       20: fails
  ClientConfig c = closed(1);
  c.timeout_s = 0.015;
  const ClientRun r = run_client(trace_of({20, 10, 30, 5}), one_replica(), c);
  EXPECT_EQ(r.sends, (Ticks{0, 15 * kMs, 30 * kMs, 45 * kMs}));
  EXPECT_EQ(r.summary.failed, 3u);
  // The latency figures are request 1's alone.
  EXPECT_DOUBLE_EQ(r.summary.mean_ttft_ms, 15.0);
  EXPECT_DOUBLE_EQ(r.summary.p99_ttft_ms, 15.0);
}

TEST(ClosedClient, ARateCapMakesRequestsWaitForASlotAndReportsTheWait) {
  ClientConfig c = closed(2);
  c.rate_per_s = 1000;  // due every ~1 ms: far faster than 20 ms services
  const ClientRun r = run_client(trace_of(std::vector<std::uint32_t>(40, 20)), one_replica(), c);
  ASSERT_EQ(r.sends.size(), 40u);
  ASSERT_EQ(r.run.client.wait.size(), 40u);
  // Never more than two outstanding: request i + 2 goes only when i completes.
  for (std::size_t i = 0; i + 2 < r.sends.size(); ++i) EXPECT_GE(r.sends[i + 2], r.sends[i] + r.run.end_to_end[i]);
  EXPECT_GT(r.summary.mean_client_wait_ms, 0.0);
  for (const Tick w : r.run.client.wait) EXPECT_GE(w, 0);
}

// ---------------------------------------------------------------------------
// Open loop

TEST(BurstClient, OnOneReplicaQueuesInTheWorkloadsOrder) {
  ClientConfig c;
  c.kind = "burst";
  const ClientRun r = run_client(trace_of({20, 10, 30, 5}), one_replica(), c);
  EXPECT_EQ(r.sends, (Ticks{0, 0, 0, 0}));
  EXPECT_EQ(r.run.ttft, (Ticks{20 * kMs, 30 * kMs, 60 * kMs, 65 * kMs}));
}

TEST(ConstantClient, ThroughOneUncachedReplicaIsADD1Queue) {
  // Gaps T = 10 ms. Service S = 12 ms > T: request i waits i x (S - T).
  ClientConfig c;
  c.kind = "constant";
  c.rate_per_s = 100;
  const ClientRun slow = run_client(trace_of(std::vector<std::uint32_t>(6, 12)), one_replica(), c);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(slow.sends[i], static_cast<Tick>(i) * 10 * kMs);
    EXPECT_EQ(slow.run.ttft[i], (12 + 2 * static_cast<Tick>(i)) * kMs) << "request " << i;
  }
  // S = 8 ms < T: nobody waits.
  const ClientRun fast = run_client(trace_of(std::vector<std::uint32_t>(6, 8)), one_replica(), c);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(fast.run.ttft[i], 8 * kMs) << "request " << i;
}

TEST(PoissonClient, AtRateZeroKeepsTheWorkloadsOwnArrivals) {
  ClientConfig c;
  c.timeout_s = 1;  // anything but the default makes a client; rate 0 keeps the timing
  std::vector<Request> requests = {{0, 0, 5, 1, 0}, {7 * kMs, 0, 5, 2, 0}, {9 * kMs, 0, 5, 3, 0}};
  const Workload trace({testsupport::Tokens{}}, std::move(requests), 1'000'000'000);
  const ClientRun r = run_client(trace, one_replica(), c);
  EXPECT_EQ(r.sends, (Ticks{0, 7 * kMs, 9 * kMs}));
}

// ---------------------------------------------------------------------------
// Stages

TEST(ClientStages, EachStageStartsWhenThePreviousOnesRequestsAreDone) {
  // Constant stages, 2 ms services, a warm-up and a 10 ms pause:
  //   warm-up 50/s x 0.04 s: 2 requests at 0, 20; ends at 22
  //   stage 1 100/s x 0.05 s: 5 requests at 32, 42, 52, 62, 72; ends at 74
  //   stage 2 200/s x 0.05 s: 10 requests at 84, 89, ..., 129; ends at 131
  ClientConfig c;
  c.kind = "constant";
  c.warmup = "50x0.04";
  c.stages = "100x0.05,200x0.05";
  c.stage_interval_s = 0.01;
  const ClientRun r = run_client(trace_of(std::vector<std::uint32_t>(20, 2)), one_replica(), c);
  Ticks expected = {0, 20 * kMs};
  for (Tick k = 0; k < 5; ++k) expected.push_back((32 + 10 * k) * kMs);
  for (Tick k = 0; k < 10; ++k) expected.push_back((84 + 5 * k) * kMs);
  EXPECT_EQ(r.sends, expected);
  ASSERT_EQ(r.run.client.stages.size(), 3u);
  EXPECT_TRUE(r.run.client.stages[0].warmup);
  EXPECT_EQ(r.run.client.stages[0].end, 22 * kMs);
  EXPECT_EQ(r.run.client.stages[1].start, 32 * kMs);
  EXPECT_EQ(r.run.client.stages[2].end, 131 * kMs);
  // The summary's stages leave the warm-up out.
  ASSERT_EQ(r.summary.stages.size(), 2u);
  const StageSummary& one = r.summary.stages[0];
  EXPECT_EQ(one.requests, 5u);
  EXPECT_DOUBLE_EQ(one.start_s, 0.032);
  EXPECT_DOUBLE_EQ(one.end_s, 0.074);
  EXPECT_DOUBLE_EQ(one.completed_per_s, 5 / (0.074 - 0.032));
  EXPECT_DOUBLE_EQ(one.input_tokens_per_s, 10 / (0.074 - 0.032));
  EXPECT_DOUBLE_EQ(one.mean_ttft_ms, 2.0);
  EXPECT_DOUBLE_EQ(one.p99_ttft_ms, 2.0);
  EXPECT_DOUBLE_EQ(one.hit_rate, 0.0);
  const StageSummary& two = r.summary.stages[1];
  EXPECT_EQ(two.requests, 10u);
  EXPECT_DOUBLE_EQ(two.completed_per_s, 10 / (0.131 - 0.084));
  EXPECT_TRUE(two.has_kv);
}

TEST(ClientStages, AClosedStageSendsUntilItsDurationThenDrains) {
  // Concurrency 1 for 0.05 s, 20 ms services: sends at 0, 20, 40 (60 is past
  // the stage's end); the stage ends at 60, the next (concurrency 2, long)
  // starts there and sends the rest two at a time.
  ClientConfig c;
  c.kind = "closed";
  c.stages = "1x0.05,2x100";
  const ClientRun r = run_client(trace_of(std::vector<std::uint32_t>(7, 20)), one_replica(), c);
  EXPECT_EQ(r.sends, (Ticks{0, 20 * kMs, 40 * kMs, 60 * kMs, 60 * kMs, 80 * kMs, 100 * kMs}));
  ASSERT_EQ(r.summary.stages.size(), 2u);
  EXPECT_EQ(r.summary.stages[0].requests, 3u);
  EXPECT_DOUBLE_EQ(r.summary.stages[0].end_s, 0.06);
  EXPECT_EQ(r.summary.stages[1].requests, 4u);
}

TEST(ClientStages, AWorkloadTooShortEndsTheLastStageEarly) {
  ClientConfig c;
  c.kind = "constant";
  c.stages = "100x1";  // would send 100
  const ClientRun r = run_client(trace_of(std::vector<std::uint32_t>(3, 2)), one_replica(), c);
  EXPECT_EQ(r.sends.size(), 3u);
  ASSERT_EQ(r.summary.stages.size(), 1u);
  EXPECT_EQ(r.summary.stages[0].requests, 3u);
}

}  // namespace
}  // namespace prefixroute::client_simulation_test
