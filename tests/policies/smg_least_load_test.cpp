// SmgExpectedWait (smg_least_load, smg_power_of_two): the expected-wait
// score on crafted polls, the KV barrier's clamp, the since-poll tally and
// its reset, what a poll reads and when, reservoir ties, the seeded pair.
// One rule per test.
#include "prefixroute/policies/smg_least_load.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "prefixroute/policies/catalogue.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::smg_least_load_test {
namespace {

using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::run_of;
using testsupport::Tokens;
using Candidates = SmgExpectedWait::Candidates;

constexpr double kRate = 1000.0;  // prefill tokens/s: a token per millisecond
const PrefillModel kPrefill{kRate};
constexpr Tick kSec = kTicksPerSecond;

SmgLeastLoadParams defaults() { return SmgLeastLoadParams{}; }

SmgExpectedWait least_load(std::uint64_t seed = 1, SmgLeastLoadParams p = defaults()) {
  return SmgExpectedWait(p, Candidates::All, seed, kRate);
}

// Queues `tokens[i]` uncached tokens on replica i at time 0 (as one request,
// or none for 0), then scrapes every replica at 0.
std::vector<Replica> with_queued(const std::vector<std::size_t>& tokens, std::size_t cache_tokens = 100'000) {
  auto replicas = make_replicas(tokens.size(), cache_tokens);
  Token next = 100'000;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] > 0) replicas[i].admit(run_of(next, tokens[i]), 0, kPrefill);
    next += 100'000;
    replicas[i].scrape(0, 0);
  }
  return replicas;
}

TEST(SmgLeastLoad, ScoreIsQueuedTokensOverThroughputPlusTheKvBarrier) {
  // 400 and 100 queued tokens in caches of 1000: usage 0.4 and 0.1.
  auto replicas = with_queued({400, 100}, 1000);
  auto policy = least_load();
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_EQ(policy.polled_queued_tokens(0), 400.0);
  // Replica 0 took no tally (the request went to 1).
  EXPECT_DOUBLE_EQ(policy.score(0), 400.0 / 2000.0 + 0.15 * 0.4 / 0.6);
  EXPECT_DOUBLE_EQ(policy.score(1), (100.0 + 8.0) / 2000.0 + 0.15 * 0.1 / 0.9);
}

TEST(SmgLeastLoad, KvUsageIsClampedAt0999) {
  auto replicas = make_replicas(2, /*cache_tokens=*/100);
  // 80 pinned prompt tokens plus 50 reserved outputs: usage 1.3.
  replicas[0].admit_with_decode(prompt_of(run_of(1000, 80)), 0, kPrefill, 50, kTicksPerMillisecond);
  replicas[0].scrape(0, 0);
  replicas[1].scrape(0, 0);
  ASSERT_GT(replicas[0].scraped().kv_usage, 1.0);
  auto policy = least_load();
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 1u);
  EXPECT_DOUBLE_EQ(policy.score(0), 80.0 / 2000.0 + 0.15 * 0.999 / (1.0 - 0.999));
}

TEST(SmgLeastLoad, SincePollTallyCreditsTheChosenReplicasPromptTokens) {
  auto replicas = with_queued({0, 0});
  auto policy = least_load();
  const std::size_t first = policy.choose(prompt_of(run_of(1, 300)), replicas, 0);
  EXPECT_EQ(policy.since_poll_tokens(first), 300u);
  // The tally alone separates two idle replicas: the next request goes to the other.
  const std::size_t second = policy.choose(prompt_of(run_of(1000, 10)), replicas, 1);
  EXPECT_NE(second, first);
  EXPECT_EQ(policy.since_poll_tokens(second), 10u);
}

TEST(SmgLeastLoad, TheTallyResetsAtEachPoll) {
  auto replicas = with_queued({0, 0});
  auto policy = least_load();
  policy.choose(prompt_of(run_of(1, 300)), replicas, 0);
  policy.choose(prompt_of(run_of(1, 300)), replicas, 9 * kSec);
  EXPECT_EQ(policy.last_poll(), 0);
  EXPECT_EQ(policy.since_poll_tokens(0) + policy.since_poll_tokens(1), 600u);
  const std::size_t r = policy.choose(prompt_of(run_of(1, 5)), replicas, 10 * kSec);  // poll at 10 s
  EXPECT_EQ(policy.last_poll(), 10 * kSec);
  EXPECT_EQ(policy.since_poll_tokens(r), 5u);
  EXPECT_EQ(policy.since_poll_tokens(1 - r), 0u);
}

