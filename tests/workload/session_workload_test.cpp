// The session generator (workload kinds "sessions" and "agentic"): the
// structure of its prompts, computed by hand (each prompt extends the
// previous one by exactly the reply and one new message, as pieces and as
// tokens; compaction), its timing (think and tool waits after the nominal
// decode), its counts (sessions, turns, calls), and golden fingerprints that
// pin its streams. Goldens were computed once by running the code.
#include "prefixroute/workload/session_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/workload/seeded_tokens.h"
#include "prefixroute/workload/synthetic.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute::session_workload_test {
namespace {

using Call = SessionWorkload::Call;
using MessageKind = SessionWorkload::MessageKind;

#if PREFIXROUTE_TESTS_SANITIZED
constexpr std::uint64_t kManyRequests = 20'000;
#else
constexpr std::uint64_t kManyRequests = 200'000;
#endif

// Every field set explicitly, with fixed lengths so prompt lengths can be
// computed by hand: a 10-token system prompt, 3-token user messages, 2-token
// tool results, 4-token replies, no compaction.
WorkloadConfig fixed_config(const char* kind) {
  WorkloadConfig w;
  w.kind = kind;
  w.requests = 3000;
  w.tenants = 1;
  w.zipf_s = 0;
  w.prefix_tokens_min = w.prefix_tokens_max = 10;
  w.turn_tokens_min = w.turn_tokens_max = 3;
  w.vocab_size = 1000;
  SessionParams& p = w.sessions;
  p.session_rate_per_s = 2.0;
  p.turns_mean = 3.0;
  p.think_s_mean = 5.0;
  p.calls_per_turn = 4.0;
  p.tool_s_mean = 0.5;
  p.tool_tokens_min = p.tool_tokens_max = 2;
  p.reply_tokens_min = p.reply_tokens_max = 4;
  p.context_tokens_max = 10'000'000;
  p.summary_tokens = 5;
  p.nominal_tpot_ms = 20.0;
  return w;
}

// Varied lengths and several tenants: the golden and the invariant tests.
WorkloadConfig varied_config(const char* kind) {
  WorkloadConfig w = fixed_config(kind);
  w.requests = 2000;
  w.tenants = 5;
  w.zipf_s = 1.1;
  w.prefix_tokens_min = 20;
  w.prefix_tokens_max = 60;
  w.turn_tokens_min = 1;
  w.turn_tokens_max = 30;
  w.sessions.tool_tokens_min = 0;
  w.sessions.tool_tokens_max = 40;
  w.sessions.reply_tokens_min = 0;
  w.sessions.reply_tokens_max = 25;
  w.sessions.context_tokens_max = 300;
  w.sessions.summary_tokens = 7;
  return w;
}

constexpr std::uint64_t kSeed = 2024;

// Trace indices of each session's calls, in call order.
std::map<std::uint64_t, std::vector<std::size_t>> calls_by_session(const SessionWorkload& w) {
  std::map<std::uint64_t, std::vector<std::size_t>> by;
  for (std::size_t i = 0; i < w.size(); ++i) by[w.session(i)].push_back(i);
  for (auto& [session, calls] : by)
    std::sort(calls.begin(), calls.end(), [&](std::size_t a, std::size_t b) { return w.turn(a) < w.turn(b); });
  return by;
}

std::vector<Piece> pieces_of(const SessionWorkload& w, std::size_t i) {
  PromptPieces p;
  w.prompt(i, p);
  return p.pieces;
}

std::vector<Token> tokens_of(const SessionWorkload& w, std::size_t i) {
  std::vector<Token> t;
  w.materialize(i, t);
  return t;
}

// The run of message m as a piece.
Piece message_piece(const SessionWorkload& w, std::uint32_t m) {
  return Piece{SessionWorkload::kMessageRun + m, 0, w.message(m).tokens};
}

std::vector<Token> message_tokens(const SessionWorkload& w, std::uint32_t m) {
  std::vector<Token> t(w.message(m).tokens);
  if (!t.empty()) w.copy(SessionWorkload::kMessageRun + m, 0, w.message(m).tokens, t.data());
  return t;
}

// The first session whose call counts per turn start with `wanted`.
std::vector<std::size_t> session_with_turns(const SessionWorkload& w, const std::vector<std::uint32_t>& wanted) {
  for (const auto& [session, calls] : calls_by_session(w)) {
    std::vector<std::uint32_t> per_turn;
    for (const std::size_t i : calls) {
      const Call& c = w.call(i);
      if (c.user_turn >= per_turn.size()) per_turn.push_back(0);
      ++per_turn[c.user_turn];
    }
    if (per_turn.size() >= wanted.size() && std::equal(wanted.begin(), wanted.end() - 1, per_turn.begin()) &&
        per_turn[wanted.size() - 1] >= wanted.back())
      return calls;
  }
  return {};
}

// ---------------------------------------------------------------------------
// Structure, by hand

TEST(SessionWorkload, PromptLengthsOfAnAgentSessionAreAsComputedByHand) {
  // Turn 0 has three calls, then turn 1 starts: 10 + 3 = 13; + reply 4 +
  // tool 2 = 19; + 6 = 25; + reply 4 + user 3 = 32.
  const SessionWorkload w(fixed_config("agentic"), kSeed);
  const std::vector<std::size_t> calls = session_with_turns(w, {3, 1});
  ASSERT_GE(calls.size(), 4u) << "no session with three calls in its first turn";
  EXPECT_EQ(w.prompt_tokens(calls[0]), 13u);
  EXPECT_EQ(w.prompt_tokens(calls[1]), 19u);
  EXPECT_EQ(w.prompt_tokens(calls[2]), 25u);
  EXPECT_EQ(w.prompt_tokens(calls[3]), 32u);
  // As pieces: the system prompt (run 0), then the history's runs in order:
  // user 0, reply 0, tool 1, reply 1, tool 2, reply 2, user 1.
  const std::uint32_t u0 = w.call(calls[0]).first_message;
  const std::vector<Piece> expected = {
      {0, 0, 10},
      message_piece(w, u0),
      message_piece(w, w.call(calls[0]).reply),
      message_piece(w, w.call(calls[1]).first_message + w.call(calls[1]).messages - 1),
      message_piece(w, w.call(calls[1]).reply),
      message_piece(w, w.call(calls[2]).first_message + w.call(calls[2]).messages - 1),
      message_piece(w, w.call(calls[2]).reply),
      message_piece(w, w.call(calls[3]).first_message + w.call(calls[3]).messages - 1)};
  EXPECT_EQ(pieces_of(w, calls[3]), expected);
  const std::vector<MessageKind> kinds = {MessageKind::User, MessageKind::Reply, MessageKind::Tool, MessageKind::Reply,
                                          MessageKind::Tool, MessageKind::Reply, MessageKind::User};
  for (std::size_t k = 0; k < kinds.size(); ++k)
    EXPECT_EQ(w.message(expected[k + 1].run - SessionWorkload::kMessageRun).kind, kinds[k]) << "piece " << k + 1;
  EXPECT_EQ(w.call(calls[3]).user_turn, 1u);
  EXPECT_EQ(w.call(calls[3]).call_in_turn, 0u);
  EXPECT_EQ(w.turn(calls[3]), 3u);
}

TEST(SessionWorkload, ChatPromptsGrowByReplyAndUserMessage) {
  // One call per turn: 13, 13 + 4 + 3 = 20, 27.
  const SessionWorkload w(fixed_config("sessions"), kSeed);
  const std::vector<std::size_t> calls = session_with_turns(w, {1, 1, 1});
  ASSERT_GE(calls.size(), 3u);
  EXPECT_EQ(w.prompt_tokens(calls[0]), 13u);
  EXPECT_EQ(w.prompt_tokens(calls[1]), 20u);
  EXPECT_EQ(w.prompt_tokens(calls[2]), 27u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(w.call(calls[k]).user_turn, k);
    EXPECT_EQ(w.call(calls[k]).call_in_turn, 0u);
  }
}

TEST(SessionWorkload, CompactionReplacesTheHistoryBySummaryWhenTheContextWouldOverflow) {
  // Context 30, summary 5: 13, 19, 25; then 25 + 4 + 2 = 31 > 30, so the
  // fourth call is [system 10][summary 5][tool 2] = 17, and the fifth 17 + 6 = 23.
  WorkloadConfig config = fixed_config("agentic");
  config.sessions.context_tokens_max = 30;
  const SessionWorkload w(config, kSeed);
  const std::vector<std::size_t> calls = session_with_turns(w, {5});
  ASSERT_GE(calls.size(), 5u) << "no session with five calls in its first turn";
  const std::vector<std::uint64_t> lengths = {13, 19, 25, 17, 23};
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    EXPECT_EQ(w.prompt_tokens(calls[k]), lengths[k]) << "call " << k;
    EXPECT_EQ(w.call(calls[k]).compacted, k == 3) << "call " << k;
  }
  const Call& compacted = w.call(calls[3]);
  const std::vector<Piece> pieces = pieces_of(w, calls[3]);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0], (Piece{0, 0, 10}));
  EXPECT_EQ(w.message(compacted.first_message).kind, MessageKind::Summary);
  EXPECT_EQ(pieces[1], message_piece(w, compacted.first_message));
  EXPECT_EQ(pieces[1].length, 5u);
  EXPECT_EQ(w.message(compacted.first_message + 1).kind, MessageKind::Tool);
  // The call after it extends the compacted prompt as any other.
  std::vector<Piece> next = pieces;
  next.push_back(message_piece(w, compacted.reply));
  next.push_back(message_piece(w, compacted.reply + 1));
  EXPECT_EQ(pieces_of(w, calls[4]), next);
}

