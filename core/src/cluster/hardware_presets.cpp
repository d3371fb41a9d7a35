// The hardware presets: every constant of docs/design/model.md's tables, each with
// its source. Models: config.json on Hugging Face (architecture) and the model
// card or the checkpoint's parameter count. GPUs: vendor datasheets (dense
// tensor-core peaks: a datasheet's "with sparsity" figure halved), as the
// BLIS simulator's hardware catalogue records them where it has the part
// (inference-sim/inference-sim : testdata/blis/catalog/hardware/*.yaml), and
// the total memory CUDA reports, read off vLLM's start-up logs. The engine
// constants and the calibrated MFU come from vLLM's memory logs and from
// measured prefill speeds (docs/design/model.md, "Against published measurements").
// tests/cluster/hardware_test.cpp checks every parameter count against its
// architecture and the KV bytes per token against the published figures.
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
        .context_tokens = 131072,  // config.json max_position_embeddings 131072
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
        .context_tokens = 131072,  // config.json max_position_embeddings 131072
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
        .context_tokens = 131072,  // config.json max_position_embeddings 131072 (the base checkpoint)
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
        .context_tokens = 131072,  // config.json max_position_embeddings 131072 (the base checkpoint)
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
        .moe_intermediate = 2048,
        // Released in FP8 (quantization_config fp8, 128x128 blocks); the
        // embeddings and LM head are BF16, as in every FP8 checkpoint here.
        .native_weight_bytes = 1,
        .hidden = 7168,
        .vocab = 129280,  // config.json vocab_size; untied LM head
        .context_tokens = 163840,  // config.json max_position_embeddings 163840
        .source = "https://huggingface.co/deepseek-ai/DeepSeek-V3 (config.json; model card: 671B total, 37B active)",
    },
    {
        .name = "qwen3-32b",
        .label = "Qwen3-32B",
        // 32,762,123,264: follows from the config (checked in hardware_test);
        // the model card: 32.8B, 31.2B without the embeddings.
        .params = 32762123264.0,
        .active_params = 32762123264.0,
        // Qwen/Qwen3-32B config.json: num_hidden_layers 64,
        // num_attention_heads 64, num_key_value_heads 8, head_dim 128 (not
        // hidden / heads), hidden_size 5120, intermediate_size 25600,
        // vocab_size 151936, tie_word_embeddings false, a norm on each query
        // and key head, no QKV bias.
        .layers = 64,
        .heads = 64,
        .kv_heads = 8,
        .head_dim = 128,
        .native_weight_bytes = 2,  // torch_dtype bfloat16
        .hidden = 5120,
        .intermediate = 25600,
        .vocab = 151936,
        .qk_norm = true,
        .context_tokens = 40960,  // config.json max_position_embeddings 40960
        .source = "https://huggingface.co/Qwen/Qwen3-32B (config.json; model card: 32.8B params, 64 layers, "
                  "64 Q / 8 KV heads)",
    },
    {
        .name = "qwen3-30b-a3b",
        .label = "Qwen3-30B-A3B",
        // 30,532,122,624 in all, 3,353,032,704 active (model card: 30.5B,
        // 3.3B activated): both follow from the config (hardware_test).
        .params = 30532122624.0,
        .active_params = 3353032704.0,
        // Qwen/Qwen3-30B-A3B config.json: 48 layers, 32 heads, 4 KV heads,
        // head_dim 128, hidden 2048, vocab 151936, untied; every layer a
        // mixture of experts (decoder_sparse_step 1, no mlp_only_layers):
        // num_experts 128, num_experts_per_tok 8, moe_intermediate_size 768,
        // no shared expert; a norm on each query and key head.
        .layers = 48,
        .heads = 32,
        .kv_heads = 4,
        .head_dim = 128,
        .routed_experts = 128,
        .experts_per_token = 8,
        .routed_expert_params = 48.0 * 128.0 * 3.0 * 2048.0 * 768.0,
        .moe_intermediate = 768,
        .native_weight_bytes = 2,
        .hidden = 2048,
        .vocab = 151936,
        .qk_norm = true,
        .context_tokens = 40960,  // config.json max_position_embeddings 40960
        .source = "https://huggingface.co/Qwen/Qwen3-30B-A3B (config.json; model card: 30.5B total, 3.3B activated, "
                  "128 experts, 8 activated)",
    },
    {
        .name = "gpt-oss-120b",
        .label = "gpt-oss-120b",
        // 116,829,156,672 in all; 5,711,982,912 run per token, of which the
        // model card's "5.1B active" leaves out the input embedding
        // (0.58B, a lookup): both follow from the config (hardware_test).
        .params = 116829156672.0,
        .active_params = 5711982912.0,
        // openai/gpt-oss-120b config.json: num_hidden_layers 36,
        // num_attention_heads 64, num_key_value_heads 8, head_dim 64,
        // hidden_size 2880, vocab_size 201088, untied; layer_types alternate
        // sliding_attention (sliding_window 128) and full_attention, 18 each;
        // biases on q, k, v and o, one attention sink per head;
        // num_local_experts 128, experts_per_token 4, intermediate_size 2880
        // per expert (gate and up fused, each with a bias), no shared expert.
        // Routed experts: 36 x 128 x (2880 x 5760 + 5760 + 2880 x 2880 + 2880),
        // biases included.
        .layers = 36,
        .heads = 64,
        .kv_heads = 8,
        .head_dim = 64,
        .routed_experts = 128,
        .experts_per_token = 4,
        .routed_expert_params = 36.0 * 128.0 * (2880.0 * 5760.0 + 5760.0 + 2880.0 * 2880.0 + 2880.0),
        .moe_intermediate = 2880,
        // quantization_config mxfp4 for the routed experts (attention,
        // router, embeddings and LM head stay BF16): 4 bits and one 8-bit
        // scale per 32 values, 4.25 bits, a 65.2 GB checkpoint. vLLM's
        // Hopper kernels hold more: "Model loading took 64.38 GiB" on one
        // H100 (vllm-project/vllm#33155, v0.14.1, Triton MXFP4 backend;
        // 65.97 GiB with Marlin in #23278), which is 4.525 bits per expert
        // parameter beside the BF16 rest. The preset takes vLLM's footprint,
        // on every GPU (the experts' BF16 biases included at that rate).
        .native_weight_bytes = 2,
        .native_expert_weight_bytes = 4.525 / 8.0,
        .full_attention_layers = 18,
        .sliding_window = 128,
        .hidden = 2880,
        .vocab = 201088,
        .qkv_bias = true,
        .context_tokens = 131072,  // config.json max_position_embeddings 131072
        .source = "https://huggingface.co/openai/gpt-oss-120b (config.json; model card: 117B total, 5.1B active, "
                  "MXFP4 MoE weights)",
    },
    {
        .name = "qwen3-0.6b",
        .label = "Qwen3-0.6B",
        // 596,049,920: follows from the config; the model card: 0.6B, 0.44B
        // without the embeddings.
        .params = 596049920.0,
        .active_params = 596049920.0,
        // Qwen/Qwen3-0.6B config.json: 28 layers, 16 heads, 8 KV heads,
        // head_dim 128, hidden 1024, intermediate 3072, vocab 151936,
        // tie_word_embeddings true, a norm on each query and key head.
        .layers = 28,
        .heads = 16,
        .kv_heads = 8,
        .head_dim = 128,
        .native_weight_bytes = 2,
        .hidden = 1024,
        .intermediate = 3072,
        .vocab = 151936,
        .tied_embeddings = true,
        .qk_norm = true,
        .context_tokens = 40960,  // config.json max_position_embeddings 40960
        .source = "https://huggingface.co/Qwen/Qwen3-0.6B (config.json; model card: 0.6B params, 28 layers, "
                  "16 Q / 8 KV heads, tied embeddings)",
    },
};