TEST(SmgLeastLoad, APollReadsTheQueueAtItsBoundaryNotAtTheArrival) {
  // 12,000 tokens queued at 0 on replica 0: busy until 12 s.
  auto replicas = with_queued({12'000, 0});
  auto policy = least_load();
  policy.choose(prompt_of(run_of(1, 8)), replicas, 11 * kSec);  // first arrival after the 10 s boundary
  EXPECT_EQ(policy.last_poll(), 10 * kSec);
  EXPECT_DOUBLE_EQ(policy.polled_queued_tokens(0), 2000.0);  // 2 s of work left at 10 s, not 1 s
}

TEST(SmgLeastLoad, BetweenPollsTheEngineIsNotRead) {
  auto replicas = with_queued({0, 0});
  auto policy = least_load();
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  replicas[1].admit(run_of(50'000, 5000), 0, kPrefill);  // 5 s of work on replica 1 after the poll
  replicas[1].scrape(1, 0);
  const double before = policy.score(1);
  policy.choose(prompt_of(run_of(2, 8)), replicas, kSec);
  EXPECT_EQ(policy.polled_queued_tokens(1), 0.0);
  EXPECT_LE(policy.score(1) - before, 8.0 / 2000.0);  // at most this request's own tally
}

TEST(SmgLeastLoad, WaitingRequestsModeCountsScrapedDepthTimesMeanPrefill) {
  auto replicas = make_replicas(2, 100'000);
  for (Token k = 0; k < 3; ++k) replicas[0].admit(run_of(10'000 + 100 * k, 10), 0, kPrefill);  // 2 waiting
  replicas[0].scrape(0, 0);
  replicas[1].scrape(0, 0);
  SmgLeastLoadParams p;
  p.queued_tokens = SmgQueuedTokens::WaitingRequests;
  auto policy = least_load(1, p);
  policy.choose(prompt_of(run_of(1, 8)), replicas, 0);
  EXPECT_EQ(policy.polled_queued_tokens(0), 2.0 * 1024);
}

TEST(SmgLeastLoad, TiesGoToReservoirSamplingSeeded) {
  auto replicas = with_queued({0, 0, 0});
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    auto a = least_load(seed), b = least_load(seed);
    const std::size_t r = a.choose(prompt_of(run_of(1, 8)), replicas, 0);
    EXPECT_EQ(r, b.choose(prompt_of(run_of(1, 8)), replicas, 0));
    seen.insert(r);
  }
  EXPECT_EQ(seen.size(), 3u);  // the last tied replica is reachable too, not only the first
}

TEST(SmgLeastLoad, OneReplicaIsChosenWithoutATally) {
  auto replicas = with_queued({0});
  auto policy = least_load();
  EXPECT_EQ(policy.choose(prompt_of(run_of(1, 8)), replicas, 0), 0u);
  EXPECT_EQ(policy.since_poll_tokens(0), 0u);
}

// The least_load choice recomputed from scratch on random states: every
// replica's score from the poll's scraped depth and KV usage and a tally kept
// here, then smg's argmin scan in replica order with reservoir ties, drawing
// from a generator seeded as the policy's. Depths, usages and prompt sizes
// take few values, so scores tie often (and the policy must take exactly the
// scan's draws) and the running least falls often; polls come every few
// requests.
void check_least_load_against_scan(std::size_t n, std::uint64_t seed) {
  SmgLeastLoadParams p;
  p.queued_tokens = SmgQueuedTokens::WaitingRequests;
  p.mean_prefill_tokens = 2;
  p.throughput_tokens_per_s = 4;
  p.poll_period_s = 1;
  auto policy = least_load(seed, p);
  Rng model_rng(mix_seed(seed, 0x736d676c6cULL));  // the policy's stream ("smgll")
  auto replicas = make_replicas(n);
  std::vector<std::uint64_t> tally(n, 0);
  std::vector<double> polled_queue(n, 0), polled_kv(n, 0);
  Rng rng(seed + 100);
  Tick now = 0, polled_at = -1;
  for (int step = 0; step < 400; ++step) {
    now += static_cast<Tick>(rng.uniform_int(0, 300)) * kTicksPerMillisecond;
    if (step % 3 == 0) {  // a scrape the next poll may read
      for (Replica& r : replicas) {
        EngineMetrics m;
        m.queue_length = static_cast<std::uint32_t>(rng.uniform_int(0, 2));
        m.kv_usage = static_cast<double>(rng.uniform_int(0, 2)) / 4;
        r.set_scraped(m);
      }
    }
    const Tick boundary = (now / kSec) * kSec;
    if (polled_at < boundary) {
      polled_at = boundary;
      std::fill(tally.begin(), tally.end(), 0);
      for (std::size_t r = 0; r < n; ++r) {
        polled_queue[r] = static_cast<double>(replicas[r].scraped().queue_length) * p.mean_prefill_tokens;
        polled_kv[r] = replicas[r].scraped().kv_usage;
      }
    }
    const Tokens prompt = run_of(1, rng.uniform_int(0, 3));
    const std::size_t chosen = policy.choose(prompt_of(prompt), replicas, now);

    std::size_t expected = 0;
    if (n > 1) {
      const auto score = [&](std::size_t r) {
        return (polled_queue[r] + static_cast<double>(tally[r])) / p.throughput_tokens_per_s +
               p.kv_pressure_weight_s * polled_kv[r] / (1.0 - polled_kv[r]);
      };
      double best = score(0);
      std::uint64_t tied = 1;
      for (std::size_t r = 1; r < n; ++r) {
        const double s = score(r);
        if (s < best) {
          expected = r;
          best = s;
          tied = 1;
        } else if (s == best) {
          ++tied;
          if (model_rng.below(tied) == 0) expected = r;
        }
      }
      tally[expected] += prompt.size();
    }
    ASSERT_EQ(chosen, expected) << n << " replicas, step " << step;
  }
}

TEST(SmgLeastLoad, ChoiceIsTheScansLeastScoreWithReservoirTies) {
  check_least_load_against_scan(1, 1);
  check_least_load_against_scan(3, 2);
  check_least_load_against_scan(5, 3);
  check_least_load_against_scan(70, 4);
}

TEST(SmgPowerOfTwo, ScoresTwoDistinctSeededReplicas) {
  auto replicas = with_queued({0, 0, 0, 0});
  SmgExpectedWait a(defaults(), Candidates::PowerOfTwo, 5, kRate), b(defaults(), Candidates::PowerOfTwo, 5, kRate);
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (int i = 0; i < 200; ++i) {
    a.choose(prompt_of(run_of(1, 8)), replicas, 0);
    b.choose(prompt_of(run_of(1, 8)), replicas, 0);
    const auto& c = a.last_candidates();
    ASSERT_EQ(c.size(), 2u);
    EXPECT_NE(c[0], c[1]);
    EXPECT_EQ(c, b.last_candidates());
    pairs.insert({c[0], c[1]});
  }
  EXPECT_EQ(pairs.size(), 12u);  // every ordered pair of distinct replicas occurs
}

TEST(SmgPowerOfTwo, PicksTheLowerExpectedWaitOfThePair) {
  auto replicas = with_queued({50'000, 0, 0, 0});  // replica 0 is far behind
  SmgExpectedWait policy(defaults(), Candidates::PowerOfTwo, 9, kRate);
  int zero_drawn = 0;
  for (int i = 0; i < 100; ++i) {
    const std::size_t r = policy.choose(prompt_of(run_of(1, 1)), replicas, 0);
    const auto& c = policy.last_candidates();
    EXPECT_TRUE(r == c[0] || r == c[1]);
    EXPECT_NE(r, 0u);
    if (c[0] == 0 || c[1] == 0) ++zero_drawn;
  }
  EXPECT_GT(zero_drawn, 0);  // replica 0 was in pairs and lost each time
}

TEST(SmgPowerOfTwo, IsCataloguedWithLeastLoadsParameters) {
  const PolicySpec* p2 = find_policy("smg_power_of_two");
  const PolicySpec* ll = find_policy("smg_least_load");
  ASSERT_NE(p2, nullptr);
  ASSERT_NE(ll, nullptr);
  ASSERT_EQ(p2->params.size(), ll->params.size());
  for (std::size_t i = 0; i < ll->params.size(); ++i) EXPECT_EQ(p2->params[i].key, ll->params[i].key);
  EXPECT_EQ(ll->defaults, (std::vector<double>{0.15, 2000, 10, 1024, 0}));
}

}  // namespace
}  // namespace prefixroute::smg_least_load_test
