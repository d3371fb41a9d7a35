// Chwbl: the ring walk (a key lands on its owner when nothing is loaded; an
// overloaded owner is skipped for the next replica on the ring), the load
// bound at its boundary and the fallback to the first replica seen.
#include "prefixroute/policies/chwbl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::chwbl_test {
namespace {

using testsupport::make_replicas;  // caches of 1000 tokens
using testsupport::run_of;
using testsupport::set_in_flight;
using testsupport::Tokens;
using testsupport::prompt_of;

ChwblParams params(double load_factor, std::uint32_t key_tokens = 100, std::uint32_t vnodes = 256) {
  ChwblParams p;
  p.load_factor = load_factor;
  p.key_tokens = key_tokens;
  p.virtual_nodes = vnodes;
  return p;
}

// The replicas in the order a clockwise walk from the prompt's key meets them,
// worked out without a sorted ring: a replica's distance is the least
// (point - key) mod 2^64 over its points.
std::vector<std::size_t> ring_order(const Tokens& prompt, const ChwblParams& p, std::size_t n) {
  const std::uint64_t key = Chwbl::key_hash(prompt, p.key_tokens);
  std::vector<std::pair<std::uint64_t, std::size_t>> nearest;
  for (std::size_t r = 0; r < n; ++r) {
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    for (std::uint32_t i = 0; i < p.virtual_nodes; ++i)
      best = std::min(best, Chwbl::point_hash(static_cast<std::uint32_t>(r), i) - key);
    nearest.emplace_back(best, r);
  }
  std::sort(nearest.begin(), nearest.end());
  std::vector<std::size_t> order;
  for (const auto& e : nearest) order.push_back(e.second);
  return order;
}

TEST(Chwbl, UnloadedKeyLandsOnTheFirstReplicaClockwise) {
  auto replicas = make_replicas(5);
  const ChwblParams p = params(1.25);
  Chwbl policy(p);
  std::vector<int> owners(5, 0);
  for (Token t = 0; t < 200; ++t) {
    const Tokens prompt = run_of(1000 * t, 120);
    const std::size_t expected = ring_order(prompt, p, 5).front();
    EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), expected) << "prompt " << t;
    ++owners[expected];
  }
  for (int c : owners) EXPECT_GT(c, 10);  // keys spread over the ring
}

TEST(Chwbl, OnlyTheFirstKeyTokensChooseTheReplica) {
  auto replicas = make_replicas(8);
  Chwbl policy(params(1.25, /*key_tokens=*/10));
  const Tokens a = run_of(1, 40);
  Tokens b = a;
  for (std::size_t i = 10; i < b.size(); ++i) b[i] += 5000;  // differs after the key
  EXPECT_EQ(policy.choose(prompt_of(a), replicas, 0), policy.choose(prompt_of(b), replicas, 0));
  EXPECT_EQ(Chwbl::key_hash(a, 10), Chwbl::key_hash(b, 10));
  EXPECT_NE(Chwbl::key_hash(a, 11), Chwbl::key_hash(b, 11));
  // A prompt shorter than the key is hashed whole.
  EXPECT_EQ(Chwbl::key_hash(run_of(1, 5), 10), Chwbl::key_hash(run_of(1, 5), 5));
}

TEST(Chwbl, OverloadedOwnerIsSkippedForTheNextOnTheRing) {
  auto replicas = make_replicas(4);
  const ChwblParams p = params(1.25);
  Chwbl policy(p);
  const Tokens prompt = run_of(1, 100);
  const auto order = ring_order(prompt, p, 4);
  // Owner at 3 in flight, the rest idle: bound 1.25 x (3 + 1) / 4 = 1.25.
  std::vector<std::uint32_t> load(4, 0);
  load[order[0]] = 3;
  set_in_flight(replicas, load);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), order[1]);
  // The next one overloaded too (3 + 3 -> bound 1.75): the third.
  load[order[1]] = 3;
  set_in_flight(replicas, load);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), order[2]);
}

