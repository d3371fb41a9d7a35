// Hardware presets and what they derive (cluster/hardware.h): the published KV
// sizes, parameter counts that follow from each model's architecture, vLLM's
// memory accounting, the formulas, the physical bounds, and the refusals.
#include "prefixroute/cluster/hardware.h"
#include "prefixroute/cluster/step_model.h"

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
  EXPECT_EQ(kv_bytes("qwen3-32b"), 262144);      // 256 KiB: 64 x 8 x 128 x 2 x 2
  EXPECT_EQ(kv_bytes("qwen3-30b-a3b"), 98304);   // 96 KiB
  EXPECT_EQ(kv_bytes("qwen3-0.6b"), 114688);     // 112 KiB
  EXPECT_EQ(kv_bytes("gpt-oss-120b"), 73728);    // 72 KiB: every one of the 36 layers holds KV
  EXPECT_EQ(kv_bytes("deepseek-v3"), 70272);     // MLA: 61 x (512 + 64) x 2
  EXPECT_EQ(kv_bytes("deepseek-v3", "fp8"), 35136);
  EXPECT_EQ(kv_bytes("llama-3.1-8b", "fp8"), 65536);
}

// params = embeddings (LM head too when untied) + layers x (q, k, v, o (+
// biases), per-head q/k norms, SwiGLU or routed experts + router, 2 norms)
// + final norm.
TEST(HardwarePresets, ParameterCountsFollowFromTheirArchitecture) {
  for (const ModelPreset& m : model_presets()) {
    if (m.mla()) continue;  // DeepSeek-V3: checked against its card below
    SCOPED_TRACE(std::string(m.name));
    const double d = m.hidden, q = static_cast<double>(m.heads) * m.head_dim,
                 kv = static_cast<double>(m.kv_heads) * m.head_dim;
    double attention = d * q + 2 * d * kv + q * d + (m.qk_norm ? 2.0 * m.head_dim : 0);
    if (m.qkv_bias) attention += q + 2 * kv;
    double mlp = 3 * d * m.intermediate;
    if (m.routed_experts > 0) {
      mlp = d * m.routed_experts + m.routed_expert_params / m.layers;  // router + experts
      EXPECT_EQ(m.routed_expert_params,
                static_cast<double>(m.layers) * m.routed_experts * 3 * d * m.moe_intermediate +
                    (m.name == "gpt-oss-120b" ? 36.0 * 128 * (2 * 2880 + 2880) : 0.0));  // gpt-oss: expert biases
    }
    if (m.name == "gpt-oss-120b") attention += d + m.heads + m.routed_experts;  // o bias, sinks, router bias
    const double layer = attention + mlp + 2 * d;
    EXPECT_EQ(m.layers * layer + m.embedding_params() + d, m.params);
    if (m.routed_experts == 0) {
      EXPECT_EQ(m.active_params, m.params);
    }
  }
  // The model cards' rounded totals.
  EXPECT_NEAR(find_model_preset("qwen3-32b")->params / 1e9, 32.8, 0.05);
  EXPECT_NEAR(find_model_preset("qwen3-0.6b")->params / 1e9, 0.6, 0.01);
  EXPECT_NEAR(find_model_preset("qwen3-30b-a3b")->params / 1e9, 30.5, 0.05);
  EXPECT_NEAR(find_model_preset("gpt-oss-120b")->params / 1e9, 116.8, 0.05);
}

// A token runs through everything but the routed experts it does not select.
TEST(HardwarePresets, ActiveParametersAreTheDensePartPlusTheSelectedExperts) {
  for (const ModelPreset& m : model_presets()) {
    if (m.routed_experts == 0 || m.mla()) continue;  // DeepSeek-V3 keeps its card's rounded figures (below)
    SCOPED_TRACE(std::string(m.name));
    const double unselected = m.routed_expert_params * (1 - static_cast<double>(m.experts_per_token) / m.routed_experts);
    EXPECT_NEAR(m.active_params, m.params - unselected, 1e-6 * m.params);
  }
  EXPECT_NEAR(find_model_preset("qwen3-30b-a3b")->active_params / 1e9, 3.35, 0.01);  // card: 3.3B
  // gpt-oss's card counts 5.1B: without the input embedding, a lookup.
  const ModelPreset& oss = *find_model_preset("gpt-oss-120b");
  EXPECT_NEAR((oss.active_params - static_cast<double>(oss.vocab) * oss.hidden) / 1e9, 5.13, 0.01);
}

