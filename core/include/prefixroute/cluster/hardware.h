// Hardware: model and GPU presets, and what they imply for one replica.
//
// A replica serves one model on `tp` GPUs of one kind (tensor parallelism:
// every GPU holds 1/tp of the weights and its share of the KV heads). From
// the presets (core/src/cluster/hardware_presets.cpp: every constant with its
// source) and the efficiencies (hardware.memory_utilization, .mfu,
// .bandwidth_efficiency, and the KV and weight data types), derive_hardware
// computes the raw cluster fields a user would otherwise have to guess:
//
//   weights                embeddings and LM head in BF16; the other layers
//                          at the weight type (a checkpoint's own, per part:
//                          gpt-oss keeps its routed experts in MXFP4)
//   KV bytes/token         GQA: 2 x layers x kv_heads x head_dim x kv bytes
//                          MLA: layers x (kv_lora_rank + rope_dim) x kv bytes
//   per GPU                / min(tp, kv_heads)  (MLA: kv_heads = 1, so every
//                          GPU keeps the whole latent KV, as vLLM and SGLang
//                          do without data-parallel attention)
//   cluster.cache_tokens   vLLM's accounting (gpu_worker.py
//                          determine_available_memory, kv_cache_utils.py):
//                          (CUDA-visible memory x utilisation - weights / tp
//                           - runtime reserve) / KV bytes per token per GPU,
//                          rounded down to whole blocks of cluster.kv_block_tokens;
//                          the reserve stands for the profile run's activation
//                          peak, non-torch memory and CUDA graphs, plus the
//                          all-reduce buffers when tp > 1
//   hardware.mfu           the GPU's calibrated default unless given
//   cluster.prefill_tokens_per_s   R: one token's matrix multiplies at
//                          mfu x tp x peak FLOP/s (FP8 peak for FP8 layers on
//                          GPUs with FP8 tensor cores, else BF16; the LM head
//                          in BF16; routed experts at moe_expert_efficiency x
//                          mfu); 2 FLOP per multiplied parameter, the input
//                          embedding (a lookup) excluded
//   cluster.attention_ns_per_token_pair   attention FLOPs per (query, key)
//                          pair of the full-attention layers / (mfu x tp x
//                          BF16 peak); GQA: 4 x layers x heads x head_dim,
//                          MLA: 2 x layers x heads x (qk_head_dim + v_head_dim)
//   cluster.weight_read_ms weights every step reads (dense part; all of a
//                          dense model) / tp / (bandwidth_efficiency x HBM BW)
//   cluster.expert_read_ms all routed experts / tp / (efficiency x HBM BW)
//   cluster.expert_share_per_token   experts per token / routed experts
//   cluster.kv_read_ns_per_token     KV bytes per token per GPU of the
//                          full-attention layers / (efficiency x HBM BW)
//   cluster.step_overhead_ms  0.5 ms (+ 20 us per layer of all-reduce when tp > 1)
//
// Every derived value applies only where its raw field was not given (see
// Scenario::given); hardware_summary shows each with its arithmetic and says
// which value is in force. A model whose weights do not fit the GPUs at that
// tp is an error naming hardware.gpu and hardware.tp with the numbers.
//
// Cost: derive_hardware is O(1); nothing here runs in the simulation loop.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/cluster/step_model.h"

namespace prefixroute {

/// A model's architecture, as its config.json and model card state it.
/// Invariants: params counts every weight held in memory (an embedding tied
/// to the LM head once); active_params = params - routed experts x (1 - k/E).
struct ModelPreset {
  std::string_view name;   ///< as hardware.model takes it, e.g. "llama-3.1-8b"
  std::string_view label;  ///< e.g. "Llama-3.1-8B"
  double params;           ///< all parameters (weights held in memory)
  double active_params;    ///< parameters one token runs through (= params when dense)
  std::uint32_t layers;
  std::uint32_t heads;      ///< query heads
  std::uint32_t kv_heads;   ///< KV heads (GQA); 0 for MLA
  std::uint32_t head_dim;   ///< GQA head dimension
  // Multi-head latent attention (DeepSeek); 0 otherwise.
  std::uint32_t kv_lora_rank = 0;
  std::uint32_t rope_dim = 0;     ///< qk_rope_head_dim
  std::uint32_t qk_head_dim = 0;  ///< qk_nope_head_dim + qk_rope_head_dim
  std::uint32_t v_head_dim = 0;
  // Mixture of experts; 0 for dense models.
  std::uint32_t routed_experts = 0;
  std::uint32_t experts_per_token = 0;
  double routed_expert_params = 0;  ///< every routed expert of every layer
  std::uint32_t moe_intermediate = 0;  ///< one expert's SwiGLU width (for checking the counts)
  double native_weight_bytes = 2;   ///< bytes per parameter of the released checkpoint (outside the embeddings)
  /// Bytes per routed-expert parameter in GPU memory with the native weights;
  /// 0 = native_weight_bytes (gpt-oss: MXFP4 as vLLM holds it).
  double native_expert_weight_bytes = 0;
  /// Layers attending to every earlier token; 0 = all layers. The others
  /// attend to a window of sliding_window tokens.
  std::uint32_t full_attention_layers = 0;
  std::uint32_t sliding_window = 0;
  // For the embeddings' size and for checking `params` against the architecture.
  std::uint32_t hidden = 0;
  std::uint32_t intermediate = 0;
  std::uint32_t vocab = 0;
  bool tied_embeddings = false;  ///< the LM head reuses the input embedding
  bool qkv_bias = false;
  bool qk_norm = false;          ///< a norm over each query and key head (Qwen3)
  /// config.json's max_position_embeddings: vLLM's default max_model_len,
  /// the longest request the engine must hold to start (tp_choice.h).
  std::uint32_t context_tokens = 0;
  std::string_view source;  ///< where the numbers come from

