// The hardware summary: what a scenario's model, GPU and engine settings mean
// for one replica, with the arithmetic, for people (the page's "what this
// means" line, the command line's --hardware, the results JSON's "hardware").
//
// JSON (schema "prefixroute.hardware/1"):
//   { "schema", "engine" ("fifo" | "batched"), "model" (a preset name or "none"),
//     "replica": { "model", "gpu", "tp", "gpus", "kv_dtype", "weight_dtype",
//                  "memory_utilization", "mfu", "bandwidth_efficiency" }   (model set only)
//     "presets": { "model": { every ModelPreset number, "source" },
//                  "gpu": { every GpuPreset number, "source" },
//                  "engine": { step overhead, all-reduce, defaults, runtime reserve,
//                              MoE expert efficiency, "source" } }   (model set only)
//     "memory": { "weight_bytes", "weight_bytes_per_gpu", "usable_bytes_per_gpu",
//                 "reserve_bytes_per_gpu", "kv_bytes_per_token",
//                 "kv_bytes_per_token_per_gpu" }     (model set only)
//     "fields": [ { "key", "in_force" (the value the run uses),
//                   "source" ("given" | "derived" | "default"),
//                   "derived" (the preset's value, or null), "formula" (or null) } ]
//                 for each kDerivableFields entry (hardware.mfu among them), in that order,
//     "step_ms": { "prefill_full_budget", "decode_one", "decode_full" }:
//                 the step model's time for a step of max_batched_tokens prompt
//                 tokens (no context), for one sequence decoding at 1,024
//                 tokens of context, and for max_running sequences decoding
//                 with the KV capacity shared among them,
//     "bounds": { "prefill_tokens_per_s", "decode_tokens_per_s" }: the
//                 tokens/s of those full steps, repeated (a saturated
//                 replica's ceiling under the step model),
//     "text": one line: model, GPUs, cache tokens, prefill rate, KV bytes per token }
// Numbers in "formula" and "text" are formatted by integer arithmetic, so the
// JSON is the same bytes natively and in WebAssembly.
#pragma once

#include <string>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// The summary of a valid scenario (see validate()), as JSON text (2-space indented).
std::string hardware_summary_json(const Scenario& scenario);

}  // namespace prefixroute
