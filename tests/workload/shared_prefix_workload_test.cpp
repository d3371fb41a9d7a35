// The pool kinds (SharedPrefixWorkload): inference-perf's shared_prefix and
// vLLM's prefix_repetition. Prompts share exactly the prefixes the tools
// build (a group's system prompt, and nothing across groups), the spreads
// draw per group and per prompt from streams of their own, the pool is
// shuffled once and cycled (or drawn at random), multi-turn rounds carry the
// session's history token for token, arrivals are independent of the
// prompts, and a golden fingerprint (computed once by running the code)
// pins the streams.
#include "prefixroute/workload/shared_prefix_workload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/workload/synthetic.h"

namespace prefixroute::shared_prefix_workload_test {
namespace {

constexpr std::uint64_t kSeed = 7;

// Fixed lengths: 6 groups x 5 prompts, 40-token system prompts, 7-token
// questions, 12 output tokens, 30 requests (one cycle). A vocabulary of
// 2^32 - 1 ids: two different runs share a first token with probability
// 2.3e-10, so "share nothing" holds exactly for the fixed seeds here.
WorkloadConfig fixed_config() {
  WorkloadConfig w;
  w.kind = "shared_prefix";
  w.requests = 30;
  w.arrival_rate_per_s = 50.0;
  w.vocab_size = 4294967295u;
  SharedPrefixParams& p = w.shared_prefix;
  p.num_groups = 6;
  p.prompts_per_group = 5;
  p.system_prompt = LengthSpread{40, 0, 0, 1000000};
  p.question = LengthSpread{7, 0, 1, 1000000};
  p.output = LengthSpread{12, 0, 0, 1000000};
  return w;
}

// Spreads on every length.
WorkloadConfig spread_config() {
  WorkloadConfig w = fixed_config();
  w.shared_prefix.system_prompt = LengthSpread{40, 10, 0, 1000000};
  w.shared_prefix.question = LengthSpread{7, 3, 1, 1000000};
  w.shared_prefix.output = LengthSpread{12, 4, 0, 1000000};
  return w;
}

std::vector<Token> tokens_of(const RequestTrace& t, std::size_t i) {
  std::vector<Token> out;
  t.materialize(i, out);
  return out;
}

std::size_t common_prefix(const std::vector<Token>& a, const std::vector<Token>& b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

std::vector<Piece> pieces_of(const RequestTrace& t, std::size_t i) {
  PromptPieces p;
  t.prompt(i, p);
  return p.pieces;
}

TEST(SharedPrefixWorkload, DefaultsAreInferencePerfs) {
  const SharedPrefixParams p;
  EXPECT_EQ(p.num_groups, 10u);
  EXPECT_EQ(p.prompts_per_group, 10u);
  EXPECT_EQ(p.system_prompt.mean, 100u);
  EXPECT_EQ(p.question.mean, 50u);
  EXPECT_EQ(p.output.mean, 50u);
  EXPECT_EQ(p.system_prompt.std_dev, 0.0);
  EXPECT_EQ(p.order, PoolOrder::Cycle);
  EXPECT_FALSE(p.multi_turn);
}

TEST(SharedPrefixWorkload, EachPromptIsItsGroupsSystemPromptThenItsQuestion) {
  const SharedPrefixWorkload w(fixed_config(), kSeed);
  ASSERT_EQ(w.size(), 30u);
  ASSERT_EQ(w.pool_size(), 30u);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::uint32_t e = w.request(i).entry;
    const std::uint32_t g = w.entry(e).group;
    EXPECT_EQ(g, e / 5) << "entry " << e << " belongs to group entry / 5";
    const std::vector<Piece> expected = {{g, 0, 40}, {SharedPrefixWorkload::kQuestionRun + e, 0, 7}};
    EXPECT_EQ(pieces_of(w, i), expected);
    EXPECT_EQ(w.prompt_tokens(i), 47u);
    EXPECT_EQ(w.output_tokens(i), 12u);
    EXPECT_EQ(w.session(i), i);
    EXPECT_EQ(w.turn(i), 0u);
  }
  EXPECT_FALSE(w.has_sessions());
}

TEST(SharedPrefixWorkload, PromptsOfOneGroupShareExactlyItsSystemPromptAndOfTwoGroupsNothing) {
  // With spreads: each group its own system prompt length.
  const SharedPrefixWorkload w(spread_config(), kSeed);
  std::set<std::uint32_t> lengths;
  for (std::uint32_t g = 0; g < 6; ++g) lengths.insert(w.group_length(g));
  EXPECT_GT(lengths.size(), 3u) << "the system prompt lengths are drawn per group";
  std::vector<std::vector<Token>> tokens(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) tokens[i] = tokens_of(w, i);
  for (std::size_t a = 0; a < w.size(); ++a)
    for (std::size_t b = a + 1; b < w.size(); ++b) {
      const std::uint32_t ga = w.entry(w.request(a).entry).group, gb = w.entry(w.request(b).entry).group;
      EXPECT_EQ(common_prefix(tokens[a], tokens[b]), ga == gb ? w.group_length(ga) : 0u) << a << " and " << b;
    }
}

TEST(SharedPrefixWorkload, ThePoolIsShuffledOnceAndSentInThatOrderAgainAndAgain) {
  WorkloadConfig config = fixed_config();
  config.requests = 3 * 30 + 7;
  const SharedPrefixWorkload w(config, kSeed);
  ASSERT_EQ(w.size(), 97u);
  std::set<std::uint32_t> first_cycle;
  std::size_t in_place = 0;
  for (std::size_t i = 0; i < 30; ++i) {
    first_cycle.insert(w.request(i).entry);
    in_place += w.request(i).entry == i ? 1 : 0;
  }
  EXPECT_EQ(first_cycle.size(), 30u) << "one cycle sends every prompt once";
  EXPECT_LT(in_place, 5u) << "the pool is shuffled, not sent group by group";
  for (std::size_t i = 30; i < w.size(); ++i) {
    EXPECT_EQ(w.request(i).entry, w.request(i % 30).entry) << "request " << i;
    EXPECT_EQ(w.request(i).round, i / 30);
    EXPECT_EQ(tokens_of(w, i), tokens_of(w, i % 30)) << "a re-sent prompt is the same prompt";
    EXPECT_EQ(w.output_tokens(i), w.output_tokens(i % 30));
  }
  const SharedPrefixWorkload other(config, kSeed + 1);
  std::size_t same = 0;
  for (std::size_t i = 0; i < 30; ++i) same += other.request(i).entry == w.request(i).entry ? 1 : 0;
  EXPECT_LT(same, 5u) << "another seed, another order";
}

TEST(SharedPrefixWorkload, RandomOrderDrawsEachRequestsPromptUniformly) {
  WorkloadConfig config = fixed_config();
  config.shared_prefix.order = PoolOrder::Random;
  config.requests = 30'000;
  const SharedPrefixWorkload w(config, kSeed);
  std::vector<int> count(30, 0);
  std::size_t cyclic = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    ++count[w.request(i).entry];
    EXPECT_EQ(w.request(i).round, 0u);
    if (i >= 30) cyclic += w.request(i).entry == w.request(i - 30).entry ? 1 : 0;
  }
  for (int e = 0; e < 30; ++e) EXPECT_NEAR(count[e], 1000, 5 * std::sqrt(1000.0)) << "entry " << e;
  EXPECT_LT(cyclic, 2000u) << "about 1 in 30 by chance, not a cycle";
}

TEST(SharedPrefixWorkload, SpreadsDrawPerGroupAndPerPromptWithTheGivenMeanAndStdDev) {
  WorkloadConfig config = fixed_config();
  config.shared_prefix.num_groups = 400;
  config.shared_prefix.prompts_per_group = 50;
  config.shared_prefix.system_prompt = LengthSpread{1000, 300, 0, 1000000};
  config.shared_prefix.question = LengthSpread{1200, 360, 1, 1000000};
  config.shared_prefix.output = LengthSpread{1000, 300, 0, 1500};
  config.requests = 20'000;
  const SharedPrefixWorkload w(config, kSeed);
  const auto moments = [](const std::vector<double>& xs) {
    double sum = 0, squares = 0;
    for (const double x : xs) {
      sum += x;
      squares += x * x;
    }
    const double n = static_cast<double>(xs.size());
    return std::pair<double, double>(sum / n, std::sqrt(squares / n - (sum / n) * (sum / n)));
  };
  std::vector<double> system, question, output;
  for (std::uint32_t g = 0; g < 400; ++g) system.push_back(w.group_length(g));
  for (std::size_t e = 0; e < w.pool_size(); ++e) {
    question.push_back(w.entry(e).question_len);
    output.push_back(w.entry(e).output_len);
    ASSERT_LE(w.entry(e).output_len, 1500u);
  }
  const auto [sm, ss] = moments(system);
  EXPECT_NEAR(sm, 1000, 5 * 300 / std::sqrt(400.0));
  EXPECT_NEAR(ss, 300, 5 * 300 / std::sqrt(800.0));
  const auto [qm, qs] = moments(question);
  EXPECT_NEAR(qm, 1200, 5 * 360 / std::sqrt(20000.0));
  EXPECT_NEAR(qs, 360, 5 * 360 / std::sqrt(40000.0));
  // Outputs clipped at 1500 (about 5 % of them): the mean of a normal
  // (1000, 300) clipped at +1.667 sd is 1000 - 300 x (phi(1.667) - 1.667 x
  // (1 - Phi(1.667))) = 1000 - 300 x 0.0197 = 994.1.
  const auto [om, os] = moments(output);
  EXPECT_NEAR(om, 994.1, 5 * 300 / std::sqrt(20000.0));
  EXPECT_LT(os, 300);
  // Each request's lengths are its entry's, every time it is sent.
  for (std::size_t i = 0; i < w.size(); ++i) {
    const auto& e = w.entry(w.request(i).entry);
    ASSERT_EQ(w.prompt_tokens(i), std::uint64_t{w.group_length(e.group)} + e.question_len);
    ASSERT_EQ(w.output_tokens(i), e.output_len);
  }
}

TEST(SharedPrefixWorkload, EachSpreadAndTheArrivalsDrawFromStreamsOfTheirOwn) {
  const WorkloadConfig base = spread_config();
  const SharedPrefixWorkload a(base, kSeed);
  WorkloadConfig other = base;
  other.shared_prefix.question.std_dev = 1;  // the questions change, nothing else
  other.arrival_rate_per_s = 5;              // and the arrivals
  const SharedPrefixWorkload b(other, kSeed);
  std::size_t questions_differ = 0;
  for (std::uint32_t g = 0; g < 6; ++g) EXPECT_EQ(a.group_length(g), b.group_length(g));
  for (std::size_t e = 0; e < a.pool_size(); ++e) {
    EXPECT_EQ(a.entry(e).output_len, b.entry(e).output_len);
    EXPECT_EQ(a.entry(e).question_seed, b.entry(e).question_seed);
    questions_differ += a.entry(e).question_len != b.entry(e).question_len ? 1 : 0;
  }
  EXPECT_GT(questions_differ, 10u);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.request(i).entry, b.request(i).entry) << "the order is its own stream";
    // Ten times slower arrivals, from the same exponential draws (each gap
    // rounded to a tick).
    EXPECT_NEAR(static_cast<double>(b.arrival(i)), 10.0 * static_cast<double>(a.arrival(i)), 11.0 * (i + 1));
  }
}

