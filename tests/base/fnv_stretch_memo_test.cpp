// FnvStretchMemo (core/include/prefixroute/base/fnv_stretch_memo.h): a
// stretch fed through the memo hashes exactly as feeding its tokens, whether
// its offset is learnt, reused, or not kept (slot taken, tables full); and a
// generated workload's fingerprint, which feeds its prompts' pieces through
// the memo, equals FNV-1a over every request's arrival, length and tokens.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "prefixroute/base/fnv_stretch_memo.h"
#include "prefixroute/base/hashing.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute::fnv_stretch_memo_test {
namespace {

using hashing::FnvStretchMemo;

std::vector<Token> random_tokens(std::mt19937_64& gen, std::size_t n, std::uint32_t largest) {
  std::vector<Token> tokens(n);
  for (auto& t : tokens) t = static_cast<Token>(gen() % (std::uint64_t{largest} + 1));
  return tokens;
}

/// Feeds `tokens` as stretch `key` from state `start` through `memo`; the
/// result must be feed_tokens'.
void expect_as_feeding(FnvStretchMemo& memo, const FnvStretchMemo::Key& key, const std::vector<Token>& tokens,
                       std::uint64_t start) {
  hashing::Fnv1a64 plain{start};
  plain.feed_tokens(tokens.data(), tokens.size());
  hashing::Fnv1a64 memoised{start};
  memo.feed(memoised, key, [&] { return tokens.data(); });
  ASSERT_EQ(memoised.value, plain.value) << "run " << key.run << " from " << start;
}

TEST(FnvStretchMemo, LearntOffsetsHashAsFeedingTheTokens) {
  // One stretch entered from every low byte many times over (most feedings
  // reuse a learnt offset), for tokens of each byte width.
  std::mt19937_64 gen(20261202);
  for (const std::uint32_t largest : {255u, 65535u, 16777215u, 4294967295u}) {
    FnvStretchMemo memo;
    const std::vector<Token> tokens = random_tokens(gen, 300, largest);
    const FnvStretchMemo::Key key{7, 11, 300};
    for (int i = 0; i < 3000; ++i) expect_as_feeding(memo, key, tokens, gen());
    EXPECT_EQ(memo.tables(), 1u);
  }
}

TEST(FnvStretchMemo, ReusesAnOffsetWithoutReadingTheTokens) {
  // Once the offset of a low byte is learnt, a state with the same low byte
  // (and any high bytes) is fed without the tokens: the callback is not
  // called, and the result is still feed_tokens'.
  std::mt19937_64 gen(3);
  const std::vector<Token> tokens = random_tokens(gen, 64, 32000);
  const FnvStretchMemo::Key key{1, 0, 64};
  FnvStretchMemo memo;
  for (int i = 0; i < 3; ++i) expect_as_feeding(memo, key, tokens, 0x1234'5678'9abc'de42ULL);  // learnt at the 3rd
  int reads = 0;
  for (const std::uint64_t high : {0ULL, 1ULL, 0xffff'ffff'ffffULL}) {
    const std::uint64_t start = (high << 8) | 0x42;
    hashing::Fnv1a64 plain{start};
    plain.feed_tokens(tokens.data(), tokens.size());
    hashing::Fnv1a64 memoised{start};
    memo.feed(memoised, key, [&] {
      ++reads;
      return tokens.data();
    });
    EXPECT_EQ(memoised.value, plain.value);
  }
  EXPECT_EQ(reads, 0);
}

TEST(FnvStretchMemo, StretchesItCannotFollowAreFedTokenByToken) {
  // More stretches than slots and tables, interleaved, each seen often:
  // some are remembered, the rest are fed token by token; every feeding is
  // exact, and the tables stop at their cap.
  std::mt19937_64 gen(11);
  std::vector<std::vector<Token>> stretches;
  for (int s = 0; s < 2000; ++s) stretches.push_back(random_tokens(gen, 32 + gen() % 64, 32000));
  FnvStretchMemo memo;
  for (int round = 0; round < 5; ++round) {
    for (std::size_t s = 0; s < stretches.size(); ++s) {
      const FnvStretchMemo::Key key{s, 0, static_cast<std::uint32_t>(stretches[s].size())};
      expect_as_feeding(memo, key, stretches[s], gen());
    }
  }
  EXPECT_EQ(memo.tables(), FnvStretchMemo::kMaxTables);
}

TEST(FnvStretchMemo, AWorkloadsFingerprintIsFnvOverEveryRequestsTokens) {
  // Tenants' prefixes are shared by hundreds of prompts (remembered); turns
  // are one-offs (fed token by token); prefixes shorter than the memo's
  // minimum too. The fingerprint as its definition states it: arrival,
  // prompt length, every prompt token.
  WorkloadConfig w;
  w.requests = 3000;
  w.tenants = 5;
  w.prefix_tokens_min = 10;
  w.prefix_tokens_max = 400;
  w.turn_tokens_min = 20;
  w.turn_tokens_max = 60;
  for (const std::uint64_t seed : {1u, 2u}) {
    const Workload workload = generate_workload(w, seed);
    hashing::Fnv1a64 h;
    std::vector<Token> tokens;
    for (std::size_t i = 0; i < workload.size(); ++i) {
      h.feed(static_cast<std::uint64_t>(workload.arrival(i)));
      workload.materialize(i, tokens);
      h.feed(tokens.size());
      for (const Token t : tokens) h.feed(t);
    }
    EXPECT_EQ(workload.fingerprint(), h.value) << "seed " << seed;
  }
}

}  // namespace
}  // namespace prefixroute::fnv_stretch_memo_test
