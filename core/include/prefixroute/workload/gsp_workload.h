// GspWorkload: SGLang's `generated-shared-prefix` benchmark (workload kind
// "gsp"), the shape users run against real servers with
// `python -m sglang.bench_serving --dataset-name generated-shared-prefix`.
//
// Model (GspParams, workload_config.h; SGLang's defaults): num_groups groups,
// each with a system prompt of system_prompt_len random tokens, and
// prompts_per_group questions per group of question_len random tokens; request
// (g, q) is [system prompt g][question q] and asks for output_len tokens. The
// num_groups x prompts_per_group requests are shuffled (Fisher-Yates with the
// project's Rng; SGLang shuffles with Python's random) and arrive by a Poisson
// process of rate arrival_rate_per_s (SGLang's --request-rate; its default,
// infinity, sends everything at once). workload.requests is not read.
// Simplified: SGLang joins the two with "\n\n" and re-tokenises, so its
// prompts are a token or two longer; here the lengths are exact.
//
// Each request is a session of its own (session(i) is its index g x
// prompts_per_group + q before the shuffle, turn(i) 0); group(i) names its group.
// Runs: g < num_groups is group g's system prompt, kQuestionRun + j question j;
// their tokens are seeded_token()s of per-run seeds, so memory is O(requests).
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/workload/request_trace.h"
#include "prefixroute/workload/workload_config.h"

namespace prefixroute {

class GspWorkload final : public RequestTrace, public Content {
 public:
  struct Entry {
    Tick arrival = 0;
    std::uint32_t group = 0;
    std::uint32_t question = 0;  ///< g x prompts_per_group + q: its index before the shuffle
  };

  /// Generates the trace of `config` (kind "gsp"; validated by the caller) for `seed`.
  GspWorkload(const WorkloadConfig& config, std::uint64_t seed);

  std::size_t size() const override { return entries_.size(); }
  Tick arrival(std::size_t i) const override { return entries_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t /*i*/) const override {
    return std::uint64_t{params_.system_prompt_len} + params_.question_len;
  }
  std::uint64_t output_tokens(std::size_t /*i*/) const override { return params_.output_len; }
  std::uint64_t session(std::size_t i) const override { return entries_[i].question; }
  const Content& content() const override { return *this; }
  /// Request i's prompt: its group's system prompt run, then its question's run.
  void prompt(std::size_t i, PromptPieces& out) const override;
  /// FNV-1a over the parameters, every run's seed and every request's arrival,
  /// group and question: O(requests + groups); the tokens follow from the seeds.
  std::uint64_t fingerprint() const override;

  std::uint32_t group(std::size_t i) const { return entries_[i].group; }
  const Entry& entry(std::size_t i) const { return entries_[i]; }

  // ---- Content ----
  const Token* stored(RunId) const override { return nullptr; }
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  static constexpr RunId kQuestionRun = RunId{1} << 32;

  /// Requests of `config`: num_groups x prompts_per_group.
  static double requests(const WorkloadConfig& config) {
    return static_cast<double>(config.gsp.num_groups) * config.gsp.prompts_per_group;
  }
  /// Heap bytes of the trace generated for `config`. O(1).
  static double estimated_bytes(const WorkloadConfig& config);

 private:
  GspParams params_;
  std::uint32_t vocab_size_;
  std::vector<std::uint64_t> group_seeds_;
  std::vector<std::uint64_t> question_seeds_;
  std::vector<Entry> entries_;
};

}  // namespace prefixroute