// Every call of every session: prompt k+1 = prompt k + reply k + one new
// message, exactly, as pieces and as tokens; or, when compacted, the system
// prompt, a summary and the new message, and only when the extension would
// have passed the context window.
void expect_each_prompt_extends_the_previous(const WorkloadConfig& config) {
  const SessionWorkload w(config, kSeed);
  std::size_t extended = 0, compacted = 0;
  for (const auto& [session, calls] : calls_by_session(w)) {
    ASSERT_EQ(w.call(calls[0]).index, 0u);
    EXPECT_FALSE(w.call(calls[0]).compacted);
    for (std::size_t k = 0; k + 1 < calls.size(); ++k) {
      const std::size_t a = calls[k], b = calls[k + 1];
      const Call& next = w.call(b);
      ASSERT_EQ(next.index, k + 1) << "session " << session;
      const std::uint32_t reply = w.call(a).reply;
      const std::uint32_t message = next.first_message + next.messages - 1;
      const MessageKind kind = next.call_in_turn == 0 ? MessageKind::User : MessageKind::Tool;
      ASSERT_EQ(w.message(message).kind, kind);
      std::vector<Piece> pieces;
      std::vector<Token> tokens;
      const std::uint64_t extension = w.prompt_tokens(a) + w.message(reply).tokens + w.message(message).tokens;
      if (next.compacted) {
        ++compacted;
        EXPECT_GT(extension, config.sessions.context_tokens_max) << "session " << session << " call " << k + 1;
        pieces = pieces_of(w, a);
        pieces.resize(1);  // the system prompt
        tokens = tokens_of(w, a);
        tokens.resize(pieces[0].length);
        const std::uint32_t summary = next.first_message;
        ASSERT_EQ(w.message(summary).kind, MessageKind::Summary);
        if (w.message(summary).tokens > 0) pieces.push_back(message_piece(w, summary));
        const std::vector<Token> s = message_tokens(w, summary);
        tokens.insert(tokens.end(), s.begin(), s.end());
      } else {
        ++extended;
        EXPECT_LE(extension, config.sessions.context_tokens_max) << "session " << session << " call " << k + 1;
        EXPECT_EQ(w.prompt_tokens(b), extension);
        pieces = pieces_of(w, a);
        tokens = tokens_of(w, a);
        if (w.message(reply).tokens > 0) pieces.push_back(message_piece(w, reply));
        const std::vector<Token> r = message_tokens(w, reply);
        tokens.insert(tokens.end(), r.begin(), r.end());
      }
      if (w.message(message).tokens > 0) pieces.push_back(message_piece(w, message));
      const std::vector<Token> m = message_tokens(w, message);
      tokens.insert(tokens.end(), m.begin(), m.end());
      ASSERT_EQ(pieces_of(w, b), pieces) << "session " << session << " call " << k + 1;
      ASSERT_EQ(tokens_of(w, b), tokens) << "session " << session << " call " << k + 1;
      ASSERT_EQ(w.prompt_tokens(b), tokens.size());
    }
  }
  EXPECT_GT(extended, 100u);
  if (config.sessions.context_tokens_max < 1000) {
    EXPECT_GT(compacted, 10u);
  }
}