TEST(SharedPrefixWorkload, ArrivalsArePoissonAtTheArrivalRate) {
  WorkloadConfig config = fixed_config();
  config.requests = 20'000;
  const SharedPrefixWorkload w(config, kSeed);
  for (std::size_t i = 1; i < w.size(); ++i) ASSERT_GE(w.arrival(i), w.arrival(i - 1));
  const double n = static_cast<double>(w.size());
  EXPECT_NEAR(static_cast<double>(w.arrival(w.size() - 1)) / 1e9 / n, 1.0 / 50, 5.0 / 50 / std::sqrt(n));
}

TEST(SharedPrefixWorkload, MultiTurnRoundsCarryTheSessionsHistoryExactly) {
  WorkloadConfig config = spread_config();
  config.shared_prefix.multi_turn = true;
  config.requests = 4 * 30 + 11;
  const SharedPrefixWorkload w(config, kSeed);
  EXPECT_TRUE(w.has_sessions());
  std::map<std::uint32_t, std::vector<std::size_t>> rounds;  // entry -> its requests in order
  for (std::size_t i = 0; i < w.size(); ++i) {
    const std::uint32_t e = w.request(i).entry;
    EXPECT_EQ(w.session(i), e);
    EXPECT_EQ(w.turn(i), rounds[e].size()) << "request " << i << " is its session's next round";
    rounds[e].push_back(i);
  }
  for (const auto& [e, requests] : rounds) {
    const auto& entry = w.entry(e);
    const std::uint64_t system = w.group_length(entry.group);
    for (std::size_t r = 0; r < requests.size(); ++r) {
      const std::size_t i = requests[r];
      EXPECT_EQ(w.prompt_tokens(i), system + (r + 1) * entry.question_len + r * entry.output_len);
      EXPECT_EQ(pieces_of(w, i).size(), (system > 0 ? 1 : 0) + r * (entry.output_len > 0 ? 2 : 1) + 1);
      if (r == 0) continue;
      // Round r = round r-1 + its response (output_len tokens of their own) + the question again.
      const std::vector<Token> previous = tokens_of(w, requests[r - 1]);
      const std::vector<Token> current = tokens_of(w, i);
      ASSERT_EQ(current.size(), previous.size() + entry.output_len + entry.question_len);
      EXPECT_TRUE(std::equal(previous.begin(), previous.end(), current.begin()));
      const std::vector<Token> question(current.begin() + static_cast<std::ptrdiff_t>(system),
                                        current.begin() + static_cast<std::ptrdiff_t>(system + entry.question_len));
      EXPECT_TRUE(std::equal(question.begin(), question.end(), current.end() - entry.question_len))
          << "every round re-sends the entry's question";
    }
  }
  // Two sessions of one group share exactly the system prompt, of two groups nothing.
  const std::size_t last = w.size() - 1;
  for (std::size_t i = 0; i < last; ++i) {
    const std::uint32_t ga = w.entry(w.request(i).entry).group, gb = w.entry(w.request(last).entry).group;
    if (w.request(i).entry == w.request(last).entry) continue;
    EXPECT_EQ(common_prefix(tokens_of(w, i), tokens_of(w, last)), ga == gb ? w.group_length(ga) : 0u) << i;
  }
}