TEST(HardwarePresets, DeepSeekV3ActiveParametersAreItsDensePartPlusEightExperts) {
  const ModelPreset& m = *find_model_preset("deepseek-v3");
  const double dense = m.params - m.routed_expert_params;
  const double per_expert = m.routed_expert_params / (58.0 * m.routed_experts);
  EXPECT_NEAR((dense + 58.0 * m.experts_per_token * per_expert) / 1e9, 37.5, 0.1);  // model card: 37B
}

// vLLM's accounting (gpu_worker.py determine_available_memory): CUDA-visible
// memory x utilisation, less the weights and the runtime reserve (profile
// run's activation peak, non-torch memory), in whole blocks.
TEST(HardwareDerivation, KvCapacityIsRequestedMemoryLessWeightsAndReserveInWholeBlocks) {
  const double gib = 1073741824.0;
  const double free = 79.19 * gib * 0.9 - 8030261248.0 * 2 - 1.55 * gib;
  const auto tokens = static_cast<std::uint64_t>(free / 131072);
  const HardwareDerivation d = derive_hardware(on("llama-3.1-8b"), 16);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.cache_tokens, tokens / 16 * 16);
  EXPECT_EQ(d.cache_tokens, 448608u);
  EXPECT_NE(field(d, "cluster.cache_tokens").formula.find("28,038 x 16 = 448,608 tokens"), std::string::npos)
      << field(d, "cluster.cache_tokens").formula;
  EXPECT_EQ(derive_hardware(on("llama-3.1-8b"), 1).cache_tokens, tokens);  // blocks of 1 keep every token
  // Tensor parallelism adds the all-reduce buffers to each GPU's reserve.
  const HardwareDerivation tp2 = derive_hardware(on("llama-3.1-8b", "h100", 2), 1);
  EXPECT_DOUBLE_EQ(tp2.reserve_bytes_per_gpu, (1.55 + 1.8) * gib);
  EXPECT_EQ(tp2.cache_tokens,
            static_cast<std::uint64_t>((79.19 * gib * 0.9 - 8030261248.0 - 3.35 * gib) / 65536));
}

// The capacities published servers report (cluster/calibration.h), pinned:
// Qwen3-32B on 2 x H100 holds 307,328 tokens per pod (llm-d's 73-capacity
// report), Qwen3-0.6B on one L40S 350,304 (the llm-d playbook's vLLM log).
TEST(HardwareDerivation, PublishedServerCapacitiesAreMetWithin10Percent) {
  const HardwareDerivation qwen32 = derive_hardware(on("qwen3-32b", "h100", 2), 16);
  ASSERT_TRUE(qwen32.ok()) << qwen32.error;
  EXPECT_EQ(qwen32.cache_tokens, 306448u);
  EXPECT_NEAR(static_cast<double>(qwen32.cache_tokens) / 307328, 1, 0.10);
  const HardwareDerivation qwen06 = derive_hardware(on("qwen3-0.6b", "l40s", 1), 16);
  ASSERT_TRUE(qwen06.ok()) << qwen06.error;
  EXPECT_EQ(qwen06.cache_tokens, 348448u);
  EXPECT_NEAR(static_cast<double>(qwen06.cache_tokens) / 350304, 1, 0.10);
}