TEST(SessionWorkload, EachAgentPromptIsThePreviousPlusItsReplyAndOneMessage) {
  expect_each_prompt_extends_the_previous(varied_config("agentic"));
}

TEST(SessionWorkload, EachChatPromptIsThePreviousPlusItsReplyAndOneMessage) {
  expect_each_prompt_extends_the_previous(varied_config("sessions"));
}

TEST(SessionWorkload, OutputTokensAreTheReplyTheNextPromptCarries) {
  const SessionWorkload w(varied_config("agentic"), kSeed);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Call& c = w.call(i);
    ASSERT_EQ(w.output_tokens(i), w.message(c.reply).tokens);
    ASSERT_EQ(w.message(c.reply).kind, MessageKind::Reply);
    ASSERT_EQ(c.reply, c.first_message + c.messages) << "a reply is stored right after its prompt's history";
  }
}

// ---------------------------------------------------------------------------
// Timing

TEST(SessionWorkload, GapsAreTheNominalDecodeWhenThereIsNoWait) {
  // 4-token replies at 20 ms: every gap within a session is exactly 80 ms;
  // with 100-token replies, 2 s.
  WorkloadConfig config = fixed_config("agentic");
  config.sessions.think_s_mean = 0;
  config.sessions.tool_s_mean = 0;
  for (const std::uint32_t reply : {4u, 100u}) {
    config.sessions.reply_tokens_min = config.sessions.reply_tokens_max = reply;
    const SessionWorkload w(config, kSeed);
    const Tick gap = reply == 4 ? 80'000'000 : 2'000'000'000;
    for (const auto& [session, calls] : calls_by_session(w))
      for (std::size_t k = 1; k < calls.size(); ++k) {
        ASSERT_EQ(w.arrival(calls[k]) - w.arrival(calls[k - 1]), gap) << "session " << session;
        ASSERT_EQ(w.call(calls[k]).wait, 0);
      }
  }
}

