// The cumulative kind (CumulativeWorkload): KubeAI's cumulative ShareGPT
// prompts from the sessions kind's conversations. The pool is exactly the
// sessions kind's trace of pool_prompts requests; prompt k of a
// conversation is a prefix of prompt k+1 (extended by exactly its reply and
// the next user message); the pool is shuffled once and cycled; long
// prompts are pruned with their conversation's later ones; requests are
// independent; arrivals and the sessions kind's timing fields do not change
// the prompts; a golden fingerprint (computed once by running the code)
// pins the streams.
#include "prefixroute/workload/cumulative_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "prefixroute/workload/synthetic.h"

namespace prefixroute::cumulative_workload_test {
namespace {

constexpr std::uint64_t kSeed = 31;

// Three tenants' system prompts of 10-20 tokens, user messages of 3-8,
// replies of 4-9, four turns per conversation on average, a pool of 60
// prompts, 200 requests. Vocabulary 2^32 - 1: different runs share a first
// token with probability 2.3e-10.
WorkloadConfig config() {
  WorkloadConfig w;
  w.kind = "cumulative";
  w.requests = 200;
  w.tenants = 3;
  w.zipf_s = 1.0;
  w.prefix_tokens_min = 10;
  w.prefix_tokens_max = 20;
  w.turn_tokens_min = 3;
  w.turn_tokens_max = 8;
  w.vocab_size = 4294967295u;
  w.arrival_rate_per_s = 40;
  w.sessions.turns_mean = 4;
  w.sessions.reply_tokens_min = 4;
  w.sessions.reply_tokens_max = 9;
  w.cumulative = CumulativeParams{60, 8192};
  return w;
}

std::vector<Token> tokens_of(const RequestTrace& t, std::size_t i) {
  std::vector<Token> out;
  t.materialize(i, out);
  return out;
}

TEST(CumulativeWorkload, DefaultsAreKubeAIsPublishedRun) {
  const CumulativeParams p;
  EXPECT_EQ(p.pool_prompts, 800u);
  EXPECT_EQ(p.max_prompt_tokens, 8192u);
}

TEST(CumulativeWorkload, ThePoolIsTheSessionsKindsTraceOfPoolPromptsRequests) {
  const CumulativeWorkload w(config(), kSeed);
  WorkloadConfig sessions = config();
  sessions.kind = "sessions";
  sessions.requests = 60;
  sessions.sessions.context_tokens_max = 10'000'000;  // never compacts here
  const std::unique_ptr<RequestTrace> chats = generate_synthetic(sessions, kSeed);
  ASSERT_EQ(chats->size(), 60u);
  ASSERT_EQ(w.pool().size(), 60u) << "nothing pruned at 8,192 tokens";
  std::multiset<std::vector<Token>> pooled, expected;
  for (std::size_t i = 0; i < 60; ++i) {
    pooled.insert(tokens_of(w, i));
    expected.insert(tokens_of(*chats, i));
  }
  EXPECT_EQ(pooled, expected);
}

TEST(CumulativeWorkload, PromptKOfAConversationIsAPrefixOfPromptKPlusOne) {
  const CumulativeWorkload w(config(), kSeed);
  const SessionWorkload& chats = w.conversations();
  std::map<std::uint32_t, std::map<std::uint32_t, std::size_t>> by;  // conversation -> index -> request
  for (std::size_t i = 0; i < 60; ++i) {
    const SessionWorkload::Call& c = chats.call(w.call_of(i));
    by[c.session][c.index] = i;
  }
  std::size_t pairs = 0;
  for (const auto& [conversation, calls] : by) {
    ASSERT_TRUE(calls.count(0)) << "every pooled conversation starts at its first prompt";
    for (const auto& [k, i] : calls) {
      if (!calls.count(k + 1)) {
        EXPECT_EQ(calls.rbegin()->first, k) << "a conversation's pooled prompts are its first ones";
        continue;
      }
      const std::size_t next = calls.at(k + 1);
      const std::vector<Token> a = tokens_of(w, i), b = tokens_of(w, next);
      ASSERT_LT(a.size(), b.size());
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin())) << conversation << " prompt " << k;
      // Extended by exactly the reply it asked for and one user message.
      const std::uint64_t user = chats.message(chats.call(w.call_of(next)).first_message +
                                               chats.call(w.call_of(next)).messages - 1).tokens;
      EXPECT_EQ(b.size(), a.size() + w.output_tokens(i) + user);
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 30u);
  EXPECT_GT(by.size(), 5u);
}

TEST(CumulativeWorkload, ThePoolIsShuffledOnceAndCycledAsIndependentRequests) {
  const CumulativeWorkload w(config(), kSeed);
  ASSERT_EQ(w.size(), 200u);
  EXPECT_FALSE(w.has_sessions());
  for (std::size_t i = 0; i < w.size(); ++i) {
    EXPECT_EQ(w.session(i), i) << "no session id reaches the router";
    EXPECT_EQ(w.turn(i), 0u);
    if (i >= 60) {
      EXPECT_EQ(w.call_of(i), w.call_of(i - 60));
    }
  }
  // Shuffled: not in conversation order (conversation, then prompt index).
  std::size_t ordered = 0;
  for (std::size_t i = 1; i < 60; ++i) {
    const auto& a = w.conversations().call(w.call_of(i - 1));
    const auto& b = w.conversations().call(w.call_of(i));
    ordered += std::tie(a.session, a.index) < std::tie(b.session, b.index) ? 1 : 0;
  }
  EXPECT_LT(ordered, 45u);
  const CumulativeWorkload other(config(), kSeed + 1);
  EXPECT_NE(other.fingerprint(), w.fingerprint());
}

TEST(CumulativeWorkload, LongPromptsArePrunedWithTheirConversationsLaterPrompts) {
  WorkloadConfig c = config();
  c.cumulative.max_prompt_tokens = 50;
  const CumulativeWorkload w(c, kSeed);
  const SessionWorkload& chats = w.conversations();
  std::set<std::size_t> pooled(w.pool().begin(), w.pool().end());
  std::size_t kept = 0;
  for (std::size_t call = 0; call < chats.size(); ++call) {
    const bool fits = chats.prompt_tokens(call) <= 50;
    EXPECT_EQ(pooled.count(call) == 1, fits) << "call " << call;  // prompts only grow within a conversation
    kept += fits ? 1 : 0;
    if (chats.call(call).index == 0) {
      EXPECT_TRUE(fits) << "a first prompt always fits (validated)";
    }
  }
  EXPECT_EQ(w.pool().size(), kept);
  EXPECT_LT(kept, 60u) << "some prompts are pruned";
  for (std::size_t i = 0; i < w.size(); ++i) ASSERT_LE(w.prompt_tokens(i), 50u);
  EXPECT_EQ(CumulativeWorkload::max_prompt_tokens(c), 50.0);
}

TEST(CumulativeWorkload, ArrivalsAndTheSessionsKindsTimingDoNotChangeThePrompts) {
  const CumulativeWorkload a(config(), kSeed);
  WorkloadConfig timing = config();
  timing.sessions.think_s_mean = 1;
  timing.sessions.session_rate_per_s = 9;
  timing.sessions.nominal_tpot_ms = 1;
  timing.sessions.context_tokens_max = 100;  // not read: no compaction here
  timing.sessions.summary_tokens = 1;
  EXPECT_EQ(CumulativeWorkload(timing, kSeed).fingerprint(), a.fingerprint());
  WorkloadConfig slower = config();
  slower.arrival_rate_per_s = 4;
  const CumulativeWorkload b(slower, kSeed);
  EXPECT_NE(b.fingerprint(), a.fingerprint());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(tokens_of(a, i), tokens_of(b, i));
    EXPECT_EQ(a.output_tokens(i), b.output_tokens(i));
    EXPECT_NEAR(static_cast<double>(b.arrival(i)), 10.0 * static_cast<double>(a.arrival(i)), 11.0 * (i + 1));
  }
}

TEST(CumulativeWorkload, FingerprintOfAFixedConfigAndSeedIsGolden) {
  const CumulativeWorkload w(config(), kSeed);
  EXPECT_EQ(w.fingerprint(), 4702043682526931300ULL);
  EXPECT_EQ(w.arrival(0), 12'917'409);
  EXPECT_EQ(w.prompt_tokens(0), 19u);
  EXPECT_EQ(generate_synthetic(config(), kSeed)->fingerprint(), w.fingerprint());
  // The base class's token-level fingerprint sees the same trace as equal too.
  EXPECT_EQ(CumulativeWorkload(config(), kSeed).RequestTrace::fingerprint(), w.RequestTrace::fingerprint());
}

}  // namespace
}  // namespace prefixroute::cumulative_workload_test
