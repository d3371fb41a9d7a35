// Timeline (sim/timeline.h): hand-computed cells of crafted runs, the pooled
// row of a large cluster, and that recording one changes no result.
#include "prefixroute/sim/timeline.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "prefixroute/policies/round_robin.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "tokens.h"

namespace prefixroute::timeline_test {
namespace {

using testsupport::run_of;
using testsupport::Tokens;

constexpr Tick kMs = kTicksPerMillisecond;

// One token of prefill per millisecond; caches far larger than the trace.
ClusterConfig cluster(std::uint32_t replicas) {
  ClusterConfig c;
  c.replicas = replicas;
  c.cache_tokens = 100'000;
  c.protect_after_hits = 0;
  c.prefill.tokens_per_s = 1000.0;
  return c;
}

// Tenant 0 (content run 0) has a 100-token prefix, tenant 1 (run 1) a 50-token one.
// Round robin over two replicas sends requests 0, 2, 4 to replica 0 and 1, 3 to replica 1:
//   req  arrival  tenant  prompt  replica  wait    cached  TTFT
//   0    0        0       120     0        0       0       120 ms
//   1    0        0       110     1        0       0       110 ms
//   2    0        1       80      0        120 ms  0       200 ms
//   3    0        0       105     1        110 ms  100     115 ms
//   4    400 ms   1       60      0        0       50      10 ms
// The last arrival is 400 ms, so the sample period is 400 ms / 256 + 1 tick
// and a window 4 periods: 6,250,004 ticks. Requests 0-3 fall in window 0,
// request 4 in window 63 (400e6 / 6,250,004 = 63.99...).
Workload crafted_trace() {
  std::vector<Tokens> prefixes = {run_of(1000, 100), run_of(2000, 50)};
  std::vector<Request> requests = {
      {0, 0, 20, 11}, {0, 0, 10, 12}, {0, 1, 30, 13}, {0, 0, 5, 14}, {400 * kMs, 1, 10, 15},
  };
  return Workload(std::move(prefixes), std::move(requests), 1'000'000'000);
}

std::size_t cell(const Timeline& t, std::uint32_t window, std::uint32_t row) {
  return static_cast<std::size_t>(window) * t.rows() + row;
}

TEST(Timeline, NotRecordedUnlessAsked) {
  const Workload trace = crafted_trace();
  RoundRobin policy;
  const SimulationRun run = simulate(trace, cluster(2), policy);
  EXPECT_EQ(run.timeline.windows, 0u);
  EXPECT_TRUE(run.timeline.requests.empty());
}

TEST(Timeline, HandComputedFifoCells) {
  const Workload trace = crafted_trace();
  RoundRobin policy;
  const SimulationRun run = simulate(trace, cluster(2), policy, {}, 4096, {}, true);
  const Timeline& t = run.timeline;
  ASSERT_EQ(t.windows, kTimelineWindows);
  EXPECT_EQ(t.window_ticks, 4 * (400 * kMs / 256 + 1));
  EXPECT_EQ(t.replicas, 2u);
  EXPECT_EQ(t.shown, 2u);
  EXPECT_FALSE(t.other);
  EXPECT_FALSE(t.batched);
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_TRUE(t.mean_batch.empty());

  const std::size_t a = cell(t, 0, 0), b = cell(t, 0, 1), c = cell(t, 63, 0);
  EXPECT_EQ(t.requests[a], 2u);
  EXPECT_EQ(t.requests[b], 2u);
  EXPECT_EQ(t.requests[c], 1u);
  EXPECT_DOUBLE_EQ(t.mean_wait_ms[a], 60.0);   // (0 + 120) / 2
  EXPECT_DOUBLE_EQ(t.mean_wait_ms[b], 55.0);   // (0 + 110) / 2
  EXPECT_DOUBLE_EQ(t.mean_wait_ms[c], 0.0);
  EXPECT_DOUBLE_EQ(t.mean_ttft_ms[a], 160.0);  // (120 + 200) / 2
  EXPECT_DOUBLE_EQ(t.mean_ttft_ms[b], 112.5);  // (110 + 115) / 2
  EXPECT_DOUBLE_EQ(t.mean_ttft_ms[c], 10.0);
  EXPECT_DOUBLE_EQ(t.hit_rate[a], 0.0);
  EXPECT_DOUBLE_EQ(t.hit_rate[b], 100.0 / 215.0);
  EXPECT_DOUBLE_EQ(t.hit_rate[c], 50.0 / 60.0);
  // Groups: replica 0 saw tenants 0 and 1 once each (the tie goes to key 0);
  // replica 1 only tenant 0; window 63 tenant 1.
  EXPECT_EQ(t.groups[a], 2u);
  EXPECT_EQ(t.groups[b], 1u);
  EXPECT_EQ(t.groups[c], 1u);
  // Key 0 tops cells holding 1 + 2 of its requests, key 1 one cell with 1.
  ASSERT_EQ(t.group_keys, (std::vector<std::uint64_t>{0, 1}));
  EXPECT_EQ(t.top_group[a], 0);
  EXPECT_EQ(t.top_group[b], 0);
  EXPECT_EQ(t.top_group[c], 1);
  EXPECT_DOUBLE_EQ(t.top_share[a], 0.5);
  EXPECT_DOUBLE_EQ(t.top_share[b], 1.0);
  EXPECT_DOUBLE_EQ(t.top_share[c], 1.0);
  // Window 0's samples are at 0 (taken before the arrivals of tick 0: none
  // in flight) and at 1, 2 and 3 periods (both requests of each replica
  // still in flight, the first prefill ending at 110 ms).
  EXPECT_DOUBLE_EQ(t.mean_in_flight[a], 1.5);
  EXPECT_DOUBLE_EQ(t.mean_in_flight[b], 1.5);
  // Every other cell is empty.
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < t.requests.size(); ++i) {
    total += t.requests[i];
    if (i != a && i != b && i != c) {
      EXPECT_EQ(t.requests[i], 0u) << i;
      EXPECT_EQ(t.top_group[i], -1) << i;
      EXPECT_EQ(t.mean_ttft_ms[i], 0.0) << i;
    }
  }
  EXPECT_EQ(total, 5u);
}

TEST(Timeline, RecordingChangesNoResult) {
  WorkloadConfig config;
  config.requests = 600;
  const Workload trace = generate_workload(config, 7);
  RoundRobin a, b;
  const SimulationRun plain = simulate(trace, cluster(3), a);
  const SimulationRun recorded = simulate(trace, cluster(3), b, {}, 4096, {}, true);
  EXPECT_EQ(plain.ttft, recorded.ttft);
  EXPECT_EQ(plain.cached_of, recorded.cached_of);
  EXPECT_EQ(plain.replica_of, recorded.replica_of);
  EXPECT_EQ(plain.in_flight_samples, recorded.in_flight_samples);
}

TEST(Timeline, LargeClusterPoolsTheReplicasNotShownInOneRow) {
  // 40 requests at tick 0 and one at 1 s, round robin over 34 replicas: in
  // window 0 replicas 0-5 get two (i and i + 34), the others one; the pooled
  // row holds replicas 32 and 33.
  const std::uint32_t replicas = kTimelineMaxReplicas + 2;
  std::vector<Tokens> prefixes = {run_of(1000, 100)};
  std::vector<Request> requests;
  for (std::uint32_t i = 0; i < 40; ++i) requests.push_back({0, 0, 10, 100 + i});
  requests.push_back({1000 * kMs, 0, 10, 999});
  const Workload trace(std::move(prefixes), std::move(requests), 1'000'000'000);
  RoundRobin policy;
  const SimulationRun run = simulate(trace, cluster(replicas), policy, {}, 4096, {}, true);
  const Timeline& t = run.timeline;
  EXPECT_EQ(t.replicas, replicas);
  EXPECT_EQ(t.shown, kTimelineMaxReplicas);
  EXPECT_TRUE(t.other);
  ASSERT_EQ(t.rows(), kTimelineMaxReplicas + 1);
  EXPECT_EQ(t.requests.size(), static_cast<std::size_t>(kTimelineWindows) * t.rows());
  EXPECT_EQ(t.requests[cell(t, 0, 0)], 2u);                     // requests 0 and 34
  EXPECT_EQ(t.requests[cell(t, 0, 6)], 1u);                     // request 6 only
  EXPECT_EQ(t.requests[cell(t, 0, kTimelineMaxReplicas)], 2u);  // requests 32 and 33, pooled
  // Request 40 goes to replica 40 mod 34 = 6, in the last window.
  EXPECT_EQ(t.requests[cell(t, 63, 6)], 1u);
  std::uint64_t total = 0;
  for (const std::uint32_t k : t.requests) total += k;
  EXPECT_EQ(total, 41u);
}

TEST(Timeline, BatchedCellsAreTheMeansOfTheRunsSamples) {
  WorkloadConfig config;
  config.requests = 400;
  config.output_tokens_min = 4;
  config.output_tokens_max = 40;
  const Workload trace = generate_workload(config, 3);
  ClusterConfig c = cluster(3);
  c.engine = EngineKind::Batched;
  c.cache_tokens = 20'000;
  c.kv_block_tokens = 16;
  RoundRobin policy;
  const SimulationRun run = simulate(trace, c, policy, {}, 4096, {}, true);
  const Timeline& t = run.timeline;
  ASSERT_TRUE(t.batched);
  ASSERT_EQ(run.batch_samples.size(), static_cast<std::size_t>(kInFlightSamples) * 3);
  const std::uint32_t per = TimelineRecorder::samples_per_window();
  for (std::uint32_t w = 0; w < t.windows; w += 9) {
    for (std::uint32_t r = 0; r < 3; ++r) {
      double batch = 0, kv = 0;
      for (std::uint32_t s = w * per; s < (w + 1) * per; ++s) {
        batch += run.batch_samples[s * 3 + r];
        kv += static_cast<double>(run.kv_block_samples[s * 3 + r]) * 16 / 20'000.0;
      }
      EXPECT_DOUBLE_EQ(t.mean_batch[cell(t, w, r)], batch / per) << w << " " << r;
      EXPECT_DOUBLE_EQ(t.kv_use[cell(t, w, r)], kv / per) << w << " " << r;
      EXPECT_EQ(t.mean_wait_ms[cell(t, w, r)], 0.0);
    }
  }
  std::uint64_t total = 0;
  for (const std::uint32_t k : t.requests) total += k;
  EXPECT_EQ(total, 400u);
}

}  // namespace
}  // namespace prefixroute::timeline_test