TEST(SessionWorkload, ThinkTimesPrecedeTurnsAndToolWaitsPrecedeFollowUpCalls) {
  // Gap = 4 tokens x 20 ms + the drawn wait, exactly; waits before a turn's
  // first call are think times (mean 5 s), the others tool waits (mean 0.5 s).
  WorkloadConfig config = fixed_config("agentic");
  config.requests = kManyRequests;
  const SessionWorkload w(config, kSeed);
  double think = 0, tool = 0;
  std::size_t thinks = 0, tools = 0;
  for (const auto& [session, calls] : calls_by_session(w)) {
    EXPECT_EQ(w.call(calls[0]).wait, 0);
    for (std::size_t k = 1; k < calls.size(); ++k) {
      const Call& c = w.call(calls[k]);
      ASSERT_EQ(w.arrival(calls[k]) - w.arrival(calls[k - 1]), 80'000'000 + c.wait) << "session " << session;
      ASSERT_GE(c.wait, 0);
      if (c.call_in_turn == 0) {
        think += static_cast<double>(c.wait) / 1e9;
        ++thinks;
      } else {
        tool += static_cast<double>(c.wait) / 1e9;
        ++tools;
      }
    }
  }
  // Exponential waits: the standard error of a mean is mean / sqrt(n); allow 5.
  EXPECT_NEAR(think / static_cast<double>(thinks), 5.0, 5 * 5.0 / std::sqrt(static_cast<double>(thinks)));
  EXPECT_NEAR(tool / static_cast<double>(tools), 0.5, 5 * 0.5 / std::sqrt(static_cast<double>(tools)));
}

