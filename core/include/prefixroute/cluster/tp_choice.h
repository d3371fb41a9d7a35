// The smallest tensor parallelism for a model on a GPU: what a deployment
// picks by default when only the model and the GPU are known.
//
// A degree "holds" the model when vLLM would start with its defaults: the
// weights fit the GPUs with room for the KV cache (derive_hardware accepts
// it), and that room holds one request of the model's full context
// (ModelPreset::context_tokens, vLLM's default max_model_len). vLLM checks
// exactly this at start-up (vllm/v1/core/kv_cache_utils.py,
// check_enough_kv_cache_memory: "To serve at least one request with the
// model's max seq len ... KV cache is needed, which is larger than the
// available KV cache memory"): full-attention layers need the whole context
// in whole blocks, sliding-window layers their window plus one block.
//
//   Llama-3.1-70B (141.11 GB of BF16 weights) on H100-SXM 80GB:
//     tp 1   70.6 B params do not fit one GPU             refused
//     tp 2   2.38 GB per GPU left: 14,496 tokens          short of 131,072
//     tp 4   459,616 tokens                               holds: chosen
//
// When no degree up to 8 holds a full context but some degree fits the
// weights with a KV block, that smallest degree is chosen and the reason says
// the cache is short of a full context. Degrees are 1, 2, 4 and 8 (the
// scenario's hardware.tp).
//
// Cost: at most four derive_hardware calls, O(1) each.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "prefixroute/cluster/hardware.h"

namespace prefixroute {

/// The degree chosen for a model on a GPU, and why, in one line.
/// Invariants: tp is 0 (no degree up to 8 fits the weights with a KV block)
/// or one of 1, 2, 4, 8, and min_fit_tp <= tp; holds_context implies tp > 0; an error (unknown
/// model or GPU, or model "none") leaves tp 0 and names its field.
struct TpChoice {
  std::uint32_t tp = 0;
  /// The smallest degree the scenario accepts at all (the weights fit with
  /// one KV block: derive_hardware's test); 0 when none does. <= tp when tp > 0.
  std::uint32_t min_fit_tp = 0;
  bool holds_context = false;      ///< the KV room at tp holds one full-context request
  double weight_bytes = 0;         ///< the whole model's weights
  std::uint64_t cache_tokens = 0;  ///< KV capacity per replica at tp (0 when tp is 0)
  std::uint32_t context_tokens = 0;
  std::string reason;              ///< one line for people, e.g. "TP 4: the smallest that holds ..."
  std::string error_field;         ///< non-empty when the settings name no model or an unknown preset
  std::string error;

  bool ok() const { return error.empty(); }
};

/// Whether the choice reads this scenario field (or, for "(document)",
/// "(overrides)" and the like, whether the scenario was read at all): a
/// scenario whose errors are all elsewhere (hardware.tp refused for the
/// model, above all) still has a choice to ask for.
bool tp_choice_reads(std::string_view field);

/// The smallest tensor parallelism that holds `settings.model` on
/// `settings.gpu` (see above); settings.tp is ignored, every other hardware
/// setting (memory utilisation, weight and KV types) counts.
TpChoice smallest_tp(const HardwareSettings& settings, std::uint32_t kv_block_tokens);

}  // namespace prefixroute
