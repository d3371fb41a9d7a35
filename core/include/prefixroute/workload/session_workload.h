// SessionWorkload: multi-turn conversations (workload kind "sessions") and
// agent loops (kind "agentic"), as a trace and the content of its runs. One
// generator serves both: a conversation is an agent loop with one LLM call per
// turn (calls_per_turn = 1, no tool results), and a test checks that the
// sessions kind is exactly the agentic kind with calls_per_turn = 1.
//
// Model (parameters: workload_config.h, SessionParams and the shared fields).
// Sessions start by a Poisson process (session_rate_per_s). Each belongs to a
// tenant, drawn by Zipf popularity (zipf_s) as in the tenants kind, whose
// prefix (prefix_tokens_*; the tenants kind's prefixes for the same seed) is
// the system prompt every prompt of the session starts with. A session has T
// user turns and turn u has C_u LLM calls, both geometric (T with mean
// turns_mean; C_u with mean calls_per_turn for agentic, 1 for sessions), each
// capped at kCapTimesMean x its mean (the cap lowers a mean m by m (1 -
// 1/m)^(20 m) < m e^-20). Every call re-sends the whole history
// and appends one new message, a user message (turn_tokens_*) at a turn's
// first call, else a tool result (tool_tokens_*); every call produces a reply
// (reply_tokens_*), its output tokens, which the next prompt carries:
//
//   turn 0, call 0   [system][user 0]
//   turn 0, call 1   [system][user 0][reply 0][tool 1]
//   turn 1, call 0   [system][user 0][reply 0][tool 1][reply 1][user 1]
//
// so prompt k+1 = prompt k + reply k + one new message, exactly, as pieces and
// as tokens. Each system prompt, user message, reply, tool result and summary
// is one run of this content: a prompt is the pieces of its session's history,
// so memory is O(messages), not O(history tokens).
//
// Compaction (a context window). When prompt k + reply k + the new message
// would exceed context_tokens_max tokens, the history is replaced by a new
// summary run of summary_tokens: prompt k+1 = [system][summary][new message],
// and later calls extend that. Coding agents compact their context (the
// Copilot traces record compaction events); here it bounds every prompt by
// max(context_tokens_max, prefix_tokens_max + summary_tokens + the longest
// message), and it is the only thing that makes a session re-send less than
// its whole history. Without it the agentic defaults' ideal-cache hit rate is
// about 97 %; with it, Copilot's 85.7 % (tests/workload/copilot_calibration_test.cpp).
//
// Timing: an open-loop generator. When a response completes depends on the
// simulation (queueing, prefill, decode speed), which the generator cannot
// know, so arrivals are fixed before any simulation: call k+1 of a session
// arrives at
//     arrival(k) + reply_k tokens x nominal_tpot_ms + wait(k+1)
// where wait is a think time (exponential, mean think_s_mean) before a turn's
// first call and a tool wait (exponential, mean tool_s_mean) before the
// others; a session's first call arrives at its start. The nominal decode
// time stands for the response; queueing and prefill are not in the gap. So
// when the simulated TTFT + decode of call k exceeds its nominal decode time,
// call k+1 may arrive before call k completes in the simulation, which a
// real (closed-loop) client would not do.
//
// Size and order. The trace holds exactly `requests` calls: sessions are
// generated in start order until that many calls exist, and the last session
// is cut there (its first calls kept). The calls are then sorted by (arrival,
// session, call index): ties keep a session's calls in order. session(i) is
// the session's index in start order; turn(i) the call's index within its
// session, counting every call of every turn (user_turn and call_in_turn
// split it).
//
// Determinism: only the project's Rng and dmath, integer ticks (one
// seconds_to_ticks per drawn gap), a sort on unique keys; the same seed gives
// the same trace on every platform. Message tokens are seeded_token()s.
//
// Cost: generation O(requests + tenants x prefix length); memory one Call
// (56 bytes) per request, at most three Messages (16 bytes) per request and
// the tenants' prefixes. prompt(i) is O(pieces of prompt i).
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"
#include "prefixroute/workload/request_trace.h"
#include "prefixroute/workload/workload_config.h"

namespace prefixroute {

class SessionWorkload final : public RequestTrace, public Content {
 public:
  enum class MessageKind : std::uint8_t { User, Reply, Tool, Summary };

  /// One run of generated tokens: seeded_token(seed, k, vocab) for k < tokens.
  struct Message {
    std::uint64_t seed = 0;
    std::uint32_t tokens = 0;
    MessageKind kind = MessageKind::User;
  };

