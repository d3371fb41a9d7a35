// RandomChoice (`random`): uniform over replicas, seeded, blind to every
// signal. One rule per test.
#include "prefixroute/policies/random.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "replicas.h"
#include "tokens.h"

namespace prefixroute::random_test {
namespace {

using testsupport::cache_prefix;
using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::run_of;
using testsupport::set_in_flight;

const PrefillModel kPrefill{1000.0};

std::vector<std::size_t> choices(RandomChoice& policy, const std::vector<Replica>& replicas, std::size_t k) {
  std::vector<std::size_t> out;
  const auto prompt = prompt_of(run_of(1, 32));
  for (std::size_t i = 0; i < k; ++i) out.push_back(policy.choose(prompt, replicas, 0));
  return out;
}

TEST(RandomChoice, DrawsEachReplicaAboutEquallyOften) {
  auto replicas = make_replicas(4);
  RandomChoice policy(7);
  std::vector<int> count(4, 0);
  for (const std::size_t r : choices(policy, replicas, 8000)) ++count[r];
  // Binomial(8000, 1/4): mean 2000, sd ~39; +-200 is over 5 sd.
  for (const int c : count) {
    EXPECT_GT(c, 1800);
    EXPECT_LT(c, 2200);
  }
}

TEST(RandomChoice, ReadsNeitherLoadNorCache) {
  auto idle = make_replicas(3);
  auto busy = make_replicas(3);
  cache_prefix(busy, 2, run_of(1, 32), 32, kPrefill);  // the prompt is cached on replica 2
  set_in_flight(busy, {50, 0, 9});
  RandomChoice a(11), b(11);
  EXPECT_EQ(choices(a, idle, 200), choices(b, busy, 200));
}

TEST(RandomChoice, TheSeedDecidesTheSequence) {
  auto replicas = make_replicas(5);
  RandomChoice a(3), b(3), c(4);
  const auto first = choices(a, replicas, 100);
  EXPECT_EQ(first, choices(b, replicas, 100));
  EXPECT_NE(first, choices(c, replicas, 100));
}

}  // namespace
}  // namespace prefixroute::random_test
