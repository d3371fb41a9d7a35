// The step model (sim/step_model.h): each term on its own, the roofline max,
// and the exact agreement with the seed's linear prefill when only the rate
// is set.
#include "prefixroute/cluster/step_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "prefixroute/base/random.h"

namespace prefixroute::step_model_test {
namespace {

StepModel rate_only(double tokens_per_s) { return StepModel{PrefillModel{tokens_per_s}, {}}; }

StepLoad chunk(std::uint64_t n, std::uint64_t ctx) {
  StepLoad load;
  load.add(n, ctx);
  return load;
}

TEST(StepModel, WithOnlyARateAStepIsBitForBitTheSeedsLinearPrefill) {
  Rng rng(7);
  for (int i = 0; i < 20000; ++i) {
    const double rate = 1 + rng.uniform01() * 1e9;
    const std::uint64_t n = rng.uniform_int(0, 2'000'000);
    const std::uint64_t ctx = rng.uniform_int(0, 1'000'000);
    const StepModel model = rate_only(rate);
    ASSERT_EQ(model.prefill_ticks(n, ctx), PrefillModel{rate}.prefill_ticks(n)) << rate << " " << n;
    if (n > 0) {
      ASSERT_EQ(model.step_ticks(chunk(n, ctx)), PrefillModel{rate}.prefill_ticks(n)) << rate << " " << n;
    }
  }
}

TEST(StepModel, LoadSumsTokensPairsAndContextOverSequences) {
  StepLoad load;
  load.add(100, 0);   // a first chunk: 100 x (0 + 50) pairs
  load.add(1, 999);   // a decode at context 999: 999.5 pairs
  EXPECT_EQ(load.tokens, 101u);
  EXPECT_EQ(load.pairs2, 100u * 100u + 1u * (2u * 999u + 1u));
  EXPECT_EQ(load.context, 100u + 1000u);
}

TEST(StepModel, AttentionAddsKTimesNTimesContextPlusHalfTheChunk) {
  StepModel model = rate_only(1e6);  // 1 us per token
  model.costs.attention_ns_per_token_pair = 2;
  // 1000 tokens after 3000: 1000 us linear + 2 ns x 1000 x (3000 + 500) = 7000 us.
  EXPECT_EQ(model.step_ticks(chunk(1000, 3000)), 1'000'000 + 7'000'000);
}

TEST(StepModel, AStepTakesTheSlowerOfComputeAndMemoryPlusTheOverhead) {
  StepModel model = rate_only(1e6);
  model.costs.overhead_ms = 0.5;
  model.costs.weight_read_ms = 6;
  model.costs.kv_read_ns_per_token = 100;
  // Decode of 8 sequences at context 1000: compute 8 us, memory 6 ms + 8008 x 100 ns.
  StepLoad decode;
  for (int i = 0; i < 8; ++i) decode.add(1, 1000);
  EXPECT_EQ(model.step_ticks(decode), 500'000 + 6'000'000 + 800'800);
  // A prefill chunk of 8192: compute 8.192 ms beats memory 6 ms + 819.2 us.
  EXPECT_EQ(model.step_ticks(chunk(8192, 0)), 500'000 + 8'192'000);
}

TEST(StepModel, ExpertsReadGrowAsOneMinusTheUntouchedShareToTheTokens) {
  StepModel model = rate_only(1e12);  // compute negligible
  model.costs.expert_read_ms = 10;
  model.costs.expert_share_per_token = 0.25;
  EXPECT_EQ(model.step_ticks(chunk(1, 0)), 2'500'000);  // 1 - 0.75
  EXPECT_EQ(model.step_ticks(chunk(2, 0)), std::llround(10e6 * (1 - 0.75 * 0.75)));
  EXPECT_EQ(model.step_ticks(chunk(3, 0)), std::llround(10e6 * (1 - 0.75 * 0.75 * 0.75)));
  EXPECT_EQ(model.step_ticks(chunk(200, 0)), 10'000'000);  // every expert read
}

TEST(StepModel, AStepThatComputesATokenTakesAtLeastOneTick) {
  EXPECT_EQ(rate_only(1e9).step_ticks(chunk(1, 0)), 1);
  EXPECT_EQ(rate_only(1e9).prefill_ticks(0, 5), 0);  // a fully cached fifo prompt costs nothing
}

TEST(StepModel, AbsurdCostsAreClampedToTheLongestStep) {
  StepModel model = rate_only(1);
  model.costs.attention_ns_per_token_pair = 1000;
  EXPECT_EQ(model.step_ticks(chunk(10'000'000, 1'000'000'000)), std::llround(StepModel::kMaxStepNs));
}

}  // namespace
}  // namespace prefixroute::step_model_test
