// Hardware presets and what they derive (sim/hardware.h): the published KV
// sizes, parameter counts that follow from each dense model's architecture,
// vLLM's measured KV capacity, the formulas, and the refusals.
#include "prefixroute/cluster/hardware.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace prefixroute::hardware_test {
namespace {

HardwareSettings on(const std::string& model, const std::string& gpu = "h100", std::uint32_t tp = 1) {
  HardwareSettings s;
  s.model = model;
  s.gpu = gpu;
  s.tp = tp;
  return s;
}

double kv_bytes(const std::string& model, const std::string& dtype = "bf16") {
  HardwareSettings s = on(model, "b200", 8);
  s.kv_dtype = dtype;
  return derive_hardware(s, 16).kv_bytes_per_token;
}

const DerivedField& field(const HardwareDerivation& d, const std::string& key) {
  for (const DerivedField& f : d.fields)
    if (f.key == key) return f;
  static const DerivedField none;
  ADD_FAILURE() << "no derived field " << key;
  return none;
}

TEST(HardwarePresets, KvBytesPerTokenAreThePublishedFigures) {
  EXPECT_EQ(kv_bytes("llama-3.1-8b"), 131072);   // 128 KiB
  EXPECT_EQ(kv_bytes("llama-3.1-70b"), 327680);  // 320 KiB
  EXPECT_EQ(kv_bytes("qwen2.5-7b"), 57344);      // 56 KiB
  EXPECT_EQ(kv_bytes("qwen2.5-32b"), 262144);    // 256 KiB
  EXPECT_EQ(kv_bytes("deepseek-v3"), 70272);     // MLA: 61 x (512 + 64) x 2
  EXPECT_EQ(kv_bytes("deepseek-v3", "fp8"), 35136);
  EXPECT_EQ(kv_bytes("llama-3.1-8b", "fp8"), 65536);
}

// params = embeddings + LM head + layers x (q, k, v (+ biases), o, SwiGLU, 2 norms) + final norm.
TEST(HardwarePresets, DenseParameterCountsFollowFromTheirArchitecture) {
  for (const ModelPreset& m : model_presets()) {
    if (m.routed_experts > 0) continue;
    SCOPED_TRACE(std::string(m.name));
    const double d = m.hidden, kv = static_cast<double>(m.kv_heads) * m.head_dim;
    const double attention = d * d + 2 * d * kv + d * d + (m.qkv_bias ? d + 2 * kv : 0);
    const double layer = attention + 3 * d * m.intermediate + 2 * d;
    const double total = m.layers * layer + 2 * d * m.vocab + d;
    EXPECT_EQ(total, m.params);
    EXPECT_EQ(m.heads * m.head_dim, m.hidden);
  }
}

TEST(HardwarePresets, DeepSeekV3ActiveParametersAreItsDensePartPlusEightExperts) {
  const ModelPreset& m = *find_model_preset("deepseek-v3");
  const double dense = m.params - m.routed_expert_params;
  const double per_expert = m.routed_expert_params / (58.0 * m.routed_experts);
  EXPECT_NEAR((dense + 58.0 * m.experts_per_token * per_expert) / 1e9, 37.5, 0.1);  // model card: 37B
}

// vLLM 0.8.4's own KV block counts, as BLIS's defaults.yaml records them
// (total_kv_blocks, summed over the tp workers): the derivation matches them
// to within a block or two per worker.
TEST(HardwareDerivation, KvCapacityMatchesVllmsMeasuredBlockCounts) {
  struct Case {
    const char* model;
    std::uint32_t tp;
    double blis_total_blocks;
  };
  for (const Case& c : {Case{"llama-3.1-8b", 1, 29205}, Case{"llama-3.1-8b", 2, 132139},
                        Case{"llama-3.1-8b", 4, 559190}, Case{"llama-3.1-70b", 4, 128273},
                        Case{"llama-3.1-70b", 8, 728405}, Case{"qwen2.5-7b", 1, 67659},
                        Case{"qwen2.5-7b", 4, 1281766}}) {
    SCOPED_TRACE(std::string(c.model) + " tp " + std::to_string(c.tp));
    const HardwareDerivation d = derive_hardware(on(c.model, "h100", c.tp), 16);
    ASSERT_TRUE(d.ok()) << d.error;
    const double ours = static_cast<double>(d.cache_tokens) / 16 * c.tp;
    EXPECT_NEAR(ours, c.blis_total_blocks, 2.0 * c.tp);
  }
}

TEST(HardwareDerivation, Llama8BOnOneH100HoldsAbout467kTokensInWholeBlocks) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-8b"), 16);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.cache_tokens, 29205u * 16u);
  EXPECT_EQ(d.cache_tokens % 16, 0u);
  EXPECT_NE(field(d, "cluster.cache_tokens").formula.find("29,205 x 16 = 467,280 tokens"), std::string::npos)
      << field(d, "cluster.cache_tokens").formula;
  // Blocks of 1 keep the tokens the arithmetic gives.
  EXPECT_EQ(derive_hardware(on("llama-3.1-8b"), 1).cache_tokens, 467291u);
}

