#include "step_table.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "prefixroute/cluster/calibration.h"
#include "prefixroute/cluster/hardware.h"
#include "prefixroute/cluster/step_model.h"

namespace prefixroute {
namespace {

// BLIS's blackbox fits of vLLM 0.8.4 (inference-sim/inference-sim :
// defaults.yaml, beta_coeffs): step_us = b0 + b1 x prefill tokens + b2 x
// decode tokens. The 70B rows are meta-llama/llama-3.3-70b-instruct, the
// same architecture as Llama-3.1-70B.
struct Fit {
  const char* model;
  const char* gpu;
  std::uint32_t tp;
  double b0, b1, b2;
};

constexpr Fit kFits[] = {
    {"llama-3.1-8b", "h100", 1, 5752.705, 17.2509, 5.9991},
    {"llama-3.1-8b", "a100", 1, 16441.532, 47.8374, 18.2056},
    {"llama-3.1-70b", "h100", 4, 12601.271, 76.4228, 66.8440},
    {"llama-3.1-8b", "h100", 2, 6910.420, 17.6706, 2.8377},
    {"llama-3.1-70b", "h100", 8, 14140.825, 10.0256, 19.4016},
    {"qwen2.5-7b", "a100", 1, 10041.674, 81.1210, 59.9862},
    {"qwen2.5-7b", "h100", 2, 5700.267, 25.0850, 13.8590},
};

struct Load {
  const char* name;
  std::uint64_t prefill;   // prompt tokens at context 0
  std::uint64_t decodes;   // sequences decoding
  std::uint64_t context;   // their context
};

constexpr Load kLoads[] = {
    {"prefill 512", 512, 0, 0},
    {"prefill 2,048", 2048, 0, 0},
    {"prefill 8,192", 8192, 0, 0},
    {"decode 1 @ 1k", 0, 1, 1024},
    {"decode 32 @ 1k", 0, 32, 1024},
    {"decode 128 @ 1k", 0, 128, 1024},
    {"mixed: 2,048 + 64 @ 1k", 2048, 64, 1024},
};

std::string printf_string(const char* format, double a) {
  char text[64];
  std::snprintf(text, sizeof text, format, a);
  return text;
}

// 307328 -> "307,328" (rounded to a whole number).
std::string thousands(double x) {
  const std::string digits = printf_string("%.0f", x);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    out += digits[i];
    const std::size_t left = digits.size() - 1 - i;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out;
}

StepModel model_of(const Fit& f, bool& ok, std::string& label) {
  HardwareSettings s;
  s.model = f.model;
  s.gpu = f.gpu;
  s.tp = f.tp;
  const HardwareDerivation d = derive_hardware(s, 16);
  ok = d.ok();
  if (!ok) return {};
  label = std::string(d.model->label) + ", " + std::to_string(f.tp) + " x " + std::string(d.gpu->label);
  return StepModel{PrefillModel{d.prefill_tokens_per_s}, d.costs};
}

}  // namespace

std::string format_step_table_markdown() {
  std::string out = "| Model, GPUs | Step | BLIS fit (ms) | prefixroute (ms) | Error | |\n|---|---|---|---|---|---|\n";
  for (const Fit& f : kFits) {
    bool ok = false;
    std::string label;
    const StepModel model = model_of(f, ok, label);
    if (!ok) continue;
    for (const Load& l : kLoads) {
      StepLoad load;
      if (l.prefill > 0) load.add(l.prefill, 0);
      for (std::uint64_t i = 0; i < l.decodes; ++i) load.add(1, l.context);
      const double ours = static_cast<double>(model.step_ticks(load)) / 1e6;
      const double blis = (f.b0 + f.b1 * static_cast<double>(l.prefill) + f.b2 * static_cast<double>(l.decodes)) / 1e3;
      const double error = ours / blis - 1;
      out += "| " + label + " | " + l.name + " | " + printf_string("%.1f", blis) + " | " + printf_string("%.1f", ours) +
             " | " + printf_string("%+.0f%%", error * 100) + " | " + (std::fabs(error) > 0.30 ? "> 30 %" : "") + " |\n";
    }
  }
  return out;
}

std::string format_capacity_table_markdown() {
  std::string out =
      "| Model, GPUs | Utilisation | Reported KV capacity (tokens) | prefixroute | Difference | What was reported | "
      "Source |\n|---|---|---|---|---|---|---|\n";
  for (const PublishedMeasurement& row : published_measurements()) {
    if (row.kind != PublishedMeasurement::Kind::KvCapacity) continue;
    const HardwareDerivation d = derive_hardware(measurement_settings(row), 16);
    if (!d.ok()) continue;
    out += "| " + std::string(d.model->label) + ", " + std::to_string(row.tp) + " x " + std::string(d.gpu->label) +
           " | " + printf_string("%.2f", row.memory_utilization) + " | " + thousands(row.measured) + " | " +
           thousands(model_figure(row)) + " | " + printf_string("%+.1f%%", model_error(row) * 100) + " | " +
           std::string(row.what) + " | " + std::string(row.source) + " |\n";
  }
  return out;
}

std::string format_calibration_table_markdown() {
  std::string out =
      "| Model, GPUs | Engine | Measured | prefixroute | Error | Calibrates | What was measured | Source |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const PublishedMeasurement& row : published_measurements()) {
    if (row.kind == PublishedMeasurement::Kind::KvCapacity) continue;
    const HardwareDerivation d = derive_hardware(measurement_settings(row), 16);
    if (!d.ok()) continue;
    const bool prefill = row.kind == PublishedMeasurement::Kind::PrefillChunk;
    const std::string unit = prefill ? " tokens/s" : " ms";
    const auto value = [&](double x) { return prefill ? thousands(x) + unit : printf_string("%.1f", x) + unit; };
    const std::string load = prefill ? "prefill " + thousands(static_cast<double>(row.tokens)) + " tokens"
                                     : "decode 1 @ " + thousands(static_cast<double>(row.tokens));
    out += "| " + std::string(d.model->label) + ", " + std::to_string(row.tp) + " x " + std::string(d.gpu->label) +
           " | " + std::string(row.engine) + " | " + load + ": " + value(row.measured) + " | " + value(model_figure(row)) +
           " | " + printf_string("%+.1f%%", model_error(row) * 100) + " | " + (row.calibrates ? "yes" : "no") + " | " +
           std::string(row.what) + " | " + std::string(row.source) + " |\n";
  }
  return out;
}

}  // namespace prefixroute
