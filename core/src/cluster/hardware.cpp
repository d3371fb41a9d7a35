#include "prefixroute/cluster/hardware.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/decimal_text.h"

namespace prefixroute {
namespace {

constexpr double kGiB = 1073741824.0;

// Numbers in formulas: decimal_text, the same bytes on every platform (the
// results JSON carries them).
using decimal_text::fill;
using decimal_text::fixed;
std::string sig(double x) { return decimal_text::significant(x); }
std::string num(std::uint64_t v) { return std::to_string(v); }

std::string gb(double bytes) { return fixed(bytes / 1e9, 2) + " GB"; }

std::string bytes_text(double bytes) {
  if (bytes >= 1024 && std::fmod(bytes, 1024) == 0) return fixed(bytes / 1024, 0) + " KiB";
  return fixed(bytes, 0) + " B";
}

// Bytes per parameter of the layers outside the embeddings and of the
// routed experts, for hardware.weight_dtype. The embeddings and the LM head
// stay BF16 whatever the type: vLLM quantizes linear layers only, and FP8
// checkpoints (DeepSeek-V3, RedHatAI's Llama FP8) keep them BF16.
struct WeightTypes {
  double linear;
  double experts;
};

WeightTypes weight_types(std::string_view dtype, const ModelPreset& m) {
  if (dtype == "bf16") return {2, 2};
  if (dtype == "fp8") return {1, 1};
  return {m.native_weight_bytes, m.native_expert_weight_bytes > 0 ? m.native_expert_weight_bytes : m.native_weight_bytes};
}

std::string dtype_name(double bytes) { return bytes == 1 ? "fp8" : bytes == 2 ? "bf16" : "mxfp4"; }

// The peak a matrix multiply with weights of `bytes` per parameter runs at:
// FP8 weights on FP8 tensor cores at the FP8 peak; anything else (BF16, and
// FP8 or MXFP4 weights dequantised to BF16 on GPUs without the units for
// them) at the BF16 peak.
double peak_tflops(double bytes, const GpuPreset& g) { return bytes == 1 && g.fp8_tflops > 0 ? g.fp8_tflops : g.bf16_tflops; }

}  // namespace

HardwareDerivation derive_hardware(const HardwareSettings& s, std::uint32_t kv_block_tokens) {
  HardwareDerivation d;
  d.model = find_model_preset(s.model);
  d.gpu = find_gpu_preset(s.gpu);
  if (d.model == nullptr) {
    d.error_field = "hardware.model";
    d.error = fill("unknown model \"%\"; allowed: %", {s.model.substr(0, 40), model_choices()});
    return d;
  }
  if (d.gpu == nullptr) {
    d.error_field = "hardware.gpu";
    d.error = fill("unknown GPU \"%\"; allowed: %", {s.gpu.substr(0, 40), gpu_choices()});
    return d;
  }
  const ModelPreset& m = *d.model;
  const GpuPreset& g = *d.gpu;
  const double tp = s.tp;
  const EngineConstants& k = engine_constants();
  d.mfu = s.mfu > 0 ? s.mfu : g.mfu;

  // Weights: embeddings and LM head in BF16, the routed experts and the
  // other layers at their own types.
  const WeightTypes types = weight_types(s.weight_dtype, m);
  const double embedding_params = m.embedding_params();
  const double other_params = m.params - embedding_params - m.routed_expert_params;
  d.expert_weight_bytes = m.routed_expert_params * types.experts;
  d.weight_bytes = embedding_params * 2 + other_params * types.linear + d.expert_weight_bytes;
  d.weight_bytes_per_gpu = d.weight_bytes / tp;
  d.usable_bytes_per_gpu = g.cuda_memory_gib * kGiB * s.memory_utilization;
  d.reserve_bytes_per_gpu = (k.runtime_reserve_gib + (s.tp > 1 ? k.tp_reserve_gib : 0.0)) * kGiB;
  std::string weight_text = types.experts != types.linear
                                ? fill("%, experts in %", {dtype_name(types.linear), dtype_name(types.experts)})
                                : dtype_name(types.linear);
  if (types.linear != 2) weight_text += ", embeddings in bf16";

  // KV cache per token: what the cache holds (every layer: vLLM's hybrid
  // allocator gives sliding-window layers as many blocks as full ones and
  // reports tokens per group) and what a step reads (the full-attention
  // layers; a sliding window reads at most its window).
  const double kv_bytes = s.kv_dtype == "fp8" ? 1 : 2;
  std::string kv_formula;
  double kv_sharding;
  double kv_per_layer;
  if (m.mla()) {
    kv_per_layer = static_cast<double>(m.kv_lora_rank + m.rope_dim) * kv_bytes;
    kv_formula = fill("% layers x (% + %) x % B", {num(m.layers), num(m.kv_lora_rank), num(m.rope_dim), fixed(kv_bytes, 0)});
    kv_sharding = 1;  // one latent head: every GPU keeps all of it
  } else {
    kv_per_layer = 2.0 * m.kv_heads * m.head_dim * kv_bytes;
    kv_formula = fill("2 x % layers x % KV heads x % x % B", {num(m.layers), num(m.kv_heads), num(m.head_dim), fixed(kv_bytes, 0)});
    kv_sharding = std::min<double>(tp, m.kv_heads);
  }
  d.kv_bytes_per_token = m.layers * kv_per_layer;
  d.kv_bytes_per_token_per_gpu = d.kv_bytes_per_token / kv_sharding;
  d.kv_read_bytes_per_token_per_gpu = m.attention_layers() * kv_per_layer / kv_sharding;

  const double free_per_gpu = d.usable_bytes_per_gpu - d.weight_bytes_per_gpu - d.reserve_bytes_per_gpu;
  const double block_bytes = d.kv_bytes_per_token_per_gpu * kv_block_tokens;
  if (!(free_per_gpu >= block_bytes)) {
    std::string fits;
    for (const double t : {1.0, 2.0, 4.0, 8.0}) {
      const double reserve = (k.runtime_reserve_gib + (t > 1 ? k.tp_reserve_gib : 0.0)) * kGiB;
      if (fits.empty() && t > tp && d.usable_bytes_per_gpu - d.weight_bytes / t - reserve >= block_bytes)
        fits = fill("use hardware.tp = % or more, or a GPU with more memory", {fixed(t, 0)});
    }
    if (fits.empty())
      fits = fill("no tensor-parallel degree up to 8 of hardware.gpu = % holds it; pick a larger GPU", {std::string(g.name)});
    d.error_field = "hardware.tp";
    d.error = fill("%'s weights (% in %) need % per GPU at hardware.tp = %, and hardware.gpu = % (%) has % usable "
                   "(% GiB x hardware.memory_utilization %) less % kept for the engine's runtime, leaving no room "
                   "for a %-token KV block: %",
                   {std::string(m.label), gb(d.weight_bytes), weight_text, gb(d.weight_bytes_per_gpu), fixed(tp, 0),
                    std::string(g.name), std::string(g.label), gb(d.usable_bytes_per_gpu), sig(g.cuda_memory_gib),
                    sig(s.memory_utilization), gb(d.reserve_bytes_per_gpu), num(kv_block_tokens), fits});
    return d;
  }

  // KV capacity, as vLLM sizes it. vllm/v1/worker/gpu_worker.py
  // (determine_available_memory): the requested memory is the total CUDA
  // reports x gpu_memory_utilization; the KV cache gets what the weights,
  // the profile run's activation peak and the non-torch allocations (and,
  // in recent versions, an estimate of the CUDA graphs) leave of it: here
  // the weights and the runtime reserve. vllm/v1/core/kv_cache_utils.py
  // (get_num_blocks): available // page size // layers, whole blocks; the
  // logged capacity is blocks x block size (a hybrid model's blocks / its
  // layer groups: every layer counted, as kv_bytes_per_token does).
  const double tokens = std::floor(free_per_gpu / d.kv_bytes_per_token_per_gpu);
  const double blocks = std::floor(tokens / kv_block_tokens);
  d.cache_tokens = static_cast<std::uint64_t>(std::min(blocks * kv_block_tokens, 1e9));
  d.fields.push_back(
      {"cluster.cache_tokens", static_cast<double>(d.cache_tokens),
       fill("(% GiB x % = %) - (weights % in % / tp % = %) - runtime reserve % = % per GPU; / % of KV per token "
            "per GPU (% = %%) = % tokens; whole %-token blocks: % x % = % tokens",
            {sig(g.cuda_memory_gib), sig(s.memory_utilization), gb(d.usable_bytes_per_gpu), gb(d.weight_bytes),
             weight_text, fixed(tp, 0), gb(d.weight_bytes_per_gpu), gb(d.reserve_bytes_per_gpu), gb(free_per_gpu),
             bytes_text(d.kv_bytes_per_token_per_gpu), kv_formula, bytes_text(d.kv_bytes_per_token),
             kv_sharding > 1 ? fill(", over % GPUs", {fixed(kv_sharding, 0)}) : std::string(), fixed(tokens, 0),
             num(kv_block_tokens), fixed(blocks, 0), num(kv_block_tokens),
             fixed(static_cast<double>(d.cache_tokens), 0)})});

  // The MFU in force (a hardware.* field of its own, derived unless given).
  d.fields.push_back(
      {"hardware.mfu", g.mfu,
       g.generation == "Hopper"
           ? fill("%: the % default, calibrated on measured prefill speeds of Hopper GPUs (H100, H200)",
                  {sig(g.mfu), std::string(g.label)})
           : fill("%: the % default, Hopper's calibrated value (no measured prefill speed of an % GPU found)",
                  {sig(g.mfu), std::string(g.label), std::string(g.generation)})});

  // Compute: one token's matrix multiplies. The input embedding is a
  // lookup; the LM head runs in BF16; the routed experts a token selects run
  // at moe_expert_efficiency x mfu.
  const double lm_head = static_cast<double>(m.vocab) * m.hidden;
  const double active_experts = m.routed_experts > 0
                                    ? m.routed_expert_params * m.experts_per_token / m.routed_experts
                                    : 0.0;
  const double dense_matmul = m.active_params - active_experts - embedding_params;
  const double linear_peak = peak_tflops(types.linear, g) * 1e12;
  const double expert_peak = peak_tflops(types.experts, g) * 1e12;
  const double bf16_peak = g.bf16_tflops * 1e12;
  const double rate = d.mfu * tp;
  const double seconds_per_token = 2 * dense_matmul / (rate * linear_peak) + 2 * lm_head / (rate * bf16_peak) +
                                   2 * active_experts / (k.moe_expert_efficiency * rate * expert_peak);
  d.peak_flops = tp * std::max(linear_peak, expert_peak);
  d.prefill_tokens_per_s = 1 / seconds_per_token;
  std::string compute_text =
      fill("2 x % B params at % x % GPU x % TFLOP/s (%) + 2 x % B (LM head, BF16)",
           {fixed(dense_matmul / 1e9, 3), sig(d.mfu), fixed(tp, 0), sig(linear_peak / 1e12),
            types.linear == 1 && g.fp8_tflops > 0 ? "FP8" : "BF16", fixed(lm_head / 1e9, 3)});
  if (active_experts > 0)
    compute_text += fill(" + 2 x % B routed (% of %) at % x that rate",
                         {fixed(active_experts / 1e9, 3), num(m.experts_per_token), num(m.routed_experts),
                          sig(k.moe_expert_efficiency)});
  d.fields.push_back({"cluster.prefill_tokens_per_s", d.prefill_tokens_per_s,
                      fill("1 / (%) = % tokens/s", {compute_text, fixed(d.prefill_tokens_per_s, 0)})});
  double attention_flops;
  std::string attention_formula;
  if (m.mla()) {
    attention_flops = 2.0 * m.layers * m.heads * (m.qk_head_dim + m.v_head_dim);
    attention_formula =
        fill("2 x % layers x % heads x (% + %)", {num(m.layers), num(m.heads), num(m.qk_head_dim), num(m.v_head_dim)});
  } else {
    attention_flops = 4.0 * m.attention_layers() * m.heads * m.head_dim;
    attention_formula = fill("4 x % % x % heads x %",
                             {num(m.attention_layers()), m.full_attention_layers > 0 ? "full-attention layers" : "layers",
                              num(m.heads), num(m.head_dim)});
  }
  const double attention_rate = rate * bf16_peak;
  d.costs.attention_ns_per_token_pair = attention_flops / attention_rate * 1e9;
  d.fields.push_back({"cluster.attention_ns_per_token_pair", d.costs.attention_ns_per_token_pair,
                      fill("% = % FLOP per (query, key) pair / (% x % x % TFLOP/s BF16) = % ns",
                           {attention_formula, fixed(attention_flops, 0), sig(d.mfu), fixed(tp, 0), sig(g.bf16_tflops),
                            sig(d.costs.attention_ns_per_token_pair)})});

  // Memory traffic: per GPU, its share of the weights and of the KV.
  d.bandwidth = s.bandwidth_efficiency * g.hbm_tb_per_s * 1e12;
  const std::string bw_text = fill("(% x % TB/s)", {sig(s.bandwidth_efficiency), sig(g.hbm_tb_per_s)});
  const double dense_bytes = d.weight_bytes - d.expert_weight_bytes;
  d.costs.weight_read_ms = dense_bytes / tp / d.bandwidth * 1e3;
  d.fields.push_back({"cluster.weight_read_ms", d.costs.weight_read_ms,
                      fill("% % / tp % / % = % ms", {d.expert_weight_bytes > 0 ? "weights outside the routed experts" : "weights",
                                                      gb(dense_bytes), fixed(tp, 0), bw_text,
                                                      sig(d.costs.weight_read_ms)})});
  if (m.routed_experts > 0) {
    d.costs.expert_read_ms = d.expert_weight_bytes / tp / d.bandwidth * 1e3;
    d.costs.expert_share_per_token = static_cast<double>(m.experts_per_token) / m.routed_experts;
  }
  d.fields.push_back({"cluster.expert_read_ms", d.costs.expert_read_ms,
                      m.routed_experts > 0 ? fill("routed experts % / tp % / % = % ms",
                                                  {gb(d.expert_weight_bytes), fixed(tp, 0), bw_text,
                                                   sig(d.costs.expert_read_ms)})
                                           : std::string("0 (a dense model)")});
  d.fields.push_back({"cluster.expert_share_per_token", d.costs.expert_share_per_token,
                      m.routed_experts > 0 ? fill("% of % routed experts per token = %",
                                                  {num(m.experts_per_token), num(m.routed_experts),
                                                   sig(d.costs.expert_share_per_token)})
                                           : std::string("0 (a dense model)")});
  d.costs.kv_read_ns_per_token = d.kv_read_bytes_per_token_per_gpu / d.bandwidth * 1e9;
  d.fields.push_back({"cluster.kv_read_ns_per_token", d.costs.kv_read_ns_per_token,
                      fill("% per token per GPU% / % = % ns",
                           {bytes_text(d.kv_read_bytes_per_token_per_gpu),
                            m.full_attention_layers > 0 ? fill(" (% full-attention layers)", {num(m.full_attention_layers)})
                                                        : std::string(),
                            bw_text, sig(d.costs.kv_read_ns_per_token)})});

  // The fixed cost of a step.
  d.costs.overhead_ms = k.step_overhead_ms + (s.tp > 1 ? m.layers * k.allreduce_ms_per_layer : 0.0);
  d.fields.push_back({"cluster.step_overhead_ms", d.costs.overhead_ms,
                      s.tp > 1 ? fill("% ms + % layers x % ms all-reduce (tp %) = % ms",
                                      {sig(k.step_overhead_ms), num(m.layers), sig(k.allreduce_ms_per_layer),
                                       fixed(tp, 0), sig(d.costs.overhead_ms)})
                               : fill("% ms per step", {sig(k.step_overhead_ms)})});
  return d;
}

}  // namespace prefixroute