TEST(Chwbl, BoundIsInclusiveAtExactlyFactorTimesTotalPlusOneOverReplicas) {
  auto replicas = make_replicas(4);
  const ChwblParams p = params(1.25);
  Chwbl policy(p);
  const Tokens prompt = run_of(1, 100);
  const auto order = ring_order(prompt, p, 4);
  // Total 15: bound 1.25 x 16 / 4 = 5 exactly; the owner at 5 qualifies.
  std::vector<std::uint32_t> load(4, 0);
  load[order[0]] = 5;
  load[order[1]] = 4;
  load[order[2]] = 3;
  load[order[3]] = 3;
  set_in_flight(replicas, load);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), order[0]);
  // One more on the owner: total 16, bound 5.3125 < 6. The second (4) qualifies.
  load[order[0]] = 6;
  set_in_flight(replicas, load);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), order[1]);
}

TEST(Chwbl, WhenNoReplicaQualifiesTheFirstSeenTakesIt) {
  // A factor below 1 can bound every replica out (with >= 1 the least loaded
  // always qualifies): all at 1 in flight, bound 0.5 x 5 / 4 = 0.625.
  auto replicas = make_replicas(4);
  const ChwblParams p = params(0.5);
  Chwbl policy(p);
  const Tokens prompt = run_of(1, 100);
  set_in_flight(replicas, {1, 1, 1, 1});
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), ring_order(prompt, p, 4).front());
}

TEST(Chwbl, ColdClusterQualifiesEveryone) {
  // Total 0: bound factor x 1 / n > 0 = every replica's load.
  auto replicas = make_replicas(3);
  const ChwblParams p = params(1.0);
  Chwbl policy(p);
  const Tokens prompt = run_of(7, 50);
  EXPECT_EQ(policy.choose(prompt_of(prompt), replicas, 0), ring_order(prompt, p, 3).front());
}

TEST(Chwbl, RingFollowsTheReplicaCount) {
  const ChwblParams p = params(1.25, 100, 16);
  Chwbl policy(p);
  const Tokens prompt = run_of(3, 100);
  auto four = make_replicas(4);
  auto three = make_replicas(3);
  EXPECT_EQ(policy.choose(prompt_of(prompt), four, 0), ring_order(prompt, p, 4).front());
  EXPECT_EQ(policy.choose(prompt_of(prompt), three, 0), ring_order(prompt, p, 3).front());
}

TEST(Chwbl, MakesNoPrediction) {
  auto replicas = make_replicas(2);
  Chwbl policy(params(1.25));
  policy.choose(prompt_of(run_of(1, 10)), replicas, 0);
  EXPECT_EQ(policy.predicted_cached_tokens(), -1);
}

TEST(Chwbl, RegisteredWithItsScenarioParameters) {
  Scenario s = Scenario::reference();
  set_number(s, "chwbl.virtual_nodes", 17);
  auto policy = make_policy("chwbl", s.policy_params, policy_context(s));
  ASSERT_NE(policy, nullptr);
  EXPECT_EQ(policy->name(), "chwbl");
  EXPECT_EQ(static_cast<Chwbl&>(*policy).params().virtual_nodes, 17u);
}

TEST(Chwbl, TenantsStickUnderLightLoad) {
  // Far apart arrivals: nothing is in flight at any arrival, so every request
  // of a tenant (same prefix, longer than the key) lands on the same replica.
  std::vector<std::vector<Token>> prefixes = {run_of(1, 120), run_of(5000, 120), run_of(9000, 120)};
  std::vector<Request> requests;
  for (std::uint32_t i = 0; i < 30; ++i)
    requests.push_back(Request{static_cast<Tick>(i) * kTicksPerSecond, i % 3, 10, 77 + i, 0});
  const Workload w(prefixes, requests, 32000);
  ClusterConfig cluster;
  cluster.replicas = 4;
  Chwbl policy(params(1.25));
  const SimulationRun run = simulate(w, cluster, policy);
  for (std::size_t i = 3; i < requests.size(); ++i) EXPECT_EQ(run.replica_of[i], run.replica_of[i - 3]);
}

}  // namespace
}  // namespace prefixroute::chwbl_test
