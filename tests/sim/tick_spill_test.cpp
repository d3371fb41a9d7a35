// TickSpill: percentiles from the spill must be the sorted vector's
// (nearest_rank_percentile), and a spilled run's summary the in-memory one's;
// so must the in-memory summary's selection (nearest_ranks_and_max).
#include "prefixroute/sim/tick_spill.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute::tick_spill_test {
namespace {

// The ranks the summary asks for, the extremes and a few between.
const std::vector<std::uint32_t> kPercents = {1, 2, 10, 33, 50, 67, 90, 99, 100};

// The percentiles, the extremes and the sum against sorting.
void expect_as_sorted(const std::vector<Tick>& values) {
  TickSpill spill;
  for (const Tick v : values) spill.append(v);
  std::vector<Tick> sorted(values);
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(spill.size(), values.size());
  EXPECT_EQ(spill.min(), sorted.front());
  EXPECT_EQ(spill.max(), sorted.back());
  std::uint64_t low = 0;
  for (const Tick v : values) low += static_cast<std::uint64_t>(v);
  EXPECT_EQ(spill.sum_low(), low);
  const std::vector<Tick> got = spill.nearest_rank(kPercents);
  for (std::size_t j = 0; j < kPercents.size(); ++j)
    EXPECT_EQ(got[j], nearest_rank_percentile(sorted, kPercents[j])) << "p" << kPercents[j];
  std::vector<Tick> reordered(values);
  const std::vector<Tick> selected = nearest_ranks_and_max(reordered, kPercents);
  ASSERT_EQ(selected.size(), kPercents.size() + 1);
  for (std::size_t j = 0; j < kPercents.size(); ++j)
    EXPECT_EQ(selected[j], nearest_rank_percentile(sorted, kPercents[j])) << "selected p" << kPercents[j];
  EXPECT_EQ(selected.back(), sorted.back()) << "selected max";
  std::sort(reordered.begin(), reordered.end());
  EXPECT_EQ(reordered, sorted) << "the selection only reorders";
}

TEST(TickSpill, OneValue) { expect_as_sorted({1234}); }

TEST(TickSpill, AllEqual) { expect_as_sorted(std::vector<Tick>(20000, 77)); }

TEST(TickSpill, TwoValuesAndTheExtremesOfTheRange) {
  expect_as_sorted({5, 3});
  expect_as_sorted({std::numeric_limits<Tick>::max(), 0, std::numeric_limits<Tick>::min(), -1, 1});
}

// Random lengths across the 8,192-value blocks written to disk, values from
// narrow ranges (many ties) to the whole 64 bits.
TEST(TickSpill, RandomValuesWithTies) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    Rng rng(seed);
    const std::size_t n = 1 + rng.below(seed % 3 == 0 ? 30000 : 300);
    const std::uint64_t range = seed % 4 == 0 ? 3 : seed % 4 == 1 ? 1000 : seed % 4 == 2 ? (1ull << 40) : 0;
    std::vector<Tick> values(n);
    for (Tick& v : values) v = range == 0 ? static_cast<Tick>(rng.next_u64()) : static_cast<Tick>(rng.below(range));
    SCOPED_TRACE(seed);
    expect_as_sorted(values);
  }
}

// Without a temporary file (an unusable $TMPDIR) the values stay in memory.
TEST(TickSpill, KeepsValuesInMemoryWithoutATemporaryFile) {
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", "/nonexistent-prefixroute-dir", 1);
  {
    TickSpill spill;
    for (Tick v = 20000; v > 0; --v) spill.append(v);
    EXPECT_FALSE(spill.on_disk());
    const std::uint32_t p[] = {1, 50, 100};
    EXPECT_EQ(spill.nearest_rank(p), (std::vector<Tick>{200, 10000, 20000}));
  }
  if (old != nullptr)
    setenv("TMPDIR", saved.c_str(), 1);
  else
    unsetenv("TMPDIR");
  TickSpill spill;
  for (Tick v = 20000; v > 0; --v) spill.append(v);
  EXPECT_TRUE(spill.on_disk());
}

// A run spilled from its first request summarises exactly as one in memory.
TEST(TickSpill, ASpilledRunSummarisesAsOneInMemory) {
  WorkloadConfig w;
  w.requests = 20000;
  w.arrival_rate_per_s = 150;
  w.output_tokens_min = 1;
  w.output_tokens_max = 200;
  const Workload workload = generate_workload(w, 3);
  ClusterConfig cluster;
  cluster.replicas = 4;
  cluster.decode_ms_per_token = 0.5;  // end-to-end times differ from TTFTs
  RunSummary summaries[2];
  for (int spilled = 0; spilled < 2; ++spilled) {
    AffinityBalanced policy;
    TraceSource source(workload);
    RoutingPolicy* const one[] = {&policy};
    const SimulationRun run = simulate(source, cluster, std::span<RoutingPolicy* const>(one), {}, 4096, {}, false,
                                      spilled != 0 ? 0 : kKeepResults);
    EXPECT_EQ(run.spilled_ttft != nullptr, spilled != 0);
    EXPECT_EQ(run.ttft.empty(), spilled != 0);
    summaries[spilled] = summarize(run);
  }
  const RunSummary& a = summaries[0];
  const RunSummary& b = summaries[1];
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.mean_ttft_ms, b.mean_ttft_ms);
  EXPECT_EQ(a.p50_ttft_ms, b.p50_ttft_ms);
  EXPECT_EQ(a.p90_ttft_ms, b.p90_ttft_ms);
  EXPECT_EQ(a.p99_ttft_ms, b.p99_ttft_ms);
  EXPECT_EQ(a.max_ttft_ms, b.max_ttft_ms);
  EXPECT_EQ(a.mean_e2e_ms, b.mean_e2e_ms);
  EXPECT_EQ(a.p50_e2e_ms, b.p50_e2e_ms);
  EXPECT_EQ(a.p99_e2e_ms, b.p99_e2e_ms);
  EXPECT_EQ(a.hit_rate, b.hit_rate);
  EXPECT_EQ(a.predicted_hit_rate, b.predicted_hit_rate);
  EXPECT_EQ(a.predicted_actual_hit_rate, b.predicted_actual_hit_rate);
  EXPECT_NE(a.p50_e2e_ms, a.p50_ttft_ms);
}

}  // namespace
}  // namespace prefixroute::tick_spill_test