TEST(HardwareDerivation, PrefillRateIsMfuTimesPeakOverTwoFlopsPerMultipliedParameter) {
  // The input embedding is a lookup: 2 FLOP per parameter of the rest.
  const double embedding = 128256.0 * 4096;
  const HardwareDerivation d = derive_hardware(on("llama-3.1-8b"), 16);
  EXPECT_DOUBLE_EQ(d.mfu, 0.645);
  EXPECT_NEAR(d.prefill_tokens_per_s, 0.645 * 989.5e12 / (2 * (8030261248.0 - embedding)), 1e-6);
  EXPECT_NEAR(d.prefill_tokens_per_s, 42521, 1);
  // Four GPUs, four times the FLOP/s.
  EXPECT_NEAR(derive_hardware(on("llama-3.1-70b", "h100", 4), 16).prefill_tokens_per_s,
              0.645 * 4 * 989.5e12 / (2 * (70553706496.0 - 128256.0 * 8192)), 1e-6);
  // A given MFU replaces the GPU's.
  HardwareSettings half = on("llama-3.1-8b");
  half.mfu = 0.5;
  EXPECT_NEAR(derive_hardware(half, 16).prefill_tokens_per_s, 0.5 * 989.5e12 / (2 * (8030261248.0 - embedding)), 1e-6);
}

// RedHatAI's Llama-3.1-8B FP8 checkpoint: FP8 linear layers, BF16 embeddings
// and LM head (9.08 GB), with an FP8 KV cache.
TEST(HardwareDerivation, Fp8WeightsKeepBf16EmbeddingsAndRunAtTheFp8PeakOnlyWhereTheGpuHasOne) {
  const double embedding = 128256.0 * 4096;
  const double linear = 8030261248.0 - 2 * embedding;
  HardwareSettings l4 = on("llama-3.1-8b", "l4");
  l4.weight_dtype = "fp8";
  l4.kv_dtype = "fp8";
  const HardwareDerivation d = derive_hardware(l4, 16);
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_DOUBLE_EQ(d.weight_bytes, linear + 2 * embedding * 2);
  EXPECT_NEAR(d.weight_bytes / 1e9, 9.08, 0.01);
  EXPECT_EQ(d.kv_bytes_per_token, 65536);
  EXPECT_NEAR(d.prefill_tokens_per_s, 1 / (2 * linear / (0.645 * 242.5e12) + 2 * embedding / (0.645 * 121e12)), 1e-6);
  HardwareSettings a100 = on("llama-3.1-8b", "a100");
  a100.weight_dtype = "fp8";  // A100 has no FP8 tensor cores: weights halve, FLOP/s do not
  const HardwareDerivation w8a16 = derive_hardware(a100, 16);
  EXPECT_NEAR(w8a16.prefill_tokens_per_s, 0.645 * 312e12 / (2 * (8030261248.0 - embedding)), 1e-6);
  EXPECT_DOUBLE_EQ(w8a16.weight_bytes, d.weight_bytes);
}

TEST(HardwareDerivation, AttentionCostIsAttentionFlopsPerPairOverTheSameThroughput) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-8b"), 16);
  EXPECT_DOUBLE_EQ(d.costs.attention_ns_per_token_pair, 4.0 * 32 * 32 * 128 / (0.645 * 989.5e12) * 1e9);
  const HardwareDerivation mla = derive_hardware(on("deepseek-v3", "h200", 8), 16);
  ASSERT_TRUE(mla.ok()) << mla.error;
  EXPECT_DOUBLE_EQ(mla.costs.attention_ns_per_token_pair,
                   2.0 * 61 * 128 * (192 + 128) / (0.645 * 8 * 989.5e12) * 1e9);
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
  const double embedding = 2.0 * 129280 * 7168;
  EXPECT_DOUBLE_EQ(d.costs.expert_read_ms, m.routed_expert_params / 8 / bandwidth * 1e3);
  EXPECT_DOUBLE_EQ(d.costs.weight_read_ms,
                   ((m.params - m.routed_expert_params - embedding) + embedding * 2) / 8 / bandwidth * 1e3);
  EXPECT_DOUBLE_EQ(d.costs.expert_share_per_token, 8.0 / 256.0);
}