TEST(HardwareDerivation, PrefillRateIsMfuTimesPeakOverTwoFlopsPerActiveParameter) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-8b"), 16);
  EXPECT_DOUBLE_EQ(d.prefill_tokens_per_s, 0.5 * 989.5e12 / (2 * 8030261248.0));
  EXPECT_NEAR(d.prefill_tokens_per_s, 30805, 1);
  // Four GPUs, four times the FLOP/s.
  EXPECT_DOUBLE_EQ(derive_hardware(on("llama-3.1-70b", "h100", 4), 16).prefill_tokens_per_s,
                   0.5 * 4 * 989.5e12 / (2 * 70553706496.0));
}

TEST(HardwareDerivation, Fp8WeightsRunAtTheFp8PeakOnlyWhereTheGpuHasOne) {
  HardwareSettings h100 = on("llama-3.1-8b");
  h100.weight_dtype = "fp8";
  EXPECT_DOUBLE_EQ(derive_hardware(h100, 16).prefill_tokens_per_s, 0.5 * 1979e12 / (2 * 8030261248.0));
  HardwareSettings a100 = on("llama-3.1-8b", "a100");
  a100.weight_dtype = "fp8";  // A100 has no FP8 tensor cores: weights halve, FLOP/s do not
  const HardwareDerivation d = derive_hardware(a100, 16);
  EXPECT_DOUBLE_EQ(d.prefill_tokens_per_s, 0.5 * 312e12 / (2 * 8030261248.0));
  EXPECT_DOUBLE_EQ(d.weight_bytes, 8030261248.0);
}

TEST(HardwareDerivation, AttentionCostIsAttentionFlopsPerPairOverTheSameThroughput) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-8b"), 16);
  EXPECT_DOUBLE_EQ(d.costs.attention_ns_per_token_pair, 4.0 * 32 * 32 * 128 / (0.5 * 989.5e12) * 1e9);
  const HardwareDerivation mla = derive_hardware(on("deepseek-v3", "h200", 8), 16);
  ASSERT_TRUE(mla.ok()) << mla.error;
  EXPECT_DOUBLE_EQ(mla.costs.attention_ns_per_token_pair, 2.0 * 61 * 128 * (192 + 128) / (0.5 * 8 * 989.5e12) * 1e9);
}

TEST(HardwareDerivation, DecodeReadsEachGpusShareOfWeightsAndKvAtTheEffectiveBandwidth) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-70b", "h100", 4), 16);
  const double bandwidth = 0.72 * 3.35e12;
  EXPECT_DOUBLE_EQ(d.costs.weight_read_ms, 70553706496.0 * 2 / 4 / bandwidth * 1e3);
  EXPECT_DOUBLE_EQ(d.costs.kv_read_ns_per_token, 327680.0 / 4 / bandwidth * 1e9);
  EXPECT_DOUBLE_EQ(d.costs.overhead_ms, 0.5 + 80 * 0.020);
  EXPECT_DOUBLE_EQ(derive_hardware(on("llama-3.1-8b"), 16).costs.overhead_ms, 0.5);
  EXPECT_EQ(d.costs.expert_read_ms, 0);
}

TEST(HardwareDerivation, MoeReadsItsDensePartEveryStepAndItsExpertsByShare) {
  const HardwareDerivation d = derive_hardware(on("deepseek-v3", "b200", 8), 16);
  ASSERT_TRUE(d.ok()) << d.error;
  const ModelPreset& m = *d.model;
  const double bandwidth = 0.72 * 7.7e12;
  EXPECT_DOUBLE_EQ(d.costs.expert_read_ms, m.routed_expert_params / 8 / bandwidth * 1e3);
  EXPECT_DOUBLE_EQ(d.costs.weight_read_ms, (m.params - m.routed_expert_params) / 8 / bandwidth * 1e3);
  EXPECT_DOUBLE_EQ(d.costs.expert_share_per_token, 8.0 / 256.0);
}

