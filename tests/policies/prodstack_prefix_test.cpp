// ProdstackPrefix (vLLM production-stack prefixaware): the longest match in
// whole chunks over the router's own never-evicting trie, the candidates
// (longest match, or everyone), the seeded uniform pick, the partial last
// chunk. One rule per test.
#include "prefixroute/policies/prodstack_prefix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "prefixroute/base/random.h"

#include "replicas.h"
#include "tokens.h"

namespace prefixroute::prodstack_prefix_test {
namespace {

using testsupport::cache_prefix;
using testsupport::concat;
using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::record_routed;
using testsupport::run_of;
using testsupport::Tokens;

const PrefillModel kPrefill{1000.0};

ProdstackPrefixParams chunks(std::uint32_t c) {
  ProdstackPrefixParams p;
  p.chunk_tokens = c;
  return p;
}

TEST(ProdstackPrefix, TheLongestChunkMatchWins) {
  auto replicas = make_replicas(3);
  ProdstackPrefix policy(chunks(128), 1);
  const Tokens prompt = run_of(1, 400);
  record_routed(policy, 1, 0, concat(run_of(1, 256), run_of(9000, 10)));  // 2 chunks
  record_routed(policy, 2, 1, concat(run_of(1, 128), run_of(8000, 10)));  // 1 chunk
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::size_t>{0}));
  EXPECT_EQ(policy.last_chunks(), 2u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 256);
}

TEST(ProdstackPrefix, MatchesCountWholeChunksOnly) {
  auto replicas = make_replicas(3);
  ProdstackPrefix policy(chunks(128), 1);
  record_routed(policy, 1, 0, concat(run_of(1, 200), run_of(9000, 10)));  // 200 tokens: 1 chunk
  record_routed(policy, 2, 1, concat(run_of(1, 150), run_of(8000, 10)));  // 150 tokens: 1 chunk
  policy.choose(prompt_of(run_of(1, 400)), replicas, 0);
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::size_t>{0, 1}));
}

TEST(ProdstackPrefix, WithoutAnyMatchEveryReplicaIsACandidate) {
  auto replicas = make_replicas(3);
  ProdstackPrefix policy(chunks(128), 1);
  record_routed(policy, 1, 0, concat(run_of(1, 100), run_of(9000, 100)));  // under one chunk
  policy.choose(prompt_of(run_of(1, 400)), replicas, 0);
  EXPECT_EQ(policy.last_candidates(), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(policy.predicted_cached_tokens(), 0);
}

TEST(ProdstackPrefix, CandidatesDrawUniformlySeeded) {
  auto replicas = make_replicas(3);
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    ProdstackPrefix a(chunks(128), seed), b(chunks(128), seed);
    const std::size_t r = a.choose(prompt_of(run_of(1, 300)), replicas, 0);
    EXPECT_EQ(r, b.choose(prompt_of(run_of(1, 300)), replicas, 0));
    seen.insert(r);
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(ProdstackPrefix, ThePartialLastChunkCountsWhenTheWholePromptWasRoutedThere) {
  auto replicas = make_replicas(2);
  ProdstackPrefix policy(chunks(128), 1);
  const Tokens prompt = run_of(1, 300);                        // chunks 128, 128, 44
  record_routed(policy, 1, 0, prompt);                          // the same prompt: 3 chunks
  record_routed(policy, 2, 1, concat(run_of(1, 256), run_of(9000, 44)));  // 2 chunks
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_chunks(), 3u);
  EXPECT_EQ(policy.predicted_cached_tokens(), 300);
}

TEST(ProdstackPrefix, TheTrieIsTheRoutersOwnAndNeverEvicts) {
  auto replicas = make_replicas(2, /*cache_tokens=*/200);
  const Tokens prompt = run_of(1, 256);
  cache_prefix(replicas, 1, prompt, 200, kPrefill);  // the engine of r1 holds most of it: unseen
  ProdstackPrefix policy(chunks(128), 1);
  record_routed(policy, 1, 0, prompt);
  for (std::uint64_t k = 0; k < 200; ++k) record_routed(policy, 2 + k, 0, run_of(100'000 + 1000 * k, 256));
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), 0u);
  EXPECT_EQ(policy.last_chunks(), 2u);
}

TEST(ProdstackPrefix, TheChoiceIsInsertedForTheChosenReplica) {
  auto replicas = make_replicas(2);
  ProdstackPrefix policy(chunks(128), 3);
  const Tokens prompt = run_of(1, 256);
  const std::size_t first = policy.choose(prompt_of(prompt), replicas, 0);
  policy.on_routed(RoutedRequest{1, first, prompt_of(prompt), 0, 0});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), first);
}

