#include "prefixroute/scenario/scenario.h"

// The two pools of a disaggregated scenario: their clusters and the rules
// across the topology section's fields.
#include "base/json_text.h"
#include "scenario/fields.h"

namespace prefixroute {
namespace {

using scenario_detail::Field;
using scenario_detail::fields;

// `base` with the pool's replicas and, under a hardware.model, every
// derivable field not given derived for the pool's GPU and TP.
ClusterConfig pool_cluster(const Scenario& s, std::uint32_t replicas, const std::string& gpu, std::uint32_t tp,
                           const char* pool, std::vector<FieldError>& errors, HardwareDerivation* out) {
  Scenario scenario = s;
  scenario.cluster.replicas = replicas;
  if (!s.hardware.enabled()) return scenario.cluster;
  HardwareSettings settings = s.hardware;
  settings.gpu = gpu;
  settings.tp = tp;
  if (!s.is_given("hardware.mfu")) settings.mfu = 0;  // the pool GPU's calibrated default
  const HardwareDerivation derived = derive_hardware(settings, s.cluster.kv_block_tokens);
  if (!derived.ok()) {
    const std::string field = derived.error_field == "hardware.gpu" ? std::string("topology.") + pool + "_gpu"
                              : derived.error_field == "hardware.tp" ? std::string("topology.") + pool + "_tp"
                                                                     : derived.error_field;
    errors.push_back({field, "the " + std::string(pool) + " pool: " + derived.error});
    return scenario.cluster;
  }
  for (const Field& f : fields()) {
    if (f.derived < 0 || (s.given >> f.derived & 1u) != 0) continue;
    for (const DerivedField& d : derived.fields)
      if (d.key == f.spec.key) f.set(scenario, d.value);
  }
  if (out != nullptr) *out = derived;
  return scenario.cluster;
}

}  // namespace

PoolClustersResult pool_clusters(const Scenario& s) {
  PoolClustersResult result;
  const TopologySettings& t = s.topology;
  HardwareDerivation prefill_hardware;
  result.pools.prefill =
      pool_cluster(s, t.prefill_replicas, t.prefill_gpu, t.prefill_tp, "prefill", result.errors, &prefill_hardware);
  result.pools.decode = pool_cluster(s, t.decode_replicas, t.decode_gpu, t.decode_tp, "decode", result.errors, nullptr);
  // Every GPU of a replica holds its share of the KV heads and sends it over
  // its own NIC in parallel; the simulator charges the whole replica's bytes
  // to the one link (a simplification: BLIS divides by the prefill TP).
  result.pools.kv_bytes_per_token = t.kv_bytes_per_token > 0 ? t.kv_bytes_per_token
                                    : prefill_hardware.ok()  ? prefill_hardware.kv_bytes_per_token
                                                             : 0;
  return result;
}

namespace scenario_detail {

void check_topology(const Scenario& s, std::vector<FieldError>& errors) {
  const TopologySettings& t = s.topology;
  if (!t.disaggregated()) {
    // Every other topology field is read only by a disaggregated topology.
    const Scenario defaults = Scenario::reference();
    for (const Field& f : fields()) {
      if (f.spec.key.rfind("topology.", 0) != 0 || f.spec.key == "topology.kind") continue;
      const bool same = f.spec.kind == FieldKind::Text ? f.get_text(s) == f.get_text(defaults)
                                                       : f.get(s) == f.get(defaults);
      if (!same)
        errors.push_back({f.spec.key, "is read only when topology.kind is disaggregated: set topology.kind to "
                                      "disaggregated, or leave this field at its default"});
    }
    return;
  }
  const auto tp_ok = [](std::uint32_t tp) { return tp == 1 || tp == 2 || tp == 4 || tp == 8; };
  if (!tp_ok(t.prefill_tp))
    errors.push_back({"topology.prefill_tp", "must be 1, 2, 4 or 8 (GPUs per replica); got " + std::to_string(t.prefill_tp)});
  if (!tp_ok(t.decode_tp))
    errors.push_back({"topology.decode_tp", "must be 1, 2, 4 or 8 (GPUs per replica); got " + std::to_string(t.decode_tp)});
  if (t.link == "custom" && t.link_gb_per_s <= 0)
    errors.push_back({"topology.link_gb_per_s", "must be > 0 when topology.link is custom; got " +
                                                    json_text::format_number(t.link_gb_per_s)});
  if (t.link != "custom" && t.link_gb_per_s != 0)
    errors.push_back({"topology.link_gb_per_s", "is read only when topology.link is custom (" + t.link +
                                                    " has its own bandwidth): set it to 0, or topology.link to custom; got " +
                                                    json_text::format_number(t.link_gb_per_s)});
  if (t.split != "llmd_prefix" && t.split_uncached_tokens != TopologySettings{}.split_uncached_tokens)
    errors.push_back({"topology.split_uncached_tokens",
                      "is read only when topology.split is llmd_prefix: set topology.split to llmd_prefix, or leave "
                      "this field at its default (16)"});
  const TopologySettings defaults;
  if (t.split != "dynamo_isl" && (t.split_eff_isl_tokens != defaults.split_eff_isl_tokens ||
                                  t.split_eff_isl_ratio != defaults.split_eff_isl_ratio))
    errors.push_back({t.split_eff_isl_tokens != defaults.split_eff_isl_tokens ? "topology.split_eff_isl_tokens"
                                                                               : "topology.split_eff_isl_ratio",
                      "is read only when topology.split is dynamo_isl: set topology.split to dynamo_isl, or leave "
                      "this field at its default"});
  if (t.kv_bytes_per_token <= 0 && !s.hardware.enabled())
    errors.push_back({"topology.kv_bytes_per_token",
                      "must be > 0 without a hardware.model (a disaggregated topology sends KV bytes over its link): "
                      "give the model's KV bytes per token (Llama-3.1-8B in BF16: 131072), or set hardware.model"});
  if (s.cluster.engine != EngineKind::Fifo)
    errors.push_back({"cluster.engine", "must be fifo with topology.kind disaggregated (the pools run the fifo "
                                        "engine's prefill queue and fixed-rate decode); got batched"});
  if (client_kind(s.client.kind) == ClientKind::Closed)
    errors.push_back({"client.kind", "must not be closed with topology.kind disaggregated (a closed-loop client "
                                     "is not modelled over two pools); use poisson, constant or burst"});
  if (s.router.instances != 1)
    errors.push_back({"router.instances", "must be 1 with topology.kind disaggregated; got " +
                                              std::to_string(s.router.instances)});
  if (s.router.kv_event_lag_ms != 0)
    errors.push_back({"router.kv_event_lag_ms", "must be 0 with topology.kind disaggregated (the prefill pool's "
                                                "policy sees the engines' caches); got " +
                                                    json_text::format_number(s.router.kv_event_lag_ms)});
  for (FieldError& e : pool_clusters(s).errors) errors.push_back(std::move(e));
}

}  // namespace scenario_detail
}  // namespace prefixroute
