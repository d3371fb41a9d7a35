// SharedPrefixWorkload: a pool of prompts behind shared system prompts, sent
// cycled or at random, as the benchmark tools build one. Two workload kinds:
//
//   shared_prefix      inference-perf's `shared_prefix` data generator
//                      (kubernetes-sigs/inference-perf, datagen
//                      shared_prefix_datagen.py), SharedPrefixParams;
//   prefix_repetition  vLLM's `prefix_repetition` dataset (vllm/benchmarks/
//                      datasets: PrefixRepetitionRandomDataset): num_prefixes
//                      groups of floor(requests / num_prefixes) prompts, a
//                      prefix_len system prompt and a suffix_len question each,
//                      output_len, shuffled and sent once
//                      (SharedPrefixWorkload::params_of).
//
// Model. num_groups groups, each with its own system prompt (a run of random
// tokens, its length drawn per group), and prompts_per_group prompts per
// group, each with its own question (its length and its output length drawn
// per prompt): the pool's entry (g, q) is [system prompt g][question (g, q)].
// Lengths are LengthSpreads (length_spread.h): inference-perf's
// Distribution of type normal, or a fixed length. The pool is shuffled once
// (Fisher-Yates with the project's Rng; inference-perf shuffles with numpy's
// permutation), and workload.requests prompts are sent: order Cycle sends
// the shuffled pool in order, again and again (request i is entry
// perm[i mod N], as inference-perf's load_lazy_data does); order Random
// draws each request's entry uniformly, with replacement.
//
// Multi-turn (inference-perf's enable_multi_turn_chat). Each entry is a
// user's session whose context starts as its group's system prompt; the
// session's round r (request i of entry e is its round i div N when cycled)
// sends the context followed by the entry's question, and the response (the
// entry's output length of tokens) joins the context:
//
//   round 0   [system g][q e]
//   round 1   [system g][q e][response e,0][q e]
//   round 2   [system g][q e][response e,0][q e][response e,1][q e]
//
// so round r+1 = round r + response r + the question, exactly, as tokens. The
// question is the same text every round, as inference-perf re-sends the
// entry's question. Multi-turn requires order Cycle (validated): a random
// draw would bound no session's rounds. Simplified: inference-perf joins
// texts with a space and re-tokenises, so its prompts may differ by a token
// at each join; here lengths are exact. Its client waits for round r's
// response before sending round r+1; this generator is open loop (round r+1
// arrives N requests later, whether or not round r has completed in the
// simulation). Its max_model_len ceiling on a session's context is not
// modelled: sessions grow for as many rounds as the requests cycle.
//
// Token content: each system prompt, question and response is a run of
// seeded_token()s of its own seed (seeded_tokens.h), so two prompts share
// exactly the runs they have in common: two prompts of one group share their
// system prompt and, beyond it, a token only by chance (their questions'
// first tokens are equal with probability 1/vocab_size); prompts of two
// groups share a first token with probability 1/vocab_size, two with
// 1/vocab_size^2, ...
//
// Streams: the seed's stream 6 splits into one stream for the system prompt
// lengths, one for the question lengths, one for the output lengths, one for
// the tokens' seeds, one for the order and one for the arrivals, so changing
// one spread changes no other length, and re-timing the arrivals changes no
// prompt. Arrivals: Poisson at workload.arrival_rate_per_s.
//
// Sessions: multi-turn requests share sessions (session(i) = the entry,
// turn(i) = the round); otherwise every request is a session of its own.
//
// Cost: generation O(groups + pool + requests); memory 24 bytes per pool
// entry, 16 per request, 12 per group; prompt(i) O(2 x round + 2).
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/workload/request_trace.h"
#include "prefixroute/workload/workload_config.h"

