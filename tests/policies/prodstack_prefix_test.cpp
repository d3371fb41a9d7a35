// ProdstackPrefix (vLLM production-stack prefixaware): the longest match in
// whole chunks over the router's own never-evicting trie, the candidates
// (longest match, or everyone), the seeded uniform pick, the partial last
// chunk. One rule per test.
#include "prefixroute/policies/prodstack_prefix.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "replicas.h"
#include "tokens.h"

namespace prefixroute {
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

}  // namespace
}  // namespace prefixroute
