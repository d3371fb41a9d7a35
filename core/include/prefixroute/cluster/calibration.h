// Published measurements of real deployments, beside what the hardware
// presets derive for the same setup.
//
// Three kinds: the KV capacity a vLLM server reported (tokens per replica),
// the prefill speed of one chunk measured as single-request TTFT (tokens/s),
// and the time of one decode step at concurrency 1 (ms). Each row names the
// model and GPU presets, the engine, the setting and its source; model_figure
// computes the preset's value from derive_hardware and the step model, so the
// comparison tables of docs/design/model.md (`prefixroute --step-table`) and the
// tests that hold the presets to these measurements read one list.
//
// Rows marked `calibrates` are the ones the calibrated constants were chosen
// from (hardware.mfu's Hopper default, moe_expert_efficiency); the others
// only check them.
//
// Cost: O(1) per row; nothing here runs in a simulation.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "prefixroute/cluster/hardware.h"

namespace prefixroute {

/// One measurement a publication reports, and the setup it was taken on.
struct PublishedMeasurement {
  enum class Kind {
    KvCapacity,    ///< tokens the server's KV cache holds
    PrefillChunk,  ///< tokens/s of one prompt of `tokens` tokens, no cache, alone
    DecodeStep,    ///< ms of one step decoding one sequence at `tokens` tokens of context
  };
  Kind kind;
  std::string_view model;   ///< a model preset (the stand-in's, where `what` says so)
  std::string_view gpu;     ///< a GPU preset
  std::uint32_t tp;
  std::string_view engine;  ///< "vLLM" or "SGLang", with its version when the source gives one
  double memory_utilization;  ///< vLLM's gpu_memory_utilization (capacity rows)
  std::uint64_t tokens;     ///< the chunk (prefill) or the context (decode)
  double measured;          ///< tokens, tokens/s or ms, as `kind` says
  bool calibrates;          ///< a calibrated constant was chosen from this row
  std::string_view what;    ///< what was measured, how, and any stand-in
  std::string_view source;  ///< owner/repo:path, an issue or pull request, or a URL
};

std::span<const PublishedMeasurement> published_measurements();

/// The settings the row's setup maps to (its model, GPU, tp, utilisation;
/// every efficiency at its default).
HardwareSettings measurement_settings(const PublishedMeasurement& row);

/// The presets' value for the row's setup, in the row's unit: cache tokens
/// (vLLM's default 16-token blocks), tokens/s of the prefill step, or the
/// decode step in ms. NaN when the setup does not derive.
double model_figure(const PublishedMeasurement& row);

/// model_figure / measured - 1.
double model_error(const PublishedMeasurement& row);

}  // namespace prefixroute