TEST(SharedPrefixWorkload, IdealHitRateIsEverySystemPromptAfterItsFirstAndEveryReSentPrompt) {
  // Two cycles, one unbounded cache: in the first each group's first prompt
  // prefills all 47 tokens and its four others hit the 40-token system
  // prompt; in the second every prompt hits whole.
  WorkloadConfig config = fixed_config();
  config.requests = 60;
  const SharedPrefixWorkload w(config, kSeed);
  const CacheBound ideal = ideal_bound(w);
  EXPECT_EQ(ideal.cached_tokens, 6u * 4u * 40u + 30u * 47u);
  EXPECT_EQ(ideal.prefill_tokens, 60u * 47u - ideal.cached_tokens);
}

TEST(SharedPrefixWorkload, NoPromptExceedsTheBoundsTheLimitsUse) {
  for (const bool multi : {false, true}) {
    WorkloadConfig config = spread_config();
    config.shared_prefix.multi_turn = multi;
    config.requests = 3 * 30 + 4;
    const SharedPrefixWorkload w(config, kSeed);
    double total = 0, pieces = 0, longest = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      total += static_cast<double>(w.prompt_tokens(i));
      longest = std::max(longest, static_cast<double>(w.prompt_tokens(i)));
      pieces += static_cast<double>(pieces_of(w, i).size());
    }
    EXPECT_LE(longest, SharedPrefixWorkload::max_prompt_tokens(config)) << multi;
    EXPECT_LE(total, SharedPrefixWorkload::max_total_prompt_tokens(config)) << multi;
    EXPECT_LE(pieces, SharedPrefixWorkload::max_total_pieces(config)) << multi;
    EXPECT_EQ(SharedPrefixWorkload::max_rounds(config), multi ? 4.0 : 1.0);
    EXPECT_EQ(synthetic_has_sessions(config), multi);
  }
  // Fixed lengths: the bounds are exact.
  WorkloadConfig config = fixed_config();
  config.shared_prefix.multi_turn = true;
  config.requests = 2 * 30 + 4;  // rounds 0 and 1 whole, 4 requests of round 2
  EXPECT_EQ(SharedPrefixWorkload::max_prompt_tokens(config), 40.0 + 3 * 7 + 2 * 12);
  EXPECT_EQ(SharedPrefixWorkload::max_total_prompt_tokens(config), 30.0 * 47 + 30.0 * 66 + 4.0 * 85);
  EXPECT_EQ(SharedPrefixWorkload::max_total_pieces(config), 30.0 * 2 + 30.0 * 4 + 4.0 * 6);
}

