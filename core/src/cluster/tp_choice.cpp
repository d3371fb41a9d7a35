#include "prefixroute/cluster/tp_choice.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/decimal_text.h"

namespace prefixroute {
namespace {

using decimal_text::fill;
using decimal_text::fixed;

std::string tp_gb(double bytes) { return fixed(bytes / 1e9, 2) + " GB"; }
std::string tp_count(double n) { return fixed(n, 0); }

double tp_whole_blocks(double tokens, double block) { return std::ceil(tokens / block) * block; }

// The KV bytes per GPU vLLM requires to start: one request of the full
// context (kv_cache_utils.py, max_memory_usage_bytes per layer: full
// attention cdiv(max_model_len, block) blocks; a sliding window its window
// in blocks plus one, never more than the full context's).
double context_bytes_per_gpu(const HardwareDerivation& d, double context, double block) {
  const ModelPreset& m = *d.model;
  const double per_layer_token = d.kv_bytes_per_token_per_gpu / m.layers;
  const double full = tp_whole_blocks(context, block);
  const double window = m.sliding_window > 0 ? std::min(tp_whole_blocks(m.sliding_window, block) + block, full) : full;
  const double full_layers = m.attention_layers();
  return per_layer_token * (full_layers * full + (m.layers - full_layers) * window);
}

}  // namespace

bool tp_choice_reads(std::string_view field) {
  return field.empty() || field.front() == '(' || field == "schema_version" || field == "hardware.model" ||
         field == "hardware.gpu" || field == "hardware.kv_dtype" || field == "hardware.weight_dtype" ||
         field == "hardware.memory_utilization" || field == "cluster.kv_block_tokens";
}

TpChoice smallest_tp(const HardwareSettings& settings, std::uint32_t kv_block_tokens) {
  TpChoice c;
  if (!settings.enabled()) {
    c.error_field = "hardware.model";
    c.error = "no model chosen (\"none\"): there are no weights to place";
    return c;
  }
  const double block = kv_block_tokens;
  TpChoice fallback;  // the smallest degree that fits the weights with a KV block
  for (const std::uint32_t tp : {1u, 2u, 4u, 8u}) {
    HardwareSettings s = settings;
    s.tp = tp;
    const HardwareDerivation d = derive_hardware(s, kv_block_tokens);
    if (d.model == nullptr || d.gpu == nullptr) {
      c.error_field = d.error_field;
      c.error = d.error;
      return c;
    }
    c.weight_bytes = d.weight_bytes;
    c.context_tokens = d.model->context_tokens;
    if (!d.ok()) continue;
    const double free_per_gpu = d.usable_bytes_per_gpu - d.weight_bytes_per_gpu - d.reserve_bytes_per_gpu;
    const bool holds = free_per_gpu >= context_bytes_per_gpu(d, c.context_tokens, block);
    if (holds || fallback.tp == 0) {
      TpChoice& pick = holds ? c : fallback;
      pick.tp = tp;
      pick.holds_context = holds;
      pick.cache_tokens = d.cache_tokens;
    }
    if (!holds) continue;
    c.min_fit_tp = fallback.tp > 0 ? fallback.tp : tp;
    c.reason = fill("TP %: the smallest that holds %'s % of weights with room for KV on % (% tokens per replica; "
                    "vLLM starts only if one full %-token context fits)",
                    {tp_count(tp), std::string(d.model->label), tp_gb(d.weight_bytes), std::string(d.gpu->label),
                     tp_count(static_cast<double>(d.cache_tokens)), tp_count(c.context_tokens)});
    return c;
  }
  const ModelPreset& m = *find_model_preset(settings.model);
  const GpuPreset& g = *find_gpu_preset(settings.gpu);
  if (fallback.tp == 0) {
    c.reason = fill("no TP up to 8 holds %'s % of weights with room for KV on %: pick a GPU with more memory",
                    {std::string(m.label), tp_gb(c.weight_bytes), std::string(g.label)});
    return c;
  }
  fallback.min_fit_tp = fallback.tp;
  fallback.weight_bytes = c.weight_bytes;
  fallback.context_tokens = c.context_tokens;
  fallback.reason = fill("TP %: the smallest that holds %'s % of weights on %, with KV for % tokens per replica, "
                         "short of one full %-token context at any TP up to 8 (vLLM would need a lower "
                         "max_model_len)",
                         {tp_count(fallback.tp), std::string(m.label), tp_gb(c.weight_bytes), std::string(g.label),
                          tp_count(static_cast<double>(fallback.cache_tokens)), tp_count(c.context_tokens)});
  return fallback;
}

}  // namespace prefixroute
