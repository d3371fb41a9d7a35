// The serving cluster a scenario describes, and how its router observes it.
#pragma once

#include <cstdint>

#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/cluster/step_model.h"

namespace prefixroute {

/// How a replica schedules its work (sim/engine.h).
enum class EngineKind : std::uint8_t {
  Fifo,     ///< the seed's engine: one prompt at a time, FIFO, decode beside it
  Batched,  ///< continuous batching with chunked prefill and paged KV (vLLM, SGLang)
};

/// When a batched engine's prompt blocks become cache hits for other
/// requests on their replica (sim/batched_engine.h, "Prefix reuse").
enum class PrefixReuse : std::uint8_t {
  /// From the step that schedules them: vLLM V1 caches a request's full
  /// blocks when it allocates them, so a later request of the same step hits.
  Scheduled,
  /// From the end of the step that computes them: SGLang inserts a prefill
  /// chunk into its radix tree after the chunk's forward pass.
  Computed,
};

/// The replicas: how many, their cache budget, their engine and its speed.
struct ClusterConfig {
  std::uint32_t replicas = 4;
  /// Prefix-cache budget (fifo) or KV capacity (batched) of each replica, in tokens.
  std::uint64_t cache_tokens = 4000;
  std::uint32_t protect_after_hits = RadixCache::kDefaultProtectAfterHits;
  PrefillModel prefill;
  /// Time per output token under the fifo engine; 0 turns decode off (the
  /// baseline model: a request completes at its first token and pins
  /// nothing). The batched engine times decode steps with the step model.
  double decode_ms_per_token = 0;

  EngineKind engine = EngineKind::Fifo;
  /// Batched engine: tokens one step computes at most (vLLM's
  /// max_num_batched_tokens), sequences running at most (max_num_seqs), and
  /// the KV block size.
  std::uint64_t max_batched_tokens = 8192;
  std::uint32_t max_running = 256;
  std::uint32_t kv_block_tokens = 16;
  /// Batched engine: when prompt blocks become reusable (fifo ignores it).
  PrefixReuse prefix_reuse = PrefixReuse::Scheduled;
  /// Step-time terms besides the prefill rate (all 0: the seed's linear prefill).
  StepCosts step;

  StepModel step_model() const { return StepModel{prefill, step}; }
};

/// An upper bound, in seconds, on the simulated time a run's replicas can
/// spend computing (so that no Tick overflows): fifo, every request
/// prefilled alone by the step model; batched, one step per token computed,
/// each as slow as the cluster allows (a full token budget at the longest
/// context). Sums of token counts over the run; `max_*` of one request.
/// Recompute after preemption is not counted (the engine clamps instead).
double worst_busy_seconds(const ClusterConfig& cluster, double requests, double total_prompt, double max_prompt,
                          double total_output, double max_output);

/// How the router observes the engines (see Replica's "router's view").
struct RouterConfig {
  double scrape_period_ms = 50;  ///< engine metrics are sampled this often
  double kv_event_lag_ms = 0;    ///< the precise cache view lags the engine by this
  /// Router replicas, each with its own policy state; request i goes to
  /// instance i mod instances (sim/router_instances.h).
  std::uint32_t instances = 1;
};

}  // namespace prefixroute