// gpt-oss-120b as far as the step model represents it: its experts at
// vLLM's MXFP4 footprint, its 18 sliding-window layers holding KV but
// neither read at length nor attending beyond 128 tokens, its experts'
// multiplies at moe_expert_efficiency.
TEST(HardwareDerivation, GptOssHoldsMxfp4ExpertsAndReadsOnlyItsFullAttentionLayers) {
  const HardwareDerivation d = derive_hardware(on("gpt-oss-120b", "h100", 1), 16);
  ASSERT_TRUE(d.ok()) << d.error;
  EXPECT_NEAR(d.weight_bytes / 1073741824.0, 64.38, 0.01);  // vLLM: "Model loading took 64.38 GiB"
  EXPECT_EQ(d.kv_bytes_per_token, 73728);                      // the cache: 36 layers
  EXPECT_EQ(d.kv_read_bytes_per_token_per_gpu, 73728.0 / 2);   // a step reads 18
  EXPECT_DOUBLE_EQ(d.costs.attention_ns_per_token_pair, 4.0 * 18 * 64 * 64 / (0.645 * 989.5e12) * 1e9);
  const ModelPreset& m = *d.model;
  const double selected = m.routed_expert_params * 4 / 128;
  const double dense = m.active_params - selected - m.embedding_params();
  const double lm_head = 201088.0 * 2880;
  EXPECT_NEAR(d.prefill_tokens_per_s,
              1 / (2 * (dense + lm_head) / (0.645 * 989.5e12) + 2 * selected / (0.6 * 0.645 * 989.5e12)), 1e-6);
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
            "unknown model \"gpt-5\"; allowed: none,llama-3.1-8b,llama-3.1-70b,qwen2.5-7b,qwen2.5-32b,deepseek-v3,"
            "qwen3-32b,qwen3-30b-a3b,gpt-oss-120b,qwen3-0.6b");
  const HardwareDerivation gpu = derive_hardware(on("llama-3.1-8b", "v100"), 16);
  EXPECT_EQ(gpu.error_field, "hardware.gpu");
  EXPECT_EQ(gpu.error, "unknown GPU \"v100\"; allowed: a100,h100,h200,b200,a100-40gb,a10g,l4,l40s,l20,h20");
}

TEST(HardwareDerivation, WeightsThatDoNotFitNameTheGpuTheTpAndTheNumbers) {
  const HardwareDerivation d = derive_hardware(on("llama-3.1-70b", "h100", 1), 16);
  EXPECT_FALSE(d.ok());
  EXPECT_EQ(d.error_field, "hardware.tp");
  EXPECT_EQ(d.error,
            "Llama-3.1-70B's weights (141.11 GB in bf16) need 141.11 GB per GPU at hardware.tp = 1, and "
            "hardware.gpu = h100 (H100-SXM 80GB) has 76.53 GB usable (79.19 GiB x hardware.memory_utilization 0.9) "
            "less 1.66 GB kept for the engine's runtime, leaving no room for a 16-token KV block: use "
            "hardware.tp = 2 or more, or a GPU with more memory");
  const HardwareDerivation deepseek = derive_hardware(on("deepseek-v3", "h100", 8), 16);
  EXPECT_EQ(deepseek.error_field, "hardware.tp");
  EXPECT_NE(deepseek.error.find("(672.85 GB in fp8, embeddings in bf16) need 84.11 GB per GPU at hardware.tp = 8"),
            std::string::npos)
      << deepseek.error;
  EXPECT_NE(deepseek.error.find("no tensor-parallel degree up to 8 of hardware.gpu = h100 holds it"),
            std::string::npos)
      << deepseek.error;
  EXPECT_TRUE(derive_hardware(on("llama-3.1-70b", "h100", 2), 16).ok());
  EXPECT_FALSE(derive_hardware(on("llama-3.1-70b", "h200", 1), 16).ok());  // 141.1 GB > 139.81 GiB x 0.9
  HardwareSettings fp8 = on("llama-3.1-70b", "h200", 1);
  fp8.weight_dtype = "fp8";
  EXPECT_TRUE(derive_hardware(fp8, 16).ok());
  EXPECT_FALSE(derive_hardware(on("gpt-oss-120b", "l40s", 1), 16).ok());
  EXPECT_TRUE(derive_hardware(on("gpt-oss-120b", "h100", 1), 16).ok());
}

