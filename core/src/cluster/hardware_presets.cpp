// The hardware presets: every constant of docs/MODEL.md's tables, each with
// its source. Models: config.json on Hugging Face (architecture) and the model
// card or the checkpoint's parameter count. GPUs: vendor datasheets, as the
// BLIS simulator's hardware catalogue records them
// (inference-sim/inference-sim : testdata/blis/catalog/hardware/*.yaml).
// docs/MODEL.md lists them with links; tests/cluster/hardware_test.cpp checks the
// dense models' parameter counts against their architecture and the KV bytes
// per token against the published figures.
#include <string>

#include "prefixroute/cluster/hardware.h"

namespace prefixroute {
namespace {

constexpr ModelPreset kModels[] = {
    {
        .name = "llama-3.1-8b",
        .label = "Llama-3.1-8B",
        // 8.03B: the checkpoint's safetensors total; follows from the config
        // below (checked in hardware_test).
        .params = 8030261248.0,
        .active_params = 8030261248.0,
        // meta-llama/Llama-3.1-8B config.json: num_hidden_layers 32,
        // num_attention_heads 32, num_key_value_heads 8, hidden_size 4096
        // (head_dim 4096 / 32 = 128), intermediate_size 14336, vocab 128256.
        .layers = 32,
        .heads = 32,
        .kv_heads = 8,
        .head_dim = 128,
        .native_weight_bytes = 2,  // torch_dtype bfloat16
        .hidden = 4096,
        .intermediate = 14336,
        .vocab = 128256,
        .qkv_bias = false,
        .source = "https://huggingface.co/meta-llama/Llama-3.1-8B (config.json; 8.03B params)",
    },
    {
        .name = "llama-3.1-70b",
        .label = "Llama-3.1-70B",
        .params = 70553706496.0,  // 70.6B, safetensors total; follows from the config
        .active_params = 70553706496.0,
        // meta-llama/Llama-3.1-70B config.json: 80 layers, 64 heads, 8 KV
        // heads, hidden 8192 (head_dim 128), intermediate 28672, vocab 128256.
        .layers = 80,
        .heads = 64,
        .kv_heads = 8,
        .head_dim = 128,
        .native_weight_bytes = 2,
        .hidden = 8192,
        .intermediate = 28672,
        .vocab = 128256,
        .qkv_bias = false,
        .source = "https://huggingface.co/meta-llama/Llama-3.1-70B (config.json; 70.6B params)",
    },
    {
        .name = "qwen2.5-7b",
        .label = "Qwen2.5-7B",
        .params = 7615616512.0,  // 7.61B (model card); follows from the config
        .active_params = 7615616512.0,
        // Qwen/Qwen2.5-7B config.json: 28 layers, 28 heads, 4 KV heads,
        // hidden 3584 (head_dim 128), intermediate 18944, vocab 152064,
        // biases on q/k/v, untied embeddings.
        .layers = 28,
        .heads = 28,
        .kv_heads = 4,
        .head_dim = 128,
        .native_weight_bytes = 2,
        .hidden = 3584,
        .intermediate = 18944,
        .vocab = 152064,
        .qkv_bias = true,
        .source = "https://huggingface.co/Qwen/Qwen2.5-7B (config.json; model card: 7.61B params, 28 layers, "
                  "28 Q / 4 KV heads)",
    },
    {
        .name = "qwen2.5-32b",
        .label = "Qwen2.5-32B",
        // 32.76B from the config (the safetensors total); the model card
        // rounds it to 32.5B.
        .params = 32763876352.0,
        .active_params = 32763876352.0,
        // Qwen/Qwen2.5-32B config.json: 64 layers, 40 heads, 8 KV heads,
        // hidden 5120 (head_dim 128), intermediate 27648, vocab 152064.
        .layers = 64,
        .heads = 40,
        .kv_heads = 8,
        .head_dim = 128,
        .native_weight_bytes = 2,
        .hidden = 5120,
        .intermediate = 27648,
        .vocab = 152064,
        .qkv_bias = true,
        .source = "https://huggingface.co/Qwen/Qwen2.5-32B (config.json; model card: 64 layers, 40 Q / 8 KV heads)",
    },
    {
        .name = "deepseek-v3",
        .label = "DeepSeek-V3",
        // Model card: 671B total parameters, 37B activated per token (the
        // checkpoint's 14B multi-token-prediction module is not served here).
        .params = 671e9,
        .active_params = 37e9,
        // deepseek-ai/DeepSeek-V3 config.json: 61 layers, 128 heads,
        // kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128,
        // v_head_dim 128.
        .layers = 61,
        .heads = 128,
        .kv_heads = 0,
        .head_dim = 0,
        .kv_lora_rank = 512,
        .rope_dim = 64,
        .qk_head_dim = 192,
        .v_head_dim = 128,
        // n_routed_experts 256, num_experts_per_tok 8; 58 MoE layers
        // (first_k_dense_replace 3), each routed expert a SwiGLU of
        // 3 x 7168 x 2048 (moe_intermediate_size): 58 x 256 x 44,040,192.
        .routed_experts = 256,
        .experts_per_token = 8,
        .routed_expert_params = 58.0 * 256.0 * 3.0 * 7168.0 * 2048.0,
        .native_weight_bytes = 1,  // released in FP8 (quantization_config fp8, 128x128 blocks)
        .hidden = 7168,
        .source = "https://huggingface.co/deepseek-ai/DeepSeek-V3 (config.json; model card: 671B total, 37B active)",
    },
};

constexpr GpuPreset kGpus[] = {
    // NVIDIA A100 datasheet (SXM4 80GB): BF16 312 TFLOPS dense, no FP8
    // tensor cores, 2,039 GB/s. BLIS catalog a100-sxm.yaml records the same
    // (MemoryGiB 80, TFlopsPeak 312, TFlopsFP8 0, BwPeakTBs 2.039).
    {"a100", "A100-SXM 80GB", 80, 312, 0, 2.039,
     "NVIDIA A100 datasheet; inference-sim/inference-sim testdata/blis/catalog/hardware/a100-sxm.yaml"},
    // NVIDIA H100 datasheet (SXM5): BF16 989.5 TFLOPS dense (1,979 with
    // sparsity), FP8 1,979 dense, 3.35 TB/s, 80 GB. BLIS h100.yaml: the same.
    {"h100", "H100-SXM 80GB", 80, 989.5, 1979, 3.35,
     "NVIDIA H100 datasheet; inference-sim/inference-sim testdata/blis/catalog/hardware/h100.yaml"},
    // NVIDIA H200 datasheet (SXM): the H100's GH100 die, so the same dense
    // BF16 989.5 / FP8 1,979 TFLOPS (the datasheet prints the sparse 1,979 /
    // 3,958); 141 GB HBM3e at 4.8 TB/s. Read as GiB like the other parts.
    {"h200", "H200-SXM 141GB", 141, 989.5, 1979, 4.8,
     "https://www.nvidia.com/en-us/data-center/h200/ (sparse figures halved)"},
    // B200 (HGX): dense BF16 2,250, FP8 4,500 TFLOPS, 7.7 TB/s, 180 GiB, as
    // BLIS b200.yaml records from NVIDIA's AISimulate system descriptor
    // (mem_capacity 193,273,528,320 bytes = 180 GiB).
    {"b200", "B200 180GB", 180, 2250, 4500, 7.7,
     "inference-sim/inference-sim testdata/blis/catalog/hardware/b200.yaml (NVIDIA AISimulate b200_sxm descriptor)"},
};

constexpr EngineConstants kEngine{
    // BLIS hardware_config.json: TOverheadMicros 500 (CPU scheduling and
    // launch cost of a step), allReduceLatency 20 us per layer under tensor
    // parallelism, BwEffConstant 0.72 (achieved / peak HBM bandwidth).
    .step_overhead_ms = 0.5,
    .allreduce_ms_per_layer = 0.020,
    // vLLM's --gpu-memory-utilization default.
    .default_memory_utilization = 0.9,
    // The default; BLIS uses 0.65 for prefill (mfuPrefill).
    .default_mfu = 0.5,
    .default_bandwidth_efficiency = 0.72,
    .source = "inference-sim/inference-sim hardware_config.json (TOverheadMicros, allReduceLatency, BwEffConstant); "
              "vLLM gpu_memory_utilization default 0.9",
};

std::string names_of(auto presets, const char* first) {
  std::string text = first;
  for (const auto& p : presets) {
    if (!text.empty()) text += ",";
    text += p.name;
  }
  return text;
}

}  // namespace

std::span<const ModelPreset> model_presets() { return kModels; }
std::span<const GpuPreset> gpu_presets() { return kGpus; }
const EngineConstants& engine_constants() { return kEngine; }

const ModelPreset* find_model_preset(std::string_view name) {
  for (const ModelPreset& m : kModels)
    if (m.name == name) return &m;
  return nullptr;
}

const GpuPreset* find_gpu_preset(std::string_view name) {
  for (const GpuPreset& g : kGpus)
    if (g.name == name) return &g;
  return nullptr;
}

const std::string& model_choices() {
  static const std::string choices = names_of(model_presets(), "none");
  return choices;
}

const std::string& gpu_choices() {
  static const std::string choices = names_of(gpu_presets(), "");
  return choices;
}

}  // namespace prefixroute