TEST(SharedPrefixWorkload, FingerprintOfAFixedConfigAndSeedIsGolden) {
  WorkloadConfig config = spread_config();
  config.shared_prefix.multi_turn = true;
  config.requests = 77;
  const SharedPrefixWorkload w(config, kSeed);
  EXPECT_EQ(w.fingerprint(), 8095316547983755307ULL);
  EXPECT_EQ(w.arrival(0), 88'952'750);
  EXPECT_EQ(w.request(0).entry, 22u);
  EXPECT_EQ(generate_synthetic(config, kSeed)->fingerprint(), w.fingerprint());
  EXPECT_NE(SharedPrefixWorkload(config, kSeed + 1).fingerprint(), w.fingerprint());
}

// ---------------------------------------------------------------------------
// vLLM's prefix_repetition

WorkloadConfig repetition_config() {
  WorkloadConfig w;
  w.kind = "prefix_repetition";
  w.requests = 37;  // 5 prefixes x 7 prompts; vLLM drops the other 2
  w.arrival_rate_per_s = 20.0;
  w.vocab_size = 4294967295u;
  w.prefix_repetition = PrefixRepetitionParams{30, 9, 5, 16};
  return w;
}

TEST(PrefixRepetition, DefaultsAreVllms) {
  const PrefixRepetitionParams p;
  EXPECT_EQ(p.prefix_len, 256u);
  EXPECT_EQ(p.suffix_len, 256u);
  EXPECT_EQ(p.num_prefixes, 10u);
  EXPECT_EQ(p.output_len, 128u);
}