TEST(SessionWorkload, SessionsStartAsAPoissonProcess) {
  WorkloadConfig config = fixed_config("sessions");
  config.requests = kManyRequests;
  const SessionWorkload w(config, kSeed);
  std::vector<Tick> starts(w.sessions(), -1);
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w.turn(i) == 0) starts[w.session(i)] = w.arrival(i);
  for (std::size_t s = 1; s < starts.size(); ++s) ASSERT_GE(starts[s], starts[s - 1]) << "session " << s;
  const double n = static_cast<double>(starts.size());
  const double mean_gap_s = static_cast<double>(starts.back()) / 1e9 / n;
  EXPECT_NEAR(mean_gap_s, 0.5, 5 * 0.5 / std::sqrt(n));  // rate 2 sessions/s
}

TEST(SessionWorkload, TheTraceIsSortedByArrivalThenSessionThenCall) {
  WorkloadConfig config = varied_config("agentic");
  config.sessions.think_s_mean = 0;  // many equal arrivals: the tie-break decides
  config.sessions.tool_s_mean = 0;
  config.sessions.nominal_tpot_ms = 0;
  const SessionWorkload w(config, kSeed);
  for (std::size_t i = 1; i < w.size(); ++i) {
    const Call& a = w.call(i - 1);
    const Call& b = w.call(i);
    ASSERT_TRUE(std::tie(a.arrival, a.session, a.index) < std::tie(b.arrival, b.session, b.index)) << "request " << i;
  }
}

// ---------------------------------------------------------------------------
// Counts

TEST(SessionWorkload, TheTraceHoldsExactlyTheRequestsAndWholeSessionsButTheLast) {
  const SessionWorkload w(varied_config("agentic"), kSeed);
  ASSERT_EQ(w.size(), 2000u);
  const auto by = calls_by_session(w);
  EXPECT_EQ(by.size(), w.sessions());
  EXPECT_EQ(by.rbegin()->first, w.sessions() - 1u);
  std::size_t total = 0;
  for (const auto& [session, calls] : by) {
    for (std::size_t k = 0; k < calls.size(); ++k) ASSERT_EQ(w.turn(calls[k]), k);
    total += calls.size();
  }
  EXPECT_EQ(total, 2000u);
}

TEST(SessionWorkload, OneTurnOfOneCallMakesEveryRequestASessionOfItsOwn) {
  WorkloadConfig config = fixed_config("sessions");
  config.sessions.turns_mean = 1;
  const SessionWorkload w(config, kSeed);
  EXPECT_EQ(w.sessions(), config.requests);
  std::set<std::uint64_t> sessions;
  for (std::size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w.turn(i), 0u);
    EXPECT_EQ(w.prompt_tokens(i), 13u);
    sessions.insert(w.session(i));
  }
  EXPECT_EQ(sessions.size(), config.requests);
}

