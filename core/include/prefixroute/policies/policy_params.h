// Parameters of the routing policies modelled on production routers, with
// their published defaults. Each policy's header says what it models.
#pragma once

#include <cstdint>

namespace prefixroute {

/// SGLang router, cache-aware mode (sgl-router): imbalance gate on the
/// router's in-flight counts, else an approximate radix tree of routed prompts.
struct SglangParams {
  double balance_abs = 64;              ///< gate: max - min in-flight above this ...
  double balance_rel = 1.5;             ///< ... and max above this x min -> least loaded
  double cache_threshold = 0.3;         ///< matched / prompt above this -> cache hit routing
  double eviction_interval_s = 120;     ///< how often the router trims its tree
  std::uint64_t max_tree_tokens = 1'000'000;  ///< per-replica tree size after a trim
  std::uint32_t smallest_tree_fallback = 0;   ///< 1: on a miss pick the smallest tree (older rule)
};

/// NVIDIA Dynamo KV router: cost over KV-event block overlap and active load.
struct DynamoParams {
  std::uint32_t block_size = 16;
  double overlap_weight = 1.0;
  double temperature = 0.0;  ///< 0: lowest cost; > 0: softmax sampling (seeded)
};

/// llm-d endpoint picker (EPP): weighted prefix, queue and KV-usage scorers.
struct LlmdParams {
  std::uint32_t block_size = 16;
  std::uint32_t max_prefix_blocks = 256;          ///< prompt blocks considered
  std::uint64_t lru_blocks_per_replica = 31250;   ///< approximate index capacity
  double prefix_weight = 3;
  double queue_weight = 2;
  double kv_weight = 2;
};

/// KubeAI: consistent hashing with bounded loads (CHWBL) on the prompt prefix.
struct ChwblParams {
  std::uint32_t key_tokens = 100;
  std::uint32_t virtual_nodes = 256;
  double load_factor = 1.25;
};

/// Preble's E2 scheduler (exploit / explore over a global radix tree).
struct PrebleParams {
  double window_s = 180;         ///< load history window
  double rebalance_ratio = 1.5;  ///< rebalance when heaviest > ratio x lightest
};

/// How the router observes the engines (see Replica's "router's view").
struct RouterConfig {
  double scrape_period_ms = 50;  ///< engine metrics are sampled this often
  double kv_event_lag_ms = 0;    ///< the precise cache view lags the engine by this
};

}  // namespace prefixroute
