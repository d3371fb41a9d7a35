// CumulativeWorkload: chat conversations cut into cumulative prompts,
// pooled, shuffled and sent as independent requests (workload kind
// "cumulative"): KubeAI's modified vLLM benchmark_serving.py
// (kubeai benchmarks/chat-py, sample_sharegpt_requests), run with
// --max-conversations and --num-prompts.
//
// What KubeAI's script does with ShareGPT: every conversation of n messages
// gives the prompts of its first 1, 3, 5, ... messages (prompt k, counting
// from 1, is messages 1 .. 2k-1, ending with a user message), each asking for
// the next message (the assistant's reply) as its output. The prompts of all
// conversations, in conversation order, are cut to the first
// --max-conversations of them (prompts, despite the flag's name: the last
// conversation is cut there), shuffled, and sent in that order again and
// again until --num-prompts requests are sent, skipping every prompt longer
// than 8,192 tokens (and the near-empty ones, below).
//
// Taken from the sessions kind (SessionWorkload, session_workload.h): the
// conversations themselves. They are the sessions kind's, for the same seed
// and the same conversation fields: tenants of Zipf popularity (tenants,
// zipf_s) whose system prompts (prefix_tokens_*; set both to 0 for
// ShareGPT, which has none) open every prompt, user messages
// (turn_tokens_*), replies (reply_tokens_*: each prompt's output, and part
// of the next prompt), geometric turns (turns_mean), and a pool of
// pool_prompts calls is exactly the sessions kind's trace of that many
// requests (sessions in start order, the last one cut), so prompt k of a
// conversation is the sessions kind's call k: [system][user 0][reply 0] ...
// [user k].
// What differs: the sessions kind sends each conversation's calls in order,
// timed by think times and nominal decode; here the pool is shuffled (its
// own stream) and cycled, every request is independent (a session of its
// own: no session id reaches the router, as KubeAI's client sends none), and
// arrivals are Poisson at arrival_rate_per_s (their own stream). No history
// is compacted (context_tokens_max and summary_tokens are not read): a prompt
// longer than max_prompt_tokens is pruned, as KubeAI prunes prompts over
// 8,192 tokens, and since a conversation's prompts only grow, so are all its
// later ones. KubeAI also prunes prompts or replies under 4 tokens (near-
// empty ShareGPT messages); that is not modelled. KubeAI's dataset keeps
// conversations of 16 messages or more; here the turns are the sessions
// kind's geometric count (turns_mean), not conditioned on a minimum.
//
// Validation guarantees a non-empty pool: every conversation's first prompt
// (at most prefix_tokens_max + turn_tokens_max) fits max_prompt_tokens.
//
// Cost: generation O(pool + requests + tenants x prefix length); memory the
// sessions kind's for pool_prompts requests, 4 bytes per pooled prompt and
// 8 per request; prompt(i) O(pieces of its prompt).
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/workload/request_trace.h"
#include "prefixroute/workload/session_workload.h"
#include "prefixroute/workload/workload_config.h"

namespace prefixroute {

class CumulativeWorkload final : public RequestTrace {
 public:
  /// Generates the trace of `config` (kind "cumulative"; validated by the
  /// caller) for `seed`.
  CumulativeWorkload(const WorkloadConfig& config, std::uint64_t seed);

  std::size_t size() const override { return arrivals_.size(); }
  Tick arrival(std::size_t i) const override { return arrivals_[i]; }
  std::uint64_t prompt_tokens(std::size_t i) const override { return conversations_.prompt_tokens(call_of(i)); }
  std::uint64_t output_tokens(std::size_t i) const override { return conversations_.output_tokens(call_of(i)); }
  /// The conversations' runs: prompts are pieces of the sessions kind's content.
  const Content& content() const override { return conversations_; }
  void prompt(std::size_t i, PromptPieces& out) const override { conversations_.prompt(call_of(i), out); }
  /// FNV-1a over the tenants' prefix tokens, every message's (kind, seed,
  /// length), the pooled prompts' lengths and pieces in send order and every
  /// arrival: O(prefix tokens + messages + pool pieces + requests).
  std::uint64_t fingerprint() const override;

  /// Request i's prompt: this call of conversations() (the pool's (i mod
  /// pool size)-th prompt in send order).
  std::size_t call_of(std::size_t i) const { return pool_[i % pool_.size()]; }
  /// The conversations: the sessions kind's trace of pool_prompts requests.
  const SessionWorkload& conversations() const { return conversations_; }
  /// The pooled prompts that are sent, in send order, as calls of conversations().
  const std::vector<std::uint32_t>& pool() const { return pool_; }

  /// The sessions-kind config whose trace holds the conversations: `config`
  /// with kind sessions, pool_prompts requests and no compaction.
  static WorkloadConfig conversations_config(const WorkloadConfig& config);
  /// No sent prompt is longer: the least of max_prompt_tokens and the
  /// longest conversation's growth. O(1).
  static double max_prompt_tokens(const WorkloadConfig& config);
  /// Heap bytes of the trace generated for `config`. O(1).
  static double estimated_bytes(const WorkloadConfig& config);

 private:
  SessionWorkload conversations_;
  std::vector<std::uint32_t> pool_;
  std::vector<Tick> arrivals_;
  std::uint32_t vocab_size_;
  std::uint32_t tenants_;
};

}  // namespace prefixroute
