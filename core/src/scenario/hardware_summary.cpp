#include "prefixroute/scenario/hardware_summary.h"

#include <algorithm>

#include "base/decimal_text.h"
#include "base/json_text.h"
#include "scenario/fields.h"

namespace prefixroute {
namespace {

using json_text::Json;
using decimal_text::fixed;
using decimal_text::significant;

// Step times of the summary, in ms.
double step_ms(const StepModel& model, const StepLoad& load) {
  return static_cast<double>(model.step_ticks(load)) / 1e6;
}

}  // namespace

std::string hardware_summary_json(const Scenario& s) {
  const ClusterConfig& c = s.cluster;
  const bool batched = c.engine == EngineKind::Batched;
  Json doc = Json::object();
  doc["schema"] = "prefixroute.hardware/1";
  doc["engine"] = batched ? "batched" : "fifo";
  doc["model"] = s.hardware.model;

  HardwareDerivation derived;
  if (s.hardware.enabled()) derived = derive_hardware(s.hardware, c.kv_block_tokens);
  const bool have = s.hardware.enabled() && derived.ok();
  if (have) {
    // Built key by key: nlohmann's initializer lists cost several times the
    // code in the WebAssembly module.
    const ModelPreset& m = *derived.model;
    const GpuPreset& g = *derived.gpu;
    Json& replica = doc["replica"];
    replica["model"] = m.name;
    replica["gpu"] = g.name;
    replica["tp"] = s.hardware.tp;
    replica["gpus"] = s.hardware.tp;
    replica["kv_dtype"] = s.hardware.kv_dtype;
    replica["weight_dtype"] = s.hardware.weight_dtype;
    replica["memory_utilization"] = s.hardware.memory_utilization;
    replica["mfu"] = s.hardware.mfu;
    replica["bandwidth_efficiency"] = s.hardware.bandwidth_efficiency;
    Json& model = doc["presets"]["model"];
    model["name"] = m.name;
    model["label"] = m.label;
    model["params"] = m.params;
    model["active_params"] = m.active_params;
    model["layers"] = m.layers;
    model["heads"] = m.heads;
    if (m.mla()) {
      model["attention"] = "mla";
      model["kv_lora_rank"] = m.kv_lora_rank;
      model["rope_dim"] = m.rope_dim;
      model["qk_head_dim"] = m.qk_head_dim;
      model["v_head_dim"] = m.v_head_dim;
    } else {
      model["attention"] = "gqa";
      model["kv_heads"] = m.kv_heads;
      model["head_dim"] = m.head_dim;
    }
    if (m.routed_experts > 0) {
      model["routed_experts"] = m.routed_experts;
      model["experts_per_token"] = m.experts_per_token;
      model["routed_expert_params"] = m.routed_expert_params;
    }
    if (m.full_attention_layers > 0) {
      model["full_attention_layers"] = m.full_attention_layers;
      model["sliding_window"] = m.sliding_window;
    }
    model["native_weight_bytes"] = m.native_weight_bytes;
    if (m.native_expert_weight_bytes > 0) model["native_expert_weight_bytes"] = m.native_expert_weight_bytes;
    model["source"] = m.source;
    Json& gpu = doc["presets"]["gpu"];
    gpu["name"] = g.name;
    gpu["label"] = g.label;
    gpu["memory_gib"] = g.memory_gib;
    gpu["cuda_memory_gib"] = g.cuda_memory_gib;
    gpu["bf16_tflops"] = g.bf16_tflops;
    gpu["fp8_tflops"] = g.fp8_tflops;
    gpu["hbm_tb_per_s"] = g.hbm_tb_per_s;
    gpu["mfu"] = g.mfu;
    gpu["generation"] = g.generation;
    gpu["source"] = g.source;
    const EngineConstants& k = engine_constants();
    Json& engine = doc["presets"]["engine"];
    engine["step_overhead_ms"] = k.step_overhead_ms;
    engine["allreduce_ms_per_layer"] = k.allreduce_ms_per_layer;
    engine["default_memory_utilization"] = k.default_memory_utilization;
    engine["default_bandwidth_efficiency"] = k.default_bandwidth_efficiency;
    engine["runtime_reserve_gib"] = k.runtime_reserve_gib;
    engine["tp_reserve_gib"] = k.tp_reserve_gib;
    engine["moe_expert_efficiency"] = k.moe_expert_efficiency;
    engine["source"] = k.source;
    Json& memory = doc["memory"];
    memory["weight_bytes"] = derived.weight_bytes;
    memory["weight_bytes_per_gpu"] = derived.weight_bytes_per_gpu;
    memory["usable_bytes_per_gpu"] = derived.usable_bytes_per_gpu;
    memory["reserve_bytes_per_gpu"] = derived.reserve_bytes_per_gpu;
    memory["kv_bytes_per_token"] = derived.kv_bytes_per_token;
    memory["kv_bytes_per_token_per_gpu"] = derived.kv_bytes_per_token_per_gpu;
  }

  Json fields = Json::array();
  for (const scenario_detail::Field& f : scenario_detail::fields()) {
    if (f.derived < 0) continue;
    Json row = Json::object();
    row["key"] = f.spec.key;
    row["in_force"] = f.spec.kind == FieldKind::Integer ? Json(static_cast<std::uint64_t>(f.get(s))) : Json(f.get(s));
    const bool given = (s.given >> f.derived & 1u) != 0;
    const DerivedField* d = nullptr;
    if (have)
      for (const DerivedField& candidate : derived.fields)
        if (candidate.key == f.spec.key) d = &candidate;
    row["source"] = given ? "given" : (d != nullptr ? "derived" : "default");
    if (d == nullptr) row["derived"] = nullptr;
    else if (f.spec.kind == FieldKind::Integer) row["derived"] = static_cast<std::uint64_t>(d->value);
    else row["derived"] = d->value;
    row["formula"] = d != nullptr ? Json(d->formula) : Json(nullptr);
    fields.push_back(std::move(row));
  }
  doc["fields"] = std::move(fields);

  // The step model at three loads, and the ceilings they imply.
  const StepModel model = c.step_model();
  StepLoad prefill;
  prefill.add(c.max_batched_tokens, 0);
  StepLoad one;
  one.add(1, 1024);
  StepLoad full;
  const std::uint64_t running = std::max<std::uint64_t>(1, std::min<std::uint64_t>(c.max_running, c.max_batched_tokens));
  const std::uint64_t context = std::max<std::uint64_t>(1, c.cache_tokens / running);
  for (std::uint64_t i = 0; i < running; ++i) full.add(1, context - 1);
  const double prefill_ms = step_ms(model, prefill);
  const double full_ms = step_ms(model, full);
  doc["step_ms"]["prefill_full_budget"] = prefill_ms;
  doc["step_ms"]["decode_one"] = step_ms(model, one);
  doc["step_ms"]["decode_full"] = full_ms;
  doc["bounds"]["prefill_tokens_per_s"] = prefill_ms > 0 ? static_cast<double>(c.max_batched_tokens) / prefill_ms * 1e3 : 0.0;
  doc["bounds"]["decode_tokens_per_s"] = full_ms > 0 ? static_cast<double>(running) / full_ms * 1e3 : 0.0;

  std::string text;
  if (have) {
    text = decimal_text::fill("% on % x % per replica: % cache tokens, prefill % tokens/s, % KiB of KV per token",
                              {std::string(derived.model->label), std::to_string(s.hardware.tp),
                               std::string(derived.gpu->label), fixed(static_cast<double>(c.cache_tokens), 0),
                               fixed(c.prefill.tokens_per_s, 0), fixed(derived.kv_bytes_per_token / 1024, 0)});
  } else {
    text = decimal_text::fill("Raw settings (no hardware.model): % cache tokens per replica, prefill % tokens/s",
                              {fixed(static_cast<double>(c.cache_tokens), 0), significant(c.prefill.tokens_per_s)});
  }
  doc["text"] = text;
  return doc.dump(2);
}

}  // namespace prefixroute