namespace prefixroute {

class SharedPrefixWorkload final : public RequestTrace, public Content {
 public:
  /// One prompt of the pool: its group, its question's seed and the lengths drawn for it.
  struct Entry {
    std::uint64_t question_seed = 0;
    std::uint32_t group = 0;
    std::uint32_t question_len = 0;
    std::uint32_t output_len = 0;
  };
  /// One request: the pool entry it sends and its round (the times the entry
  /// was sent before it; 0 under order Random).
  struct Request {
    Tick arrival = 0;
    std::uint32_t entry = 0;
    std::uint32_t round = 0;
  };

  /// Generates the trace of `config` (kind shared_prefix or prefix_repetition;
  /// validated by the caller) for `seed`.
  SharedPrefixWorkload(const WorkloadConfig& config, std::uint64_t seed);

  std::size_t size() const override { return requests_.size(); }
  Tick arrival(std::size_t i) const override { return requests_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t i) const override;
  std::uint64_t output_tokens(std::size_t i) const override { return entries_[requests_[i].entry].output_len; }
  std::uint64_t session(std::size_t i) const override { return params_.multi_turn ? requests_[i].entry : i; }
  std::uint32_t turn(std::size_t i) const override { return params_.multi_turn ? requests_[i].round : 0; }
  bool has_sessions() const override { return params_.multi_turn; }
  const Content& content() const override { return *this; }
  /// Request i's prompt: its group's system prompt run, then (multi-turn)
  /// the question and response runs of its earlier rounds, then its question run.
  void prompt(std::size_t i, PromptPieces& out) const override;
  /// FNV-1a over the parameters, every run's seed and length and every
  /// request's arrival, entry and round: O(groups + pool + requests).
  std::uint64_t fingerprint() const override;

  const Entry& entry(std::size_t e) const { return entries_[e]; }
  const Request& request(std::size_t i) const { return requests_[i]; }
  std::size_t pool_size() const { return entries_.size(); }
  std::uint32_t group_length(std::uint32_t g) const { return group_len_[g]; }
  const SharedPrefixParams& params() const { return params_; }

  // ---- Content: run g < num_groups is group g's system prompt ----
  const Token* stored(RunId) const override { return nullptr; }
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  static constexpr RunId kQuestionRun = RunId{1} << 32;  ///< + entry
  static constexpr RunId kResponseRun = RunId{1} << 48;  ///< + entry x 2^24 + round
  static constexpr std::uint32_t kRoundBits = 24;

  /// The shared_prefix parameters of `config`'s kind: its own, or
  /// prefix_repetition's translated (groups = num_prefixes, prompts per group
  /// = floor(requests / num_prefixes), fixed lengths, order Cycle, single turn).
  static SharedPrefixParams params_of(const WorkloadConfig& config);
  /// Requests of `config`: workload.requests, or for prefix_repetition
  /// num_prefixes x floor(requests / num_prefixes) (vLLM drops the remainder).
  static double requests(const WorkloadConfig& config);
  /// Rounds a session can reach: 1, or multi-turn ceil(requests / pool).
  static double max_rounds(const WorkloadConfig& config);
  /// No prompt is longer: the longest system prompt, plus max_rounds x the
  /// longest question and (max_rounds - 1) x the longest output. O(1).
  static double max_prompt_tokens(const WorkloadConfig& config);
  /// Every request's prompt tokens at most, summed: requests at round r are
  /// at most the pool's size, and their prompts at most the longest of that
  /// round. O(1).
  static double max_total_prompt_tokens(const WorkloadConfig& config);
  /// Every request's pieces summed (2 x round + 2 each), at most. O(1).
  static double max_total_pieces(const WorkloadConfig& config);
  /// Heap bytes of the trace generated for `config`. O(1).
  static double estimated_bytes(const WorkloadConfig& config);

 private:
  SharedPrefixParams params_;
  std::uint32_t vocab_size_;
  std::uint64_t response_seed_ = 0;
  std::vector<std::uint64_t> group_seeds_;
  std::vector<std::uint32_t> group_len_;
  std::vector<Entry> entries_;
  std::vector<Request> requests_;
};

}  // namespace prefixroute