  bool mla() const { return kv_lora_rank > 0; }
  /// Input embedding and LM head: vocab x hidden, once when tied.
  double embedding_params() const {
    return static_cast<double>(vocab) * hidden * (tied_embeddings ? 1.0 : 2.0);
  }
  std::uint32_t attention_layers() const { return full_attention_layers > 0 ? full_attention_layers : layers; }
};

/// A GPU's datasheet figures, the memory CUDA reports, and the calibrated MFU.
struct GpuPreset {
  std::string_view name;   ///< as hardware.gpu takes it, e.g. "h100"
  std::string_view label;  ///< e.g. "H100-SXM 80GB"
  double memory_gib;       ///< the datasheet's memory
  /// Total memory as CUDA reports it (torch.cuda.mem_get_info), what vLLM
  /// multiplies by gpu_memory_utilization: a little under the datasheet's
  /// (reserved by the driver; GDDR6 boards with ECC expose 15/16).
  double cuda_memory_gib;
  double bf16_tflops;      ///< dense BF16 tensor-core peak
  double fp8_tflops;       ///< dense FP8 peak; 0 when the GPU has no FP8 tensor cores
  double hbm_tb_per_s;     ///< memory bandwidth, 10^12 bytes/s
  double mfu;              ///< achieved share of peak in prefill: hardware.mfu's default on this GPU
  std::string_view generation;  ///< "Ampere", "Ada", "Hopper", "Blackwell"
  std::string_view source;
};

/// Engine constants the derivation uses, each with its source (presets file).
struct EngineConstants {
  double step_overhead_ms;          ///< fixed cost of every step
  double allreduce_ms_per_layer;    ///< added per layer when tp > 1
  double default_memory_utilization;
  double default_bandwidth_efficiency;
  /// GPU memory per GPU vLLM keeps from the KV cache besides the weights:
  /// the profile run's activation peak, non-torch memory, CUDA graphs.
  double runtime_reserve_gib;
  double tp_reserve_gib;            ///< added per GPU when tp > 1 (NCCL and all-reduce buffers)
  /// Routed experts' matrix multiplies run at this share of mfu (grouped
  /// GEMMs of a few hundred tokens per expert, MXFP4 dequantised on the fly).
  double moe_expert_efficiency;
  std::string_view source;
};

std::span<const ModelPreset> model_presets();
std::span<const GpuPreset> gpu_presets();
const EngineConstants& engine_constants();
const ModelPreset* find_model_preset(std::string_view name);
const GpuPreset* find_gpu_preset(std::string_view name);
/// "none,llama-3.1-8b,..." and "a100,h100,...": the choices of hardware.model and hardware.gpu.
const std::string& model_choices();
const std::string& gpu_choices();

/// The scenario's `hardware` section.
struct HardwareSettings {
  std::string model = "none";            ///< a preset name, or "none": derive nothing
  std::string gpu = "h100";
  std::uint32_t tp = 1;                  ///< 1, 2, 4 or 8
  std::string kv_dtype = "bf16";         ///< bf16 or fp8
  std::string weight_dtype = "native";   ///< native (the checkpoint's), bf16 or fp8
  double memory_utilization = 0.9;       ///< share of GPU memory the engine may use (vLLM's default)
  double mfu = 0;                        ///< achieved share of peak FLOP/s in prefill; 0 = the GPU's default
  double bandwidth_efficiency = 0.72;    ///< achieved share of HBM bandwidth

  bool enabled() const { return model != "none"; }
};

/// One derived raw field: its key, value and the arithmetic behind it.
struct DerivedField {
  std::string key;      ///< e.g. "cluster.cache_tokens"
  double value = 0;
  std::string formula;  ///< the arithmetic with the numbers, for people
};

/// What a hardware setting implies for one replica.
struct HardwareDerivation {
  std::string error_field;  ///< non-empty when the setting cannot run
  std::string error;
  const ModelPreset* model = nullptr;
  const GpuPreset* gpu = nullptr;
  double mfu = 0;                       ///< in force: given, or the GPU's default
  double weight_bytes = 0;              ///< whole model
  double weight_bytes_per_gpu = 0;
  double usable_bytes_per_gpu = 0;      ///< CUDA-visible memory x utilisation
  double reserve_bytes_per_gpu = 0;     ///< runtime reserve (activation peak, non-torch, graphs)
  double expert_weight_bytes = 0;       ///< the routed experts' part of weight_bytes
  double kv_bytes_per_token = 0;        ///< whole replica, every layer (what the cache holds)
  double kv_bytes_per_token_per_gpu = 0;
  double kv_read_bytes_per_token_per_gpu = 0;  ///< of the full-attention layers (what a step reads)
  double peak_flops = 0;                ///< per replica, the highest peak the linear layers use
  double bandwidth = 0;                 ///< per GPU, bytes/s, after efficiency
  std::uint64_t cache_tokens = 0;
  double prefill_tokens_per_s = 0;
  StepCosts costs;
  std::vector<DerivedField> fields;     ///< the raw fields derived, in schema order

  bool ok() const { return error.empty(); }
};

/// Derives one replica's raw fields from `settings` (which must name a
/// preset model; an unknown name is an error naming its field). A
/// settings.mfu of 0 takes the GPU preset's calibrated default.
HardwareDerivation derive_hardware(const HardwareSettings& settings, std::uint32_t kv_block_tokens);

}  // namespace prefixroute