// The MFU every GPU defaults to, from the prefill speeds measured on Hopper
// (Qwen3-32B on 2 x H100 and 2 x H200, one 8,192-token chunk;
// core/src/cluster/calibration.cpp): MFUs from 0.641 to 0.650 put the model
// within 15 % of each of them, and this is the middle. No measured prefill
// speed of an Ampere, Ada or Blackwell part was found; they take the same
// value until one is.
constexpr double kMeasuredMfu = 0.645;

// Total memory as CUDA reports it: vLLM's start-up line "total_gpu_memory
// (X GiB) x gpu_memory_utilization" (worker.py) or "Free memory on device
// (F/X GiB)" (gpu_worker.py), in public logs; the figure varies by a few
// hundredths of a GiB with the driver.
constexpr GpuPreset kGpus[] = {
    // NVIDIA A100 datasheet (SXM4 80GB): BF16 312 TFLOPS dense, no FP8
    // tensor cores, 2,039 GB/s. BLIS catalog a100-sxm.yaml records the same
    // (MemoryGiB 80, TFlopsPeak 312, TFlopsFP8 0, BwPeakTBs 2.039). CUDA:
    // total_memory 85,056,798,720 B = 79.21 GiB for an A100-SXM4-80GB.
    {"a100", "A100-SXM 80GB", 80, 79.21, 312, 0, 2.039, kMeasuredMfu, "Ampere",
     "NVIDIA A100 datasheet; inference-sim/inference-sim testdata/blis/catalog/hardware/a100-sxm.yaml"},
    // NVIDIA H100 datasheet (SXM5): BF16 989.5 TFLOPS dense (1,979 with
    // sparsity), FP8 1,979 dense, 3.35 TB/s, 80 GB. BLIS h100.yaml: the same.
    // CUDA: 79.19 GiB (vLLM logs on H100-80GB read 79.11 to 79.25).
    {"h100", "H100-SXM 80GB", 80, 79.19, 989.5, 1979, 3.35, kMeasuredMfu, "Hopper",
     "NVIDIA H100 datasheet; inference-sim/inference-sim testdata/blis/catalog/hardware/h100.yaml"},
    // NVIDIA H200 datasheet (SXM): the H100's GH100 die, so the same dense
    // BF16 989.5 / FP8 1,979 TFLOPS (the datasheet prints the sparse 1,979 /
    // 3,958); 141 GB HBM3e at 4.8 TB/s. CUDA: 139.81 GiB (a vLLM log).
    {"h200", "H200-SXM 141GB", 141, 139.81, 989.5, 1979, 4.8, kMeasuredMfu, "Hopper",
     "https://www.nvidia.com/en-us/data-center/h200/ (sparse figures halved)"},
    // B200 (HGX): dense BF16 2,250, FP8 4,500 TFLOPS, 7.7 TB/s, 180 GiB, as
    // BLIS b200.yaml records from NVIDIA's AISimulate system descriptor
    // (mem_capacity 193,273,528,320 bytes = 180 GiB). CUDA: 178.35 GiB
    // (vLLM's "Free memory on device (.../178.35 GiB)" on B200 hosts).
    {"b200", "B200 180GB", 180, 178.35, 2250, 4500, 7.7, kMeasuredMfu, "Blackwell",
     "inference-sim/inference-sim testdata/blis/catalog/hardware/b200.yaml (NVIDIA AISimulate b200_sxm descriptor)"},
    // NVIDIA A100 datasheet (SXM4 40GB): BF16 312 TFLOPS dense, 1,555 GB/s,
    // 40 GB HBM2. CUDA: 39.50 GiB (vLLM log on one A100 40GB; others read
    // 39.39 to 39.56).
    {"a100-40gb", "A100-SXM 40GB", 40, 39.50, 312, 0, 1.555, kMeasuredMfu, "Ampere",
     "NVIDIA A100 datasheet (40GB: 1,555 GB/s HBM2)"},
    // AWS's A10G (g5 instances; NVIDIA publishes no datasheet): 24 GB GDDR6
    // at 600 GB/s, like the A10, whose tensor cores it runs at lower clocks:
    // 70 TFLOPS dense FP16/BF16 tensor (the A10: 125), no FP8. CUDA: 22.18 GiB,
    // the total PyTorch reports for an A10 (the same 24 GB of GDDR6 with ECC).
    {"a10g", "A10G 24GB", 24, 22.18, 70, 0, 0.6, kMeasuredMfu, "Ampere",
     "https://www.baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference/ (A10 vs A10G spec table)"},
    // NVIDIA L4 datasheet: 24 GB GDDR6, 300 GB/s; FP8 485 and BF16 242
    // TFLOPS with sparsity, so 242.5 and 121 dense. CUDA: 22.18 GiB taken
    // from the A10 (nvidia-smi shows 23,034 MiB for an L4, 23,028 for an A10).
    {"l4", "L4 24GB", 24, 22.18, 121, 242.5, 0.3, kMeasuredMfu, "Ada",
     "NVIDIA L4 datasheet (sparse figures halved)"},
    // NVIDIA L40S datasheet: 48 GB GDDR6 with ECC, 864 GB/s; BF16 362.05,
    // FP8 733 TFLOPS dense (733 / 1,466 with sparsity). CUDA: 44.31 GiB (a
    // vLLM log on an L40S; others read up to 44.42).
    {"l40s", "L40S 48GB", 48, 44.31, 362.05, 733, 0.864, kMeasuredMfu, "Ada",
     "NVIDIA L40S datasheet"},
    // NVIDIA L20 (sold in China; no public NVIDIA datasheet): the L40S's
    // AD102 with 92 SMs and capped clocks, 48 GB GDDR6 at 864 GB/s; FP16/BF16
    // 119.5 and FP8 239 TFLOPS dense, as the product brief is reported
    // (about a third of the L40S). CUDA: the L40S's 44.31 GiB (the same
    // memory).
    {"l20", "L20 48GB", 48, 44.31, 119.5, 239, 0.864, kMeasuredMfu, "Ada",
     "NVIDIA L20 product brief as reported by resellers (not an NVIDIA page)"},
    // NVIDIA H20 (sold in China): Hopper with 96 GB HBM3 at 4.0 TB/s and
    // compute capped at 148 TFLOPS dense BF16, 296 FP8. CUDA: 95.01 GiB (a
    // vLLM log on a 96 GB part).
    {"h20", "H20 96GB", 96, 95.01, 148, 296, 4.0, kMeasuredMfu, "Hopper",
     "NVIDIA HGX H20 specifications as reported at its announcement (96 GB HBM3, 4.0 TB/s, FP8 296, BF16 148)"},
};