TEST(SessionWorkload, TurnsAndCallsPerTurnAreGeometricWithTheirMeans) {
  WorkloadConfig config = fixed_config("agentic");
  config.requests = kManyRequests;
  const SessionWorkload w(config, kSeed);
  std::map<std::uint64_t, std::uint32_t> turns;  // per session: user turns seen
  std::uint64_t turn_count = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const Call& c = w.call(i);
    turns[c.session] = std::max(turns[c.session], c.user_turn + 1);
    if (c.call_in_turn == 0) ++turn_count;
  }
  turns.erase(w.sessions() - 1);  // the last session is cut
  double sum = 0;
  for (const auto& [s, t] : turns) sum += t;
  const double sessions = static_cast<double>(turns.size());
  // Geometric with mean m has standard deviation sqrt(m (m - 1)); allow 5 standard errors.
  EXPECT_NEAR(sum / sessions, 3.0, 5 * std::sqrt(3.0 * 2.0 / sessions));
  const double per_turn = static_cast<double>(w.size()) / static_cast<double>(turn_count);
  EXPECT_NEAR(per_turn, 4.0, 5 * std::sqrt(4.0 * 3.0 / static_cast<double>(turn_count)));
}

TEST(SessionWorkload, ChatsAreAgentLoopsWithOneCallPerTurn) {
  WorkloadConfig agentic = varied_config("agentic");
  agentic.sessions.calls_per_turn = 1;
  WorkloadConfig chat = varied_config("sessions");
  chat.sessions.tool_tokens_min = chat.sessions.tool_tokens_max = 77;  // ignored by chats
  chat.sessions.tool_s_mean = 99;
  chat.sessions.calls_per_turn = 9;
  EXPECT_EQ(SessionWorkload(chat, kSeed).fingerprint(), SessionWorkload(agentic, kSeed).fingerprint());
}

// ---------------------------------------------------------------------------
// Determinism, content, bounds

