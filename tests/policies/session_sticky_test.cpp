// SessionSticky (Dynamo-style session affinity in front of Dynamo's KV
// router): binding on the first call, hard and soft modes, the TTL after the
// last activity and the in-flight lease, and that with every request its own
// session it is exactly dynamo_kv. One rule per test.
#include "prefixroute/policies/session_sticky.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::session_sticky_test {
namespace {

using testsupport::cache_prefix;
using testsupport::make_replicas;
using testsupport::prompt_of;
using testsupport::run_of;
using testsupport::Tokens;

const PrefillModel kPrefill{1000.0};
constexpr Tick kSec = kTicksPerSecond;
constexpr std::size_t kCacheTokens = 100'000;

SessionStickyParams params(SessionAffinityMode mode, double ttl_s = 300, double bonus = 32) {
  SessionStickyParams p;
  p.mode = mode;
  p.ttl_s = ttl_s;
  p.soft_bonus_blocks = bonus;
  return p;
}

// Routes request `id` of `session` with `prompt` at `now` through the policy
// (choose, then on_routed to its choice); returns the choice.
std::size_t route(SessionSticky& policy, std::vector<Replica>& replicas, std::uint64_t id, std::uint64_t session,
                  const Tokens& prompt, Tick now) {
  const PromptPieces pieces = prompt_of(prompt);
  const std::size_t r = policy.choose(RouteRequest(pieces, id, session, 0, 0), replicas, now);
  policy.on_routed(RoutedRequest{id, r, pieces, 0, now, session, 0});
  return r;
}

void finish(SessionSticky& policy, std::uint64_t id, std::size_t replica, Tick at) {
  policy.on_first_token(id, replica, at);
  policy.on_completed(id, replica, at);
}

TEST(SessionSticky, TheFirstCallFollowsTheKvRouterAndBindsTheSession) {
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens prompt = run_of(1, 64);
  cache_prefix(replicas, 2, prompt, 64, kPrefill);
  SessionSticky policy(params(SessionAffinityMode::Hard), 1);
  EXPECT_EQ(policy.bound_replica(9, 0), -1);
  EXPECT_EQ(route(policy, replicas, 1, 9, prompt, 0), 2u);
  EXPECT_FALSE(policy.last_followed_binding());
  EXPECT_EQ(policy.bound_replica(9, 0), 2);
}

TEST(SessionSticky, HardModeSendsABoundSessionToItsReplicaWhateverTheKvRouterSays) {
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens first = run_of(1, 64), second = run_of(5000, 64);
  cache_prefix(replicas, 1, first, 64, kPrefill);
  cache_prefix(replicas, 0, second, 64, kPrefill);  // the KV router would send `second` to replica 0
  SessionSticky policy(params(SessionAffinityMode::Hard), 1);
  ASSERT_EQ(route(policy, replicas, 1, 9, first, 0), 1u);
  EXPECT_EQ(route(policy, replicas, 2, 9, second, kSec), 1u);
  EXPECT_TRUE(policy.last_followed_binding());
  EXPECT_EQ(route(policy, replicas, 3, 10, second, kSec), 0u);  // another session: the KV router's choice
}

TEST(SessionSticky, ABindingExpiresTtlAfterTheSessionsLastActivity) {
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens first = run_of(1, 64), second = run_of(5000, 64);
  cache_prefix(replicas, 1, first, 64, kPrefill);
  cache_prefix(replicas, 0, second, 64, kPrefill);
  SessionSticky policy(params(SessionAffinityMode::Hard, /*ttl_s=*/10), 1);
  ASSERT_EQ(route(policy, replicas, 1, 9, first, 0), 1u);
  finish(policy, 1, 1, 2 * kSec);  // last activity at 2 s: bound until 12 s
  EXPECT_EQ(policy.bound_replica(9, 12 * kSec - 1), 1);
  EXPECT_EQ(policy.bound_replica(9, 12 * kSec), -1);
  EXPECT_EQ(route(policy, replicas, 2, 9, second, 12 * kSec), 0u);
  EXPECT_FALSE(policy.last_followed_binding());
  EXPECT_EQ(policy.bound_replica(9, 12 * kSec), 0);  // rebound to where it went
}

TEST(SessionSticky, ABindingLivesWhileARequestOfTheSessionIsInFlight) {
  auto replicas = make_replicas(3, kCacheTokens);
  const Tokens first = run_of(1, 64), second = run_of(5000, 64);
  cache_prefix(replicas, 1, first, 64, kPrefill);
  cache_prefix(replicas, 0, second, 64, kPrefill);
  SessionSticky policy(params(SessionAffinityMode::Hard, /*ttl_s=*/10), 1);
  ASSERT_EQ(route(policy, replicas, 1, 9, first, 0), 1u);  // never completes
  EXPECT_EQ(route(policy, replicas, 2, 9, second, 100 * kSec), 1u);
  EXPECT_TRUE(policy.last_followed_binding());
}

TEST(SessionSticky, SoftModeTakesTheBoundReplicaOnlyWithinTheBonus) {
  // Prompt of 64 tokens = 4 blocks of 16 (the base's defaults). Cached on
  // replica 0: cost 0. Replica 1 (the bound one) has nothing: cost 64/16 + 4 = 8.
  auto replicas = make_replicas(2, kCacheTokens);
  const Tokens bind = run_of(9000, 64), prompt = run_of(1, 64);
  cache_prefix(replicas, 1, bind, 64, kPrefill);
  cache_prefix(replicas, 0, prompt, 64, kPrefill);
  for (const double bonus : {8.0, 7.0}) {
    SessionSticky policy(params(SessionAffinityMode::Soft, 300, bonus), 1);
    ASSERT_EQ(route(policy, replicas, 1, 9, bind, 0), 1u);
    finish(policy, 1, 1, 0);
    const std::size_t r = route(policy, replicas, 2, 9, prompt, kSec);
    ASSERT_EQ(policy.base().last_costs(), (std::vector<double>{0.0, 8.0}));
    if (bonus == 8.0) {
      EXPECT_EQ(r, 1u) << "8 - 8 <= 0: the bound replica";
      EXPECT_EQ(policy.bound_replica(9, kSec), 1);
    } else {
      EXPECT_EQ(r, 0u) << "8 - 7 > 0: the KV router's choice";
      EXPECT_EQ(policy.bound_replica(9, kSec), 0);  // a soft session is rebound after dispatch
    }
  }
}

TEST(SessionSticky, ExpiredBindingsAreSweptFromTheTable) {
  auto replicas = make_replicas(2, kCacheTokens);
  SessionSticky policy(params(SessionAffinityMode::Hard, /*ttl_s=*/1), 1);
  for (std::uint64_t s = 0; s < 50; ++s) {
    route(policy, replicas, s, s, run_of(1, 16), 0);
    finish(policy, s, 0, 0);
  }
  EXPECT_EQ(policy.bindings(), 50u);
  route(policy, replicas, 100, 100, run_of(1, 16), 2 * kSec);
  EXPECT_EQ(policy.bindings(), 1u);
}

// A trace whose requests come in sessions of `group` consecutive requests.
class Grouped final : public RequestTrace {
 public:
  Grouped(const RequestTrace& base, std::uint64_t group) : base_(base), group_(group) {}
  std::size_t size() const override { return base_.size(); }
  Tick arrival(std::size_t i) const override { return base_.arrival(i); }
  std::uint64_t prompt_tokens(std::size_t i) const override { return base_.prompt_tokens(i); }
  std::uint64_t output_tokens(std::size_t i) const override { return base_.output_tokens(i); }
  std::uint64_t session(std::size_t i) const override { return i / group_; }
  std::uint32_t turn(std::size_t i) const override { return static_cast<std::uint32_t>(i % group_); }
  const Content& content() const override { return base_.content(); }
  void prompt(std::size_t i, PromptPieces& out) const override { base_.prompt(i, out); }