constexpr EngineConstants kEngine{
    // BLIS hardware_config.json: TOverheadMicros 500 (CPU scheduling and
    // launch cost of a step), allReduceLatency 20 us per layer under tensor
    // parallelism, BwEffConstant 0.72 (achieved / peak HBM bandwidth).
    .step_overhead_ms = 0.5,
    .allreduce_ms_per_layer = 0.020,
    // vLLM's --gpu-memory-utilization default.
    .default_memory_utilization = 0.9,
    .default_bandwidth_efficiency = 0.72,
    // vLLM's own account of the memory it keeps from the KV cache, for
    // Llama-3.1-8B on one H100 (its profile run of 8,192 tokens): activation
    // peak 1.19 to 1.26 GiB, non-torch 0.07 to 0.65 GiB in the published
    // logs; 1.25 + 0.3.
    .runtime_reserve_gib = 1.55,
    // vllm-project/vllm#10511 (the memory-profiling overhaul): the same model
    // at tp 2 shows non-torch memory 3.58 GiB against 1.79 at tp 1.
    .tp_reserve_gib = 1.8,
    // gpt-oss-120b on one H100 prefills 39,065 tokens/s (llm-d's calibration
    // matrix; 38,980 and 39,364 in two reruns): with the dense part at the
    // H100's MFU, its experts' matrix multiplies run at this share of it.
    .moe_expert_efficiency = 0.6,
    .source = "inference-sim/inference-sim hardware_config.json (TOverheadMicros, allReduceLatency, BwEffConstant); "
              "vLLM gpu_memory_utilization default 0.9; vLLM start-up memory logs and vllm-project/vllm#10511 "
              "(runtime reserve); llm-d guides/recipes/router/calibration/configuration-matrix.md (expert "
              "efficiency)",
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