// The rule recomputed from scratch: each replica's match is its longest
// common prefix with the prompts routed to it, in chunks (the partial last
// chunk when it covers the whole prompt); the candidates are the replicas at
// the longest, in index order (every replica when it is 0); one draw from a
// generator seeded as the policy's, only when several remain. Prompts come
// from few stems and tails so matches and ties are frequent; some choices
// are routed elsewhere, so holders spread.
void check_choice_against_model(std::size_t n, std::uint64_t seed) {
  const std::size_t chunk = 4;
  ProdstackPrefix policy(chunks(chunk), seed);
  Rng model_rng(mix_seed(seed, 0x70737461636bULL));  // the policy's stream ("pstack")
  std::vector<std::vector<Tokens>> routed(n);
  auto replicas = make_replicas(n);
  Rng rng(seed + 100);
  for (int step = 0; step < 400; ++step) {
    const Token stem = static_cast<Token>(rng.uniform_int(0, 4)) * 1000;
    Tokens prompt = run_of(stem, rng.uniform_int(0, 10));
    const Tokens tail = run_of(static_cast<Token>(100'000 + rng.uniform_int(0, 20) * 50), rng.uniform_int(0, 9));
    prompt.insert(prompt.end(), tail.begin(), tail.end());
    const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, 0);

    std::vector<std::size_t> matched_chunks(n, 0);
    for (std::size_t r = 0; r < n; ++r) {
      std::size_t m = 0;
      for (const Tokens& t : routed[r]) {
        std::size_t k = 0;
        while (k < t.size() && k < prompt.size() && t[k] == prompt[k]) ++k;
        m = std::max(m, k);
      }
      matched_chunks[r] = m / chunk + (prompt.size() % chunk != 0 && m == prompt.size() ? 1 : 0);
    }
    const std::size_t best = *std::max_element(matched_chunks.begin(), matched_chunks.end());
    std::vector<std::size_t> candidates;
    for (std::size_t r = 0; r < n; ++r)
      if (matched_chunks[r] == best) candidates.push_back(r);
    const std::size_t expected =
        candidates.size() == 1 ? candidates.front() : candidates[static_cast<std::size_t>(model_rng.below(candidates.size()))];
    ASSERT_EQ(policy.last_chunks(), best) << "step " << step;
    ASSERT_EQ(policy.last_candidates(), candidates) << "step " << step;
    ASSERT_EQ(chosen, expected) << "step " << step;

    const std::size_t target = rng.uniform_int(0, 3) == 0 ? static_cast<std::size_t>(rng.uniform_int(0, n - 1)) : chosen;
    record_routed(policy, static_cast<std::uint64_t>(step), target, prompt);
    routed[target].push_back(prompt);
  }
}

TEST(ProdstackPrefix, ChoiceIsTheSeededDrawAmongTheLongestChunkMatches) {
  check_choice_against_model(1, 1);
  check_choice_against_model(3, 2);
  check_choice_against_model(5, 3);
  check_choice_against_model(70, 4);
}

}  // namespace
}  // namespace prefixroute::prodstack_prefix_test
