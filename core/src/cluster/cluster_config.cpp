#include "prefixroute/cluster/cluster_config.h"

#include <algorithm>

namespace prefixroute {

double worst_busy_seconds(const ClusterConfig& c, double requests, double total_prompt, double max_prompt,
                          double total_output, double max_output) {
  const StepCosts& k = c.step;
  const double rate = c.prefill.tokens_per_s;
  const double per_step_s = k.overhead_ms * 1e-3 + k.weight_read_ms * 1e-3 + k.expert_read_ms * 1e-3;
  const double pair_s = k.attention_ns_per_token_pair * 1e-9;
  const double kv_s = k.kv_read_ns_per_token * 1e-9;
  if (c.engine == EngineKind::Fifo) {
    // Each request alone: t0 + max(P / R + k P^2 / 2, W + X + kv P) <= the sum.
    return requests * per_step_s + total_prompt / rate + pair_s * max_prompt * total_prompt * 0.5 +
           kv_s * total_prompt;
  }
  const double tokens = total_prompt + total_output;
  const double budget = static_cast<double>(c.max_batched_tokens);
  const double context = std::max(static_cast<double>(c.cache_tokens), max_prompt + max_output) + budget;
  return tokens * (per_step_s + kv_s * context) + tokens / rate + pair_s * tokens * context;
}

}  // namespace prefixroute
