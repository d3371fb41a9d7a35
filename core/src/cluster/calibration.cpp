#include "prefixroute/cluster/calibration.h"

#include <cmath>
#include <limits>

#include "prefixroute/cluster/step_model.h"

namespace prefixroute {
namespace {

using Kind = PublishedMeasurement::Kind;

constexpr PublishedMeasurement kRows[] = {
    // KV capacity per server.
    {Kind::KvCapacity, "qwen3-32b", "h100", 2, "vLLM", 0.9, 0, 307328, false,
     "KV cache per pod as the report states it (\"KV/pod: 307,328\"); vLLM flags not published, so "
     "gpu_memory_utilization is taken at its default",
     "llm-d/llm-d-kv-cache-manager:benchmarking/73-capacity/README.md"},
    {Kind::KvCapacity, "qwen3-0.6b", "l40s", 1, "vLLM", 0.9, 0, 350304, false,
     "\"GPU KV cache size: 350,304 tokens\" in the server's log (--max-model-len 16000, utilisation at its default)",
     "opendatahub-io/llm-d-playbooks:08-benchmarking/intelligent-inference-scheduler/README.md"},
    {Kind::KvCapacity, "llama-3.1-8b", "h100", 1, "vLLM", 0.9, 0, 436551, false,
     "Meta-Llama-3-8B (Llama-3.1-8B's architecture): available_kv_cache_memory 53.29 GiB / 128 KiB per token",
     "vllm-project/vllm#10511 (memory profiling results in the pull request)"},
    {Kind::KvCapacity, "llama-3.1-8b", "h100", 2, "vLLM", 0.9, 0, 966164, false,
     "Meta-Llama-3-8B at tp 2: 71.29 GiB requested - weights 7.48 - non-torch 3.58 - activation peak 1.26 = "
     "58.97 GiB / 64 KiB per token per GPU",
     "vllm-project/vllm#10511 (memory profiling results in the pull request)"},
    // Prefill speed of one 8,192-token chunk (single request, cache miss).
    {Kind::PrefillChunk, "qwen3-32b", "h100", 2, "vLLM", 0.9, 8192, 20480, true,
     "T(8,192) = 0.40 s from a quadratic fit of single-request TTFT at 1 to 19 chunks (max-num-batched-tokens 8192)",
     "llm-d/llm-d.github.io:blog/2026-08-17_bottleneck-aware-scheduling-for-llm-inference.mdx"},
    {Kind::PrefillChunk, "qwen3-32b", "h100", 2, "vLLM v0.23.0", 0.9, 8192, 15928, true,
     "calibrate.sh: 8,192 random token ids, median TTFT of 20 requests through the full request path",
     "llm-d/llm-d:guides/recipes/router/calibration/configuration-matrix.md"},
    {Kind::PrefillChunk, "qwen3-32b", "h100", 2, "SGLang", 0.9, 8192, 15360, true,
     "as above, SGLang (the blog's figure; it notes the matrix's 30,720 is 2x too high)",
     "llm-d/llm-d.github.io:blog/2026-08-17_bottleneck-aware-scheduling-for-llm-inference.mdx"},
    {Kind::PrefillChunk, "qwen3-32b", "h200", 2, "vLLM v0.23.0", 0.9, 8192, 15751, true,
     "Qwen3-VL-32B-Instruct, text prompt: its language model taken as Qwen3-32B's (not checked against its "
     "config); calibrate.sh as above",
     "llm-d/llm-d:guides/recipes/router/calibration/configuration-matrix.md"},
    {Kind::PrefillChunk, "gpt-oss-120b", "h100", 1, "vLLM v0.22.0", 0.9, 8192, 39065, true,
     "calibrate.sh as above (two reruns: 38,980 and 39,364)",
     "llm-d/llm-d:guides/recipes/router/calibration/configuration-matrix.md; "
     "guides/optimized-baseline/benchmark-results/vllm-gpt-oss-120b-h100/README.md"},
    // Decode step time at concurrency 1.
    {Kind::DecodeStep, "llama-3.1-8b", "a100-40gb", 1, "vLLM 0.23.0", 0.9, 1088, 1000.0 / 75.0, false,
     "about 75 tokens/s at concurrency 1 (1,024-token prompts, 128 output tokens: context 1,088 on average)",
     "https://johnmusgrave.com/p/vllm-throughput-latency-sweep-on"},
};

StepModel step_model_of(const HardwareDerivation& d) { return StepModel{PrefillModel{d.prefill_tokens_per_s}, d.costs}; }

}  // namespace

std::span<const PublishedMeasurement> published_measurements() { return kRows; }

HardwareSettings measurement_settings(const PublishedMeasurement& row) {
  HardwareSettings s;
  s.model = std::string(row.model);
  s.gpu = std::string(row.gpu);
  s.tp = row.tp;
  s.memory_utilization = row.memory_utilization;
  return s;
}

double model_figure(const PublishedMeasurement& row) {
  const HardwareDerivation d = derive_hardware(measurement_settings(row), 16);
  if (!d.ok()) return std::numeric_limits<double>::quiet_NaN();
  const StepModel model = step_model_of(d);
  StepLoad load;
  switch (row.kind) {
    case Kind::KvCapacity:
      return static_cast<double>(d.cache_tokens);
    case Kind::PrefillChunk:
      load.add(row.tokens, 0);
      return static_cast<double>(row.tokens) / (static_cast<double>(model.step_ticks(load)) / 1e9);
    case Kind::DecodeStep:
      load.add(1, row.tokens);
      return static_cast<double>(model.step_ticks(load)) / 1e6;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double model_error(const PublishedMeasurement& row) { return model_figure(row) / row.measured - 1; }

}  // namespace prefixroute