  /// One request: an LLM call of a session.
  struct Call {
    Tick arrival = 0;
    Tick wait = 0;                   ///< the drawn think or tool wait before it (0 for a session's first call)
    std::uint32_t session = 0;       ///< index of its session in start order
    std::uint32_t index = 0;         ///< its index within the session (turn(i))
    std::uint32_t user_turn = 0;     ///< its user turn within the session
    std::uint32_t call_in_turn = 0;  ///< its index within that turn (0: after a user message)
    std::uint32_t tenant = 0;
    std::uint32_t first_message = 0;  ///< its prompt: the system prompt, then messages [first, first + messages)
    std::uint32_t messages = 0;
    std::uint32_t reply = 0;          ///< index of its reply message (its output)
    std::uint32_t prompt_tokens = 0;
    bool compacted = false;           ///< its history was replaced by a summary
  };

  /// Generates the trace of `config` (kind "sessions" or "agentic"; validated
  /// by the caller) for `seed`.
  SessionWorkload(const WorkloadConfig& config, std::uint64_t seed);

  std::size_t size() const override { return calls_.size(); }
  Tick arrival(std::size_t i) const override { return calls_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t i) const override { return calls_[i].prompt_tokens; }
  std::uint64_t output_tokens(std::size_t i) const override { return messages_[calls_[i].reply].tokens; }
  std::uint64_t session(std::size_t i) const override { return calls_[i].session; }
  std::uint32_t turn(std::size_t i) const override { return calls_[i].index; }
  const Content& content() const override { return *this; }
  /// Call i's prompt: the tenant's system prompt run, then its history's
  /// message runs (empty messages are left out: no piece is empty).
  void prompt(std::size_t i, PromptPieces& out) const override;
  /// FNV-1a over the tenants' prefix tokens, every message's (kind, seed,
  /// length), and every call's arrival, session, index, output length, prompt
  /// length and pieces: O(pieces + prefix tokens), and the tokens follow from
  /// the seeds.
  std::uint64_t fingerprint() const override;
  bool has_sessions() const override { return true; }

  // ---- Content: run t < tenants is tenant t's prefix, kMessageRun + m message m ----
  const Token* stored(RunId run) const override;
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  static constexpr RunId kMessageRun = RunId{1} << 32;

  const Call& call(std::size_t i) const { return calls_[i]; }
  const Message& message(std::size_t m) const { return messages_[m]; }
  std::size_t message_count() const { return messages_.size(); }
  std::uint32_t sessions() const { return sessions_; }
  const std::vector<Token>& tenant_prefix(std::uint32_t tenant) const { return prefixes_[tenant]; }

  /// Turns and calls per turn are capped at this many times their mean.
  static constexpr double kCapTimesMean = 20;
  /// The cap of a geometric count of mean `mean` (>= 1).
  static std::uint32_t cap_of(double mean);

  /// No prompt of `config` is longer: the least of the context bound
  /// max(context_tokens_max, prefix_tokens_max + summary_tokens + longest
  /// message) and the growth bound of the longest possible session without
  /// compaction, prefix_tokens_max + n x longest message + (n - 1) x
  /// reply_tokens_max, n = min(requests, its most calls). O(1).
  static double max_prompt_tokens(const WorkloadConfig& config);
  /// Pieces of one prompt, at most: the system prompt, a summary, and two
  /// per call since the last compaction (a reply and a message), which are no
  /// more than the session's calls, nor than the prompt's tokens allow (each
  /// piece holds a token; each call adds at least reply_tokens_min + the
  /// shortest message). O(1).
  static double max_prompt_pieces(const WorkloadConfig& config);
  /// Tokens of all runs together, at most. O(1).
  static double max_distinct_tokens(const WorkloadConfig& config);
  /// Messages of the trace, at most (three per call: a message, a reply, a summary).
  static double max_messages(const WorkloadConfig& config) { return 3.0 * static_cast<double>(config.requests); }
  /// The expected span of arrivals at most: requests / session_rate_per_s
  /// (every session could have one call) plus the expected duration of the
  /// longest possible session. O(1).
  static double max_expected_span_s(const WorkloadConfig& config);
  /// Heap bytes of the trace generated for `config`. O(1).
  static double estimated_bytes(const WorkloadConfig& config);

 private:
  std::vector<std::vector<Token>> prefixes_;
  std::vector<Message> messages_;
  std::vector<Call> calls_;
  std::uint32_t vocab_size_;
  std::uint32_t sessions_ = 0;
};

}  // namespace prefixroute
