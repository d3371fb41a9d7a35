// The smallest tensor parallelism (cluster/tp_choice.h), on cases computed by
// hand from the presets (GiB = 2^30 B; usable = CUDA memory x 0.9; reserve
// 1.55 GiB, plus 1.8 GiB when tp > 1; one 131,072-token context of
// Llama-3.1-70B is 131,072 x 327,680 B / tp on tp <= 8 GPUs).
#include "prefixroute/cluster/tp_choice.h"

#include <gtest/gtest.h>

#include <string>

namespace prefixroute::tp_choice_test {
namespace {

TpChoice pick(const std::string& model, const std::string& gpu, std::uint32_t tp = 1) {
  HardwareSettings s;
  s.model = model;
  s.gpu = gpu;
  s.tp = tp;  // ignored: the choice tries every degree
  return smallest_tp(s, 16);
}

TEST(SmallestTp, SeventyBOnH100SkipsTheDegreeWhoseCacheIsShortOfOneContext) {
  // tp 1: 141.11 GB of weights on one 76.53 GB GPU, refused. tp 2: 76.53 -
  // 70.55 - 3.60 = 2.38 GB per GPU, 14,496 tokens: short of 131,072. tp 4:
  // 37.65 GB per GPU / 81,920 B = 459,616 tokens.
  const TpChoice c = pick("llama-3.1-70b", "h100", 2);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.tp, 4u);
  EXPECT_EQ(c.min_fit_tp, 2u);
  EXPECT_TRUE(c.holds_context);
  EXPECT_EQ(c.cache_tokens, 459616u);
  EXPECT_EQ(c.context_tokens, 131072u);
  EXPECT_EQ(c.weight_bytes, 141107412992.0);
  EXPECT_EQ(c.reason.rfind("TP 4: the smallest that holds Llama-3.1-70B's 141.11 GB of weights with room for KV on "
                           "H100-SXM 80GB (459,616 tokens per replica",
                           0),
            0u)
      << c.reason;
}

TEST(SmallestTp, SeventyBOnH200NeedsTwo) {
  // tp 2: 135.10 - 70.55 - 3.60 = 60.96 GB per GPU / 163,840 B = 372,048 tokens.
  const TpChoice c = pick("llama-3.1-70b", "h200");
  EXPECT_EQ(c.tp, 2u);
  EXPECT_TRUE(c.holds_context);
  EXPECT_EQ(c.cache_tokens, 372048u);
}

TEST(SmallestTp, EightBOnOneH100) {
  const TpChoice c = pick("llama-3.1-8b", "h100", 8);
  EXPECT_EQ(c.tp, 1u);
  EXPECT_EQ(c.cache_tokens, 448608u);
}

TEST(SmallestTp, EightBOnL4NeedsTwoThoughItsWeightsFitOne) {
  // tp 1: 21.43 - 16.06 - 1.66 = 3.71 GB / 131,072 B = 28,288 tokens, short of
  // 131,072; tp 2: 9.81 GB / 65,536 B = 149,632 tokens.
  const TpChoice c = pick("llama-3.1-8b", "l4");
  EXPECT_EQ(c.tp, 2u);
  EXPECT_EQ(c.min_fit_tp, 1u);
  EXPECT_EQ(c.cache_tokens, 149632u);
}

TEST(SmallestTp, SlidingWindowLayersNeedOnlyTheirWindow) {
  // gpt-oss-120b on one H100: 5.73 GB left per GPU; its 18 full-attention
  // layers need 131,072 x 2,048 B each (4.83 GB), its 18 sliding layers 160
  // tokens each (the 128-token window in blocks, plus one): 4.84 GB, it fits.
  // Counting every layer as full attention would need 9.66 GB (tp 2).
  const TpChoice c = pick("gpt-oss-120b", "h100");
  EXPECT_EQ(c.tp, 1u);
  EXPECT_TRUE(c.holds_context);
  EXPECT_EQ(c.cache_tokens, 77696u);
}

TEST(SmallestTp, NoDegreeHoldsAFullContextTakesTheSmallestThatFitsAndSaysSo) {
  // DeepSeek-V3 (672.85 GB, FP8) on H20: only tp 8 fits (84.11 GB per GPU),
  // leaving 4.11 GB: 58,496 tokens of 70,272 B, short of 163,840.
  const TpChoice c = pick("deepseek-v3", "h20");
  EXPECT_EQ(c.tp, 8u);
  EXPECT_EQ(c.min_fit_tp, 8u);
  EXPECT_FALSE(c.holds_context);
  EXPECT_EQ(c.cache_tokens, 58496u);
  EXPECT_NE(c.reason.find("short of one full 163,840-token context"), std::string::npos) << c.reason;
}

TEST(SmallestTp, NoDegreeFitsTheWeights) {
  // 672.85 GB / 8 = 84.11 GB per H100, more than its 76.53 GB usable.
  const TpChoice c = pick("deepseek-v3", "h100");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.tp, 0u);
  EXPECT_EQ(c.min_fit_tp, 0u);
  EXPECT_FALSE(c.holds_context);
  EXPECT_NE(c.reason.find("no TP up to 8 holds DeepSeek-V3's 672.85 GB of weights"), std::string::npos) << c.reason;
}

TEST(SmallestTp, LowerMemoryUtilisationNeedsMoreGpus) {
  // At 0.5 of an H100 (42.52 GB usable) Llama-3.1-8B leaves 24.79 GB: 189,120
  // tokens at tp 1, still a full context; at 0.25 (21.26 GB) 3.53 GB, 26,944
  // tokens: tp 2 (21.26 - 8.03 - 3.60 = 9.63 GB / 65,536 B = 146,928).
  HardwareSettings s;
  s.model = "llama-3.1-8b";
  s.memory_utilization = 0.25;
  const TpChoice c = smallest_tp(s, 16);
  EXPECT_EQ(c.tp, 2u);
  EXPECT_EQ(c.cache_tokens, 146928u);
}

TEST(SmallestTp, ErrorsNameTheirField) {
  EXPECT_EQ(pick("none", "h100").error_field, "hardware.model");
  EXPECT_EQ(pick("llama-9", "h100").error_field, "hardware.model");
  EXPECT_EQ(pick("llama-3.1-8b", "tpu").error_field, "hardware.gpu");
  EXPECT_EQ(pick("llama-3.1-8b", "tpu").tp, 0u);
}

}  // namespace
}  // namespace prefixroute::tp_choice_test