TEST(SessionWorkload, FingerprintsOfFixedConfigsAndSeedAreGolden) {
  const SessionWorkload chat(varied_config("sessions"), kSeed);
  const SessionWorkload agent(varied_config("agentic"), kSeed);
  EXPECT_EQ(chat.fingerprint(), 0x98eaadebb6f66e8fULL);
  EXPECT_EQ(agent.fingerprint(), 0x1dfb0c5dcf2f1ce1ULL);
  EXPECT_EQ(chat.total_prompt_tokens(), 219060u);
  EXPECT_EQ(agent.total_prompt_tokens(), 327941u);
  EXPECT_EQ(chat.sessions(), 655u);
  EXPECT_EQ(agent.sessions(), 141u);
  EXPECT_EQ(agent.arrival(agent.size() - 1), 161'974'260'013);
  // The token function itself.
  EXPECT_EQ(seeded_token(1, 0, 32000), 28748u);
  EXPECT_EQ(seeded_token(1, 1, 32000), 29039u);
  EXPECT_EQ(seeded_token(0xFFFFFFFFFFFFFFFFULL, 123456, 4294967295u), 1584850069u);
}

TEST(SessionWorkload, SameSeedGivesTheSameTraceAndOtherSeedsDiffer) {
  const WorkloadConfig config = varied_config("agentic");
  EXPECT_EQ(SessionWorkload(config, kSeed).fingerprint(), SessionWorkload(config, kSeed).fingerprint());
  EXPECT_NE(SessionWorkload(config, kSeed + 1).fingerprint(), SessionWorkload(config, kSeed).fingerprint());
}

TEST(SessionWorkload, TheFingerprintSeesArrivalsOutputsAndTokens) {
  const WorkloadConfig base = varied_config("agentic");
  const std::uint64_t f = SessionWorkload(base, kSeed).fingerprint();
  WorkloadConfig c = base;
  c.sessions.think_s_mean = 5.5;  // arrivals only
  EXPECT_NE(SessionWorkload(c, kSeed).fingerprint(), f);
  c = base;
  c.vocab_size = 1001;  // tokens only
  EXPECT_NE(SessionWorkload(c, kSeed).fingerprint(), f);
  c = base;
  c.sessions.nominal_tpot_ms = 21;  // arrivals only
  EXPECT_NE(SessionWorkload(c, kSeed).fingerprint(), f);
}

TEST(SessionWorkload, SystemPromptsAreTheTenantsKindsPrefixes) {
  const WorkloadConfig config = varied_config("sessions");
  const SessionWorkload w(config, kSeed);
  const Workload tenants = generate_workload(config, kSeed);
  for (std::uint32_t t = 0; t < config.tenants; ++t) EXPECT_EQ(w.tenant_prefix(t), tenants.tenant_prefix(t));
  std::vector<Token> prompt;
  for (std::size_t i = 0; i < 50; ++i) {
    w.materialize(i, prompt);
    const std::vector<Token>& prefix = w.tenant_prefix(w.call(i).tenant);
    ASSERT_TRUE(std::equal(prefix.begin(), prefix.end(), prompt.begin())) << "request " << i;
  }
}

TEST(SessionWorkload, TokensReadFromAnyOffsetAreThePromptsTokens) {
  const SessionWorkload w(varied_config("agentic"), kSeed);
  Rng rng(5);
  std::vector<Token> prompt;
  for (std::size_t i = 0; i < w.size(); i += 37) {
    w.materialize(i, prompt);
    PromptPieces pieces;
    w.prompt(i, pieces);
    const Prompt view = pieces.view();
    for (int k = 0; k < 5 && !prompt.empty(); ++k) {
      const std::size_t from = rng.below(prompt.size());
      const std::size_t n = rng.below(prompt.size() - from) + 1;
      std::vector<Token> part(n);
      view.copy(from, n, part.data());
      ASSERT_TRUE(std::equal(part.begin(), part.end(), prompt.begin() + static_cast<std::ptrdiff_t>(from)));
      ASSERT_EQ(view.token(from), prompt[from]);
    }
    for (const Token t : prompt) ASSERT_LT(t, 1000u);
  }
}

TEST(SessionWorkload, NoPromptExceedsTheBoundTheLimitsUse) {
  Rng rng(17);
  for (int trial = 0; trial < 40; ++trial) {
    WorkloadConfig c = varied_config(trial % 2 == 0 ? "agentic" : "sessions");
    c.requests = 300;
    c.sessions.turns_mean = 1 + static_cast<double>(rng.below(8));
    c.sessions.calls_per_turn = 1 + static_cast<double>(rng.below(8));
    c.sessions.context_tokens_max = static_cast<std::uint32_t>(1 + rng.below(trial % 4 == 0 ? 100000 : 500));
    c.sessions.summary_tokens = static_cast<std::uint32_t>(rng.below(50));
    const SessionWorkload w(c, static_cast<std::uint64_t>(trial));
    const double bound = SessionWorkload::max_prompt_tokens(c);
    const double distinct = SessionWorkload::max_distinct_tokens(c);
    double sum = 0;
    for (std::size_t i = 0; i < w.size(); ++i) ASSERT_LE(static_cast<double>(w.prompt_tokens(i)), bound);
    for (std::size_t m = 0; m < w.message_count(); ++m) sum += w.message(m).tokens;
    for (std::uint32_t t = 0; t < c.tenants; ++t) sum += static_cast<double>(w.tenant_prefix(t).size());
    EXPECT_LE(sum, distinct);
    EXPECT_LE(static_cast<double>(w.message_count()), SessionWorkload::max_messages(c));
  }
}

TEST(SessionWorkload, TheScenarioGeneratesItByKind) {
  const WorkloadConfig config = varied_config("agentic");
  const auto trace = generate_synthetic(config, kSeed);
  EXPECT_EQ(trace->fingerprint(), SessionWorkload(config, kSeed).fingerprint());
  EXPECT_EQ(synthetic_bounds(config).requests, 2000.0);
}

}  // namespace
}  // namespace prefixroute::session_workload_test
