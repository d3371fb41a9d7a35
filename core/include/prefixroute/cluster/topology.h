// Topology: one pool of combined replicas (aggregated, the default) or a
// prefill pool and a decode pool joined by a KV-transfer link
// (disaggregated prefill/decode, "P/D").
//
// Aggregated is the cluster every run had before topologies existed: the
// `cluster` section's replicas, each prefilling and decoding its own
// requests; nothing here is read and every result is unchanged.
//
// Disaggregated, per request (sim/disaggregated_simulator.h runs it):
//   1. the decode worker is chosen by load (topology.decode_choice);
//   2. the split rule (topology.split) decides, from what that worker already
//      caches, whether the prompt is prefilled on a prefill worker and its KV
//      sent over, or prefilled locally on the decode worker;
//   3. on a split, the scenario's routing policy chooses the prefill worker
//      among the prefill pool alone (a cache-aware policy gets its prefix
//      credit there).
// This is llm-d's order: its disagg profile handler runs the decode profile,
// then the decider, then the prefill profile (llm-d/llm-d-router
// pkg/epp/framework/plugins/scheduling/profilehandler/disagg). Dynamo picks
// the prefill worker first; with a decode choice that reads only decode load
// the two orders choose the same workers.
//
// Split rules:
//   never     every request is prefilled on its decode worker (the prefill
//             pool stays idle): a baseline with the same decode pool.
//   always    every request is split (llm-d's always-disagg-pd-decider, the
//             llm-d P/D guide's choice).
//   llmd_prefix  llm-d's prefix-based-pd-decider: split iff the prompt's
//             tokens not cached on the chosen decode worker are at least
//             topology.split_uncached_tokens (16 in llm-d's shipped
//             deploy/config/pd-epp-config.yaml; the plugin's own default 0
//             always splits). The decode worker's hit is its engine cache's
//             match (the simulator's, not an approximate router index).
//   dynamo_isl   Dynamo's conditional disaggregation, isl_bounding policy:
//             with eff = prompt - hit on the chosen decode worker, prefill
//             locally iff eff < topology.split_eff_isl_tokens (2048) and
//             eff / prompt < topology.split_eff_isl_ratio (0.7), else split
//             (ai-dynamo/dynamo lib/kv-router/src/conditional_disagg.rs,
//             DEFAULT_CONDITIONAL_DISAGG_EFF_ISL_THRESHOLD and _RATIO_THRESHOLD).
//
// KV transfer (sim/kv_link.h): setup latency + bytes / bandwidth, bytes =
// (prompt tokens the decode worker does not already hold) x KV bytes per
// token, as vLLM's NIXL connector pulls only prompt - num_computed_tokens.
// Each decode worker has one link; concurrent transfers into it share its
// bandwidth equally (BLIS's --pd-transfer-contention, fair share bw / active).
//
// Cost: pool_clusters is O(1); nothing here runs in the simulation loop.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/cluster/cluster_config.h"

namespace prefixroute {

/// A link preset: bandwidth in GB/s (10^9 bytes/s) and its source.
struct LinkPreset {
  std::string_view name;
  double gb_per_s;
  std::string_view source;
};

/// The link presets (topology.link), "custom" excluded.
const std::vector<LinkPreset>& link_presets();
/// "nvlink,ib_400g,roce_200g,custom": topology.link's choices.
std::string_view link_choices();

/// The scenario's `topology` section. Every field is read only when kind is
/// "disaggregated" (validation refuses a changed value otherwise).
struct TopologySettings {
  std::string kind = "aggregated";        ///< aggregated or disaggregated
  std::uint32_t prefill_replicas = 1;
  std::string prefill_gpu = "h100";       ///< read with hardware.model (the pool's GPU preset)
  std::uint32_t prefill_tp = 1;           ///< read with hardware.model
  std::uint32_t decode_replicas = 1;
  std::string decode_gpu = "h100";
  std::uint32_t decode_tp = 1;
  std::string split = "always";           ///< never, always, llmd_prefix, dynamo_isl
  double split_uncached_tokens = 16;      ///< llmd_prefix's nonCachedTokens
  double split_eff_isl_tokens = 2048;     ///< dynamo_isl's eff_isl_threshold
  double split_eff_isl_ratio = 0.7;       ///< dynamo_isl's eff_isl_ratio_threshold
  std::string decode_choice = "least_loaded";  ///< round_robin, least_loaded, power_of_two
  std::string link = "roce_200g";         ///< a preset, or custom
  double link_gb_per_s = 0;               ///< custom only (> 0 then)
  double link_setup_ms = 0.05;            ///< per transfer, before bytes move (BLIS's 0.05 ms)
  /// KV bytes per prompt token sent; 0 = the hardware.model's (2 x layers x
  /// kv_heads x head_dim x kv bytes). Required without a model.
  double kv_bytes_per_token = 0;

  bool disaggregated() const { return kind == "disaggregated"; }
  /// The link's bandwidth in bytes/s (the preset's, or the custom figure).
  double link_bytes_per_s() const;
};

/// The two pools' clusters: each is `base` (the cluster section, with its
/// derived fields) with the pool's replica count, and, when the scenario
/// names a hardware.model, the fields derived for the pool's GPU and TP.
struct PoolClusters {
  ClusterConfig prefill;
  ClusterConfig decode;
  double kv_bytes_per_token = 0;  ///< in force: given, or derived from the model
};

}  // namespace prefixroute
