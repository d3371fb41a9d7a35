// SGLang's generated-shared-prefix workload (kind "gsp"): its group
// structure, the shuffle, Poisson arrivals, the ideal hit rate computed by
// hand, and a golden fingerprint (computed once by running the code).
#include "prefixroute/workload/gsp_workload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/workload/synthetic.h"

namespace prefixroute::gsp_workload_test {
namespace {

WorkloadConfig gsp_config() {
  WorkloadConfig w;
  w.kind = "gsp";
  w.arrival_rate_per_s = 50.0;
  w.vocab_size = 4294967295u;  // first tokens of different runs practically never collide
  w.gsp = GspParams{6, 5, 40, 7, 12};
  return w;
}
constexpr std::uint64_t kSeed = 7;

TEST(GspWorkload, SglangDefaults) {
  const GspParams p;
  EXPECT_EQ(p.num_groups, 64u);
  EXPECT_EQ(p.prompts_per_group, 16u);
  EXPECT_EQ(p.system_prompt_len, 2048u);
  EXPECT_EQ(p.question_len, 128u);
  EXPECT_EQ(p.output_len, 256u);
}

TEST(GspWorkload, EveryGroupHasItsPromptsEachPromptItsSystemPromptThenItsQuestion) {
  const GspWorkload w(gsp_config(), kSeed);
  ASSERT_EQ(w.size(), 30u);
  std::vector<int> per_group(6, 0);
  std::set<std::uint32_t> questions;
  for (std::size_t i = 0; i < w.size(); ++i) {
    const GspWorkload::Entry& e = w.entry(i);
    ASSERT_LT(e.group, 6u);
    ++per_group[e.group];
    EXPECT_EQ(e.group, e.question / 5) << "question " << e.question << " belongs to group question / 5";
    questions.insert(e.question);
    EXPECT_EQ(w.session(i), e.question);
    EXPECT_EQ(w.turn(i), 0u);
    EXPECT_EQ(w.prompt_tokens(i), 47u);
    EXPECT_EQ(w.output_tokens(i), 12u);
    PromptPieces p;
    w.prompt(i, p);
    const std::vector<Piece> expected = {{e.group, 0, 40}, {GspWorkload::kQuestionRun + e.question, 0, 7}};
    EXPECT_EQ(p.pieces, expected);
  }
  for (int g = 0; g < 6; ++g) EXPECT_EQ(per_group[g], 5) << "group " << g;
  EXPECT_EQ(questions.size(), 30u);
}

TEST(GspWorkload, PromptsShareExactlyTheirGroupsSystemPrompt) {
  const GspWorkload w(gsp_config(), kSeed);
  std::vector<std::vector<Token>> tokens(w.size());
  for (std::size_t i = 0; i < w.size(); ++i) w.materialize(i, tokens[i]);
  for (std::size_t a = 0; a < w.size(); ++a)
    for (std::size_t b = a + 1; b < w.size(); ++b) {
      std::size_t common = 0;
      while (common < tokens[a].size() && tokens[a][common] == tokens[b][common]) ++common;
      EXPECT_EQ(common, w.group(a) == w.group(b) ? 40u : 0u) << a << " and " << b;
    }
}

TEST(GspWorkload, RequestsAreShuffled) {
  // Not in generation order (group by group), but every (group, question) once.
  const GspWorkload w(gsp_config(), kSeed);
  std::size_t in_order = 0;
  for (std::size_t i = 0; i < w.size(); ++i) in_order += w.entry(i).question == i ? 1 : 0;
  EXPECT_LT(in_order, 5u);
  // Another seed, another order.
  const GspWorkload other(gsp_config(), kSeed + 1);
  std::size_t same = 0;
  for (std::size_t i = 0; i < w.size(); ++i) same += w.entry(i).question == other.entry(i).question ? 1 : 0;
  EXPECT_LT(same, 5u);
}

TEST(GspWorkload, ArrivalsArePoissonAtTheArrivalRate) {
  WorkloadConfig config = gsp_config();
  config.gsp.num_groups = 100;
  config.gsp.prompts_per_group = 200;
  config.gsp.system_prompt_len = 1;
  const GspWorkload w(config, kSeed);
  Tick previous = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    ASSERT_GE(w.arrival(i), previous) << "request " << i;
    previous = w.arrival(i);
  }
  const double n = static_cast<double>(w.size());
  EXPECT_NEAR(static_cast<double>(w.arrival(w.size() - 1)) / 1e9 / n, 1.0 / 50, 5.0 / 50 / std::sqrt(n));
}

TEST(GspWorkload, IdealHitRateIsEveryRepeatedSystemPrompt) {
  // One unbounded cache: each group's first request prefills everything, the
  // other four hit its 40-token system prompt. 6 x 4 x 40 of 30 x 47 tokens.
  const GspWorkload w(gsp_config(), kSeed);
  const CacheBound ideal = ideal_bound(w);
  EXPECT_EQ(ideal.cached_tokens, 6u * 4u * 40u);
  EXPECT_EQ(ideal.prefill_tokens, 30u * 47u - 6u * 4u * 40u);
}

TEST(GspWorkload, AnEmptySystemPromptLeavesOnlyTheQuestion) {
  WorkloadConfig config = gsp_config();
  config.gsp.system_prompt_len = 0;
  const GspWorkload w(config, kSeed);
  PromptPieces p;
  w.prompt(0, p);
  ASSERT_EQ(p.pieces.size(), 1u);
  EXPECT_EQ(p.length, 7u);
}

TEST(GspWorkload, FingerprintOfAFixedConfigAndSeedIsGolden) {
  const GspWorkload w(gsp_config(), kSeed);
  EXPECT_EQ(w.fingerprint(), 0xb5e08aac0fc8edb4ULL);
  EXPECT_EQ(w.arrival(0), 72'671'252);
  EXPECT_EQ(w.entry(0).question, 6u);
  EXPECT_EQ(generate_synthetic(gsp_config(), kSeed)->fingerprint(), w.fingerprint());
  EXPECT_NE(GspWorkload(gsp_config(), kSeed + 1).fingerprint(), w.fingerprint());
}

TEST(GspWorkload, RequestsAreGroupsTimesPromptsPerGroupWhateverWorkloadRequestsSays) {
  WorkloadConfig config = gsp_config();
  config.requests = 12345;
  EXPECT_EQ(synthetic_bounds(config).requests, 30.0);
  EXPECT_EQ(GspWorkload(config, kSeed).size(), 30u);
}

}  // namespace
}  // namespace prefixroute::gsp_workload_test