TEST(PrefixRepetition, EachPrefixHasRequestsOverPrefixesPromptsWithSuffixesOfTheirOwn) {
  const SharedPrefixWorkload w(repetition_config(), kSeed);
  ASSERT_EQ(w.size(), 35u);
  EXPECT_EQ(SharedPrefixWorkload::requests(repetition_config()), 35.0);
  std::vector<int> per_prefix(5, 0);
  std::set<std::vector<Token>> prompts;
  for (std::size_t i = 0; i < w.size(); ++i) {
    ++per_prefix[w.entry(w.request(i).entry).group];
    EXPECT_EQ(w.prompt_tokens(i), 39u);
    EXPECT_EQ(w.output_tokens(i), 16u);
    prompts.insert(tokens_of(w, i));
  }
  for (int p = 0; p < 5; ++p) EXPECT_EQ(per_prefix[p], 7) << "prefix " << p;
  EXPECT_EQ(prompts.size(), 35u) << "every prompt is sent once, each suffix random";
}

TEST(PrefixRepetition, PromptsWithOnePrefixShareExactlyItAndOthersNothing) {
  const SharedPrefixWorkload w(repetition_config(), kSeed);
  for (std::size_t a = 0; a < w.size(); ++a)
    for (std::size_t b = a + 1; b < w.size(); ++b) {
      const bool same = w.entry(w.request(a).entry).group == w.entry(w.request(b).entry).group;
      EXPECT_EQ(common_prefix(tokens_of(w, a), tokens_of(w, b)), same ? 30u : 0u) << a << " and " << b;
    }
}

TEST(PrefixRepetition, IsSharedPrefixWithFixedLengthsAndOneShuffledCycle) {
  // The same construction: num_prefixes groups of requests / num_prefixes
  // prompts, shuffled, each sent once.
  WorkloadConfig shared = fixed_config();
  shared.requests = 35;
  shared.arrival_rate_per_s = 20.0;
  shared.shared_prefix.num_groups = 5;
  shared.shared_prefix.prompts_per_group = 7;
  shared.shared_prefix.system_prompt = LengthSpread{30, 0, 0, 1000000};
  shared.shared_prefix.question = LengthSpread{9, 0, 1, 1000000};
  shared.shared_prefix.output = LengthSpread{16, 0, 0, 1000000};
  EXPECT_EQ(SharedPrefixWorkload(shared, kSeed).fingerprint(), SharedPrefixWorkload(repetition_config(), kSeed).fingerprint());
  EXPECT_EQ(generate_synthetic(repetition_config(), kSeed)->fingerprint(),
            SharedPrefixWorkload(repetition_config(), kSeed).fingerprint());
}

}  // namespace
}  // namespace prefixroute::shared_prefix_workload_test