TEST(HardwareDerivation, GqaKvIsShardedOverAtMostItsKvHeadsAndMlaIsReplicated) {
  // Qwen2.5-7B has 4 KV heads: at tp 8 each GPU holds a quarter, not an eighth.
  EXPECT_EQ(derive_hardware(on("qwen2.5-7b", "h100", 8), 16).kv_bytes_per_token_per_gpu, 57344.0 / 4);
  EXPECT_EQ(derive_hardware(on("qwen2.5-7b", "h100", 2), 16).kv_bytes_per_token_per_gpu, 57344.0 / 2);
  EXPECT_EQ(derive_hardware(on("deepseek-v3", "h200", 8), 16).kv_bytes_per_token_per_gpu, 70272.0);
}

TEST(HardwareDerivation, UnknownPresetsListTheAllowedNames) {
  const HardwareDerivation model = derive_hardware(on("gpt-5"), 16);
  EXPECT_EQ(model.error_field, "hardware.model");
  EXPECT_EQ(model.error,
            "unknown model \"gpt-5\"; allowed: none,llama-3.1-8b,llama-3.1-70b,qwen2.5-7b,qwen2.5-32b,deepseek-v3");
  const HardwareDerivation gpu = derive_hardware(on("llama-3.1-8b", "v100"), 16);
  EXPECT_EQ(gpu.error_field, "hardware.gpu");
  EXPECT_EQ(gpu.error, "unknown GPU \"v100\"; allowed: a100,h100,h200,b200");
}

TEST(HardwareDerivation, WeightsThatDoNotFitNameTheGpuTheTpAndTheNumbers) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-70b", "h100", 1), 16);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.error_field, "hardware.tp");
  EXPECT_EQ(d.error,
            "Llama-3.1-70B's weights (141.11 GB in bf16) need 141.11 GB per GPU at hardware.tp = 1, and "
            "hardware.gpu = h100 (H100-SXM 80GB) has 77.31 GB usable (80 GiB x hardware.memory_utilization 0.9), "
            "leaving no room for a 16-token KV block: use hardware.tp = 2 or more, or a GPU with more memory");
  const HardwareDerivation deepseek = derive_hardware(on("deepseek-v3", "h100", 8), 16);
  EXPECT_EQ(deepseek.error_field, "hardware.tp");
  EXPECT_NE(deepseek.error.find("83.88 GB per GPU at hardware.tp = 8"), std::string::npos) << deepseek.error;
  EXPECT_NE(deepseek.error.find("no tensor-parallel degree up to 8 of hardware.gpu = h100 holds it"),
            std::string::npos)
      << deepseek.error;
  EXPECT_TRUE(derive_hardware(on("llama-3.1-70b", "h100", 2), 16).ok());
  EXPECT_FALSE(derive_hardware(on("llama-3.1-70b", "h200", 1), 16).ok());  // 141.1 GB > 141 GiB x 0.9
  HardwareSettings fp8 = on("llama-3.1-70b", "h200", 1);
  fp8.weight_dtype = "fp8";
  EXPECT_TRUE(derive_hardware(fp8, 16).ok());
}

TEST(HardwareDerivation, EveryDerivedFieldShowsItsArithmetic) {
  for (const ModelPreset& m : model_presets()) {
    const HardwareDerivation d = derive_hardware(on(std::string(m.name), "b200", 8), 16);
    ASSERT_TRUE(d.ok()) << m.name << ": " << d.error;
    ASSERT_EQ(d.fields.size(), 8u);
    for (const DerivedField& f : d.fields) {
      EXPECT_FALSE(f.formula.empty()) << f.key;
      EXPECT_TRUE(std::isfinite(f.value)) << f.key;
    }
  }
}

TEST(HardwarePresets, EveryConstantHasASource) {
  for (const ModelPreset& m : model_presets()) EXPECT_FALSE(m.source.empty()) << m.name;
  for (const GpuPreset& g : gpu_presets()) EXPECT_FALSE(g.source.empty()) << g.name;
  EXPECT_FALSE(engine_constants().source.empty());
  EXPECT_EQ(gpu_presets().size(), 4u);
  EXPECT_EQ(model_presets().size(), 5u);
}

}  // namespace
}  // namespace prefixroute::hardware_test