 private:
  const RequestTrace& base_;
  std::uint64_t group_;
};

Scenario small_scenario() {
  Scenario s = Scenario::reference();
  s.workload.requests = 600;
  s.cluster.decode_ms_per_token = 5;
  return s;
}

TEST(SessionSticky, WithEveryRequestItsOwnSessionItRoutesExactlyAsDynamoKv) {
  const Scenario s = small_scenario();
  const Workload w = generate_workload(s.workload, s.seed);
  auto dynamo = make_policy("dynamo_kv", s.policy_params, policy_context(s));
  const SimulationRun expected = simulate(w, s.cluster, *dynamo, {}, 4096, s.router);
  for (const SessionAffinityMode mode : {SessionAffinityMode::Hard, SessionAffinityMode::Soft}) {
    SessionSticky policy(params(mode), s.seed);
    const SimulationRun run = simulate(w, s.cluster, policy, {}, 4096, s.router);
    EXPECT_EQ(run.replica_of, expected.replica_of);
    EXPECT_EQ(run.ttft, expected.ttft);
  }
}

TEST(SessionSticky, InASimulationHardAffinityKeepsEachSessionOnOneReplica) {
  const Scenario s = small_scenario();
  const Workload w = generate_workload(s.workload, s.seed);
  const Grouped sessions(w, 4);
  SessionSticky policy(params(SessionAffinityMode::Hard, /*ttl_s=*/1e6), s.seed);
  const SimulationRun run = simulate(sessions, s.cluster, policy, {}, 4096, s.router);
  std::map<std::uint64_t, std::uint32_t> replica_of_session;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    const auto [it, inserted] = replica_of_session.emplace(sessions.session(i), run.replica_of[i]);
    EXPECT_EQ(it->second, run.replica_of[i]) << "request " << i;
  }
  // dynamo_kv alone splits some of those sessions.
  auto dynamo = make_policy("dynamo_kv", s.policy_params, policy_context(s));
  const SimulationRun free_run = simulate(sessions, s.cluster, *dynamo, {}, 4096, s.router);
  int split = 0;
  for (std::size_t i = 0; i < sessions.size(); ++i)
    if (free_run.replica_of[i] != free_run.replica_of[i - i % 4]) ++split;
  EXPECT_GT(split, 0);
}

}  // namespace
}  // namespace prefixroute::session_sticky_test