TEST(HardwareDerivation, EveryDerivedFieldShowsItsArithmetic) {
  for (const ModelPreset& m : model_presets()) {
    const HardwareDerivation d = derive_hardware(on(std::string(m.name), "b200", 8), 16);
    ASSERT_TRUE(d.ok()) << m.name << ": " << d.error;
    ASSERT_EQ(d.fields.size(), 9u);
    for (const DerivedField& f : d.fields) {
      EXPECT_FALSE(f.formula.empty()) << f.key;
      EXPECT_TRUE(std::isfinite(f.value)) << f.key;
    }
  }
}

// No preset may beat the hardware: on every model, GPU and tp that run, the
// prefill rate stays under tp x the dense peak the weights use / (2 FLOP x
// active parameters), a whole 8,192-token step too, and a decode step takes
// at least the time to read its weights and KV at the datasheet's bandwidth.
TEST(HardwareDerivation, NoPresetExceedsThePhysicalPeaks) {
  int checked = 0;
  for (const ModelPreset& m : model_presets())
    for (const GpuPreset& g : gpu_presets())
      for (const std::uint32_t tp : {1u, 2u, 4u, 8u})
        for (const char* weights : {"native", "fp8"}) {
          HardwareSettings s = on(std::string(m.name), std::string(g.name), tp);
          s.weight_dtype = weights;
          const HardwareDerivation d = derive_hardware(s, 16);
          if (!d.ok()) continue;
          SCOPED_TRACE(std::string(m.name) + " on " + std::to_string(tp) + " x " + std::string(g.name) + " " + weights);
          ++checked;
          const bool fp8 = std::string(weights) == "fp8" || m.native_weight_bytes == 1;
          const double peak = tp * (fp8 && g.fp8_tflops > 0 ? g.fp8_tflops : g.bf16_tflops) * 1e12;
          const double ceiling = peak / (2 * m.active_params);
          EXPECT_LE(d.prefill_tokens_per_s, ceiling);
          const StepModel model{PrefillModel{d.prefill_tokens_per_s}, d.costs};
          StepLoad chunk;
          chunk.add(8192, 0);
          EXPECT_LE(8192 / (static_cast<double>(model.step_ticks(chunk)) / 1e9), ceiling);
          const double hbm = g.hbm_tb_per_s * 1e12;
          for (const std::uint64_t batch : {1u, 32u}) {
            StepLoad decode;
            for (std::uint64_t i = 0; i < batch; ++i) decode.add(1, 1024);
            const double experts_read =
                m.routed_experts > 0
                    ? 1 - std::pow(1 - static_cast<double>(m.experts_per_token) / m.routed_experts, static_cast<double>(batch))
                    : 0.0;
            const double bytes = (d.weight_bytes - d.expert_weight_bytes + d.expert_weight_bytes * experts_read) / tp +
                                 d.kv_read_bytes_per_token_per_gpu * 1025.0 * static_cast<double>(batch);
            EXPECT_GE(static_cast<double>(model.step_ticks(decode)), bytes / hbm * 1e9 * (1 - 1e-9)) << batch;
          }
        }
  EXPECT_GT(checked, 100);
}

TEST(HardwarePresets, EveryConstantHasASource) {
  for (const ModelPreset& m : model_presets()) EXPECT_FALSE(m.source.empty()) << m.name;
  for (const GpuPreset& g : gpu_presets()) {
    EXPECT_FALSE(g.source.empty()) << g.name;
    EXPECT_LT(g.cuda_memory_gib, g.memory_gib) << g.name;  // CUDA shows less than the datasheet
    EXPECT_GT(g.cuda_memory_gib, 0.9 * g.memory_gib) << g.name;
  }
  EXPECT_FALSE(engine_constants().source.empty());
  EXPECT_EQ(gpu_presets().size(), 10u);
  EXPECT_EQ(model_presets().size(), 9u);
}

}  // namespace
}  // namespace prefixroute::hardware_test
