// Routing policies: each policy's decision on crafted replica states, one
// documented rule or tie-break per test.
#include "prefixroute/policies/affinity.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/policies/least_loaded.h"
#include "prefixroute/policies/round_robin.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/policies/cluster_view.h"
#include "prefixroute/scenario/scenario.h"
#include "replicas.h"
#include "tokens.h"

namespace prefixroute::policies_test {
namespace {

using testsupport::Tokens;
using testsupport::prompt_of;

constexpr Tick kMs = kTicksPerMillisecond;
// Prefill at 1000 tokens/s: one uncached token is one millisecond of work.
const PrefillModel kPrefill{1000.0};
// Decisions are taken at kNow, long after the cache-warming admissions at 0
// have drained, so every replica's wait is exactly the backlog given at kNow.
constexpr Tick kNow = 10 * kTicksPerSecond;

// The prompt being routed: 100 tokens no other admission shares.
Tokens the_prompt() { return testsupport::run_of(1, 100); }

// A cluster whose caches and queues are set up by hand.
class Cluster {
 public:
  explicit Cluster(std::size_t n) : replicas_(testsupport::make_replicas(n, 100000)) {}

  // Caches the first `k` tokens of `prompt` on replica i (at time 0).
  void cache_prefix(std::size_t i, const Tokens& prompt, std::size_t k) {
    testsupport::cache_prefix(replicas_, i, prompt, k, kPrefill);
  }

  // Gives replica i `ms` milliseconds of queued work at kNow (unique tokens,
  // which match no prompt).
  void backlog(std::size_t i, Tick ms) {
    Tokens work(static_cast<std::size_t>(ms));
    for (Token& t : work) t = next_unique_++;
    replicas_[i].admit(work, kNow, kPrefill);
  }

  // Backlogs for every replica, in ms.
  void backlogs(const std::vector<Tick>& ms) {
    for (std::size_t i = 0; i < ms.size(); ++i)
      if (ms[i] > 0) backlog(i, ms[i]);
  }

  std::vector<Tick> waits_ms(Tick now = kNow) const {
    std::vector<Tick> w;
    for (const Replica& r : replicas_) w.push_back(r.projected_wait(now) / kMs);
    return w;
  }

  // What a policy sees: the replicas, scanned.
  ClusterView view() const { return ClusterView(replicas_); }
  // The same replicas with the simulator's busy_until tree.
  ClusterView view_with(const TournamentTree<Tick>* busy_until) const {
    return ClusterView(replicas_, nullptr, CacheView::None, false, busy_until);
  }
  std::vector<Replica>& replicas() { return replicas_; }

 private:
  std::vector<Replica> replicas_;
  Token next_unique_ = 1'000'000;
};

// AffinityBalanced with a slack of `slack` ticks (its parameter is in seconds).
AffinityBalanced with_slack(Tick slack) {
  return AffinityBalanced({.load_slack_s = static_cast<double>(slack) / kTicksPerSecond});
}

std::vector<std::size_t> choices(RoutingPolicy& policy, const ClusterView& view, const Tokens& prompt,
                                 int count, Tick now = kNow) {
  std::vector<std::size_t> out;
  for (int i = 0; i < count; ++i) out.push_back(policy.choose(prompt_of(prompt), view, now));
  return out;
}

std::vector<std::size_t> choices(RoutingPolicy& policy, const Cluster& cluster, const Tokens& prompt,
                                 int count, Tick now = kNow) {
  return choices(policy, cluster.view(), prompt, count, now);
}

using Picks = std::vector<std::size_t>;

// ---------------------------------------------------------------------------
// least_loaded_index

TEST(LeastLoadedIndex, ReturnsTheReplicaWithTheLeastProjectedWait) {
  Cluster c(3);
  c.backlogs({30, 10, 20});
  ASSERT_EQ(c.waits_ms(), (std::vector<Tick>{30, 10, 20}));
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow), 1u);
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow, 2), 1u);
}

TEST(LeastLoadedIndex, TiesGoToTheFirstTiedReplicaAtOrAfterStartCyclically) {
  Cluster c(4);
  c.backlogs({0, 5, 0, 5});
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow, 0), 0u);
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow, 1), 2u);
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow, 2), 2u);
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow, 3), 0u);
}

TEST(LeastLoadedIndex, StartBeyondTheReplicaCountWraps) {
  Cluster c(4);
  c.backlogs({0, 5, 0, 5});
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow, 6), 2u);  // 6 mod 4 = 2
}

TEST(LeastLoadedIndex, DefaultStartIsReplicaZero) {
  const Cluster c(3);
  EXPECT_EQ(least_loaded_index(c.view().replicas(), kNow), 0u);
}

TEST(LeastLoadedIndex, WorkDrainedBeforeNowCountsAsNoWait) {
  // Replica 0 drains at 50 ms, replica 1 at 40 ms: at 60 ms both are idle, so
  // the tie goes to replica 0 (an index ordering by busy_until would pick 1).
  Cluster c(2);
  c.replicas()[0].admit(Tokens(50, 7), 0, kPrefill);
  c.replicas()[1].admit(Tokens(40, 8), 0, kPrefill);
  EXPECT_EQ(least_loaded_index(c.view().replicas(), 60 * kMs), 0u);
  // At 45 ms replica 0 still has 5 ms to go and replica 1 is idle.
  EXPECT_EQ(least_loaded_index(c.view().replicas(), 45 * kMs), 1u);
}

// ---------------------------------------------------------------------------
// RoundRobin

TEST(RoundRobin, CyclesThroughTheReplicasInOrder) {
  const Cluster c(3);
  RoundRobin policy;
  EXPECT_EQ(choices(policy, c, the_prompt(), 7), (Picks{0, 1, 2, 0, 1, 2, 0}));
}

TEST(RoundRobin, IgnoresLoadAndCache) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(2, p, 100);
  c.backlogs({500, 0, 0});
  RoundRobin policy;
  EXPECT_EQ(choices(policy, c, p, 4), (Picks{0, 1, 2, 0}));
}

TEST(RoundRobin, NameIsRoundRobin) { EXPECT_EQ(RoundRobin().name(), "round_robin"); }

// ---------------------------------------------------------------------------
// LeastLoaded

TEST(LeastLoaded, PicksTheLeastProjectedWait) {
  Cluster c(3);
  c.backlogs({30, 10, 20});
  LeastLoaded policy;
  EXPECT_EQ(policy.choose(prompt_of(the_prompt()), c.view(), kNow), 1u);
}

TEST(LeastLoaded, IgnoresTheCache) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(0, p, 100);
  c.backlogs({1, 0, 2});
  LeastLoaded policy;
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(LeastLoaded, FillsAnIdleClusterInRoundRobinOrder) {
  const Cluster c(3);
  LeastLoaded policy;
  EXPECT_EQ(choices(policy, c, the_prompt(), 5), (Picks{0, 1, 2, 0, 1}));
}

TEST(LeastLoaded, TiesRotateStartingOnePastThePreviousChoice) {
  Cluster c(4);
  c.backlogs({5, 0, 0, 5});
  LeastLoaded policy;
  // 1 (first tie from 0), 2 (first tie from 2), then from 3: 3 and 0 are busy,
  // so 1 again.
  EXPECT_EQ(choices(policy, c, the_prompt(), 4), (Picks{1, 2, 1, 2}));
}

// The simulator hands policies a TournamentTree of busy_until(); the least
// wait it finds must be the scan's, ties and rotation included.
TEST(LeastLoaded, WithTheBusyUntilTreeChoosesAsTheScanDoes) {
  Rng rng(7);
  for (std::size_t n : {1u, 3u, 4u, 5u, 16u, 37u}) {
    Cluster c(n);
    std::vector<Tick> backlog(n);
    for (Tick& ms : backlog) ms = static_cast<Tick>(rng.below(4)) * 5;  // many ties, many idle
    c.backlogs(backlog);
    TournamentTree<Tick> busy_until(n, std::numeric_limits<Tick>::max());
    for (std::size_t i = 0; i < n; ++i) busy_until.set(i, c.view()[i].busy_until());
    for (const Tick now : {kNow - kMs, kNow, kNow + 4 * kMs, kNow + 5 * kMs, kNow + 12 * kMs, kNow + 20 * kMs}) {
      LeastLoaded scanning, with_tree;
      EXPECT_EQ(choices(with_tree, c.view_with(&busy_until), the_prompt(), 2 * static_cast<int>(n) + 1, now),
                choices(scanning, c, the_prompt(), 2 * static_cast<int>(n) + 1, now))
          << n << " replicas at " << now;
      AffinityBalanced balanced_scanning = with_slack(10 * kMs), balanced_with_tree = with_slack(10 * kMs);
      EXPECT_EQ(choices(balanced_with_tree, c.view_with(&busy_until), the_prompt(), 2 * static_cast<int>(n) + 1, now),
                choices(balanced_scanning, c, the_prompt(), 2 * static_cast<int>(n) + 1, now))
          << n << " replicas at " << now;
    }
  }
}

// Every replica busy: the least wait is in the future and ties there (5 ms
// on replicas 1 and 2), so the bound is the earliest busy_until, not now.
TEST(LeastLoaded, WithTheBusyUntilTreeAllBusyTiesInTheFutureRotate) {
  Cluster c(4);
  c.backlogs({10, 5, 5, 10});
  TournamentTree<Tick> busy_until(4, std::numeric_limits<Tick>::max());
  for (std::size_t i = 0; i < 4; ++i) busy_until.set(i, c.view()[i].busy_until());
  LeastLoaded with_tree;
  EXPECT_EQ(choices(with_tree, c.view_with(&busy_until), the_prompt(), 5), (Picks{1, 2, 1, 2, 1}));
}

// Affinity and AffinityBalanced with cached prefixes of several lengths: the
// tree only replaces their least-wait fallback and limit, so choices match.
TEST(Affinity, WithTheBusyUntilTreeChoosesAsTheScanDoes) {
  Rng rng(9);
  const Tokens p = the_prompt();
  for (std::size_t n : {2u, 5u, 9u}) {
    Cluster c(n);
    std::vector<Tick> backlog(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (rng.below(2) == 0) c.cache_prefix(i, p, 10 * (1 + rng.below(5)));  // some hold 10 - 50 tokens
      backlog[i] = static_cast<Tick>(rng.below(4)) * 5;
    }
    c.backlogs(backlog);
    TournamentTree<Tick> busy_until(n, std::numeric_limits<Tick>::max());
    for (std::size_t i = 0; i < n; ++i) busy_until.set(i, c.view()[i].busy_until());
    for (const Tick now : {kNow, kNow + 5 * kMs, kNow + 12 * kMs}) {
      Affinity affinity_scanning, affinity_with_tree;
      EXPECT_EQ(choices(affinity_with_tree, c.view_with(&busy_until), p, 2 * static_cast<int>(n) + 1, now),
                choices(affinity_scanning, c, p, 2 * static_cast<int>(n) + 1, now))
          << n << " replicas at " << now;
      AffinityBalanced balanced_scanning = with_slack(7 * kMs), balanced_with_tree = with_slack(7 * kMs);
      EXPECT_EQ(choices(balanced_with_tree, c.view_with(&busy_until), p, 2 * static_cast<int>(n) + 1, now),
                choices(balanced_scanning, c, p, 2 * static_cast<int>(n) + 1, now))
          << n << " replicas at " << now;
    }
  }
}

TEST(LeastLoaded, NameIsLeastLoaded) { EXPECT_EQ(LeastLoaded().name(), "least_loaded"); }

// ---------------------------------------------------------------------------
// Affinity

TEST(Affinity, PicksTheLongestCachedPrefix) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(0, p, 10);
  c.cache_prefix(1, p, 30);
  Affinity policy;
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(Affinity, IgnoresLoad) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(1, p, 30);
  c.cache_prefix(2, p, 29);
  c.backlogs({0, 10'000, 0});
  Affinity policy;
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(Affinity, CountsAPrefixEndingInsideACachedEdge) {
  // Replica 0 caches a path that diverges from the prompt after 40 tokens
  // (inside its edge); replica 1 caches the prompt's first 39 tokens exactly.
  Cluster c(2);
  Tokens p = the_prompt();
  Tokens diverging = p;
  diverging[40] = 999;
  c.replicas()[0].admit(diverging, 0, kPrefill);
  c.cache_prefix(1, p, 39);
  Affinity policy;
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 0u);
}

TEST(Affinity, PrefixTiesGoToTheLeastWait) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(0, p, 30);
  c.cache_prefix(2, p, 30);
  c.backlogs({50, 0, 20});
  Affinity policy;
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 2u);
}

TEST(Affinity, PrefixAndWaitTiesRotateStartingOnePastThePreviousChoice) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(0, p, 30);
  c.cache_prefix(2, p, 30);
  Affinity policy;
  EXPECT_EQ(choices(policy, c, p, 4), (Picks{0, 2, 0, 2}));
}

TEST(Affinity, WithoutAnyCachedPrefixPicksTheLeastWait) {
  Cluster c(3);
  c.backlogs({20, 5, 10});
  Affinity policy;
  EXPECT_EQ(policy.choose(prompt_of(the_prompt()), c.view(), kNow), 1u);
}

TEST(Affinity, WithoutAnyCachedPrefixOnAnIdleClusterRotates) {
  const Cluster c(3);
  Affinity policy;
  EXPECT_EQ(choices(policy, c, the_prompt(), 4), (Picks{0, 1, 2, 0}));
}

TEST(Affinity, NameIsAffinity) { EXPECT_EQ(Affinity().name(), "affinity"); }

// ---------------------------------------------------------------------------
// AffinityBalanced

TEST(AffinityBalanced, PicksTheLongestPrefixOnlyAmongReplicasWithinTheSlack) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(1, p, 20);
  c.cache_prefix(2, p, 40);  // longest, but 50 ms behind the least busy
  c.backlogs({0, 10, 50});
  AffinityBalanced policy = with_slack(20 * kMs);
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(AffinityBalanced, SlackIsMeasuredFromTheLeastBusyReplica) {
  // Everyone is busy: eligibility is wait <= w_min + slack = 100 + 20 ms.
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(1, p, 20);
  c.cache_prefix(2, p, 40);
  c.backlogs({100, 110, 150});
  AffinityBalanced policy = with_slack(20 * kMs);
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(AffinityBalanced, SlackBoundIsInclusive) {
  Cluster c(2);
  const Tokens p = the_prompt();
  c.cache_prefix(1, p, 20);
  c.backlogs({0, 20});
  AffinityBalanced at_bound = with_slack(20 * kMs);
  EXPECT_EQ(at_bound.choose(prompt_of(p), c.view(), kNow), 1u);
  AffinityBalanced just_below = with_slack(20 * kMs - 1);
  EXPECT_EQ(just_below.choose(prompt_of(p), c.view(), kNow), 0u);
}

TEST(AffinityBalanced, FallsBackToLeastLoadedWhenNoEligibleReplicaHasThePrefix) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(2, p, 100);
  c.backlogs({10, 0, 50});
  AffinityBalanced policy = with_slack(20 * kMs);
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(AffinityBalanced, FallbackRotatesTiesLikeLeastLoaded) {
  Cluster c(4);
  c.backlogs({5, 0, 0, 5});
  AffinityBalanced balanced = with_slack(0);
  LeastLoaded least_loaded;
  EXPECT_EQ(choices(balanced, c, the_prompt(), 4), (Picks{1, 2, 1, 2}));
  EXPECT_EQ(choices(least_loaded, c, the_prompt(), 4), (Picks{1, 2, 1, 2}));
}

TEST(AffinityBalanced, ZeroSlackConsidersOnlyTheLeastBusySet) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(0, p, 90);  // 1 ms busier than the others: not eligible
  c.cache_prefix(2, p, 5);
  c.backlogs({1, 0, 0});
  AffinityBalanced policy = with_slack(0);
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 2u);
}

TEST(AffinityBalanced, PrefixTiesAmongEligibleGoToTheLeastWait) {
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(0, p, 30);
  c.cache_prefix(1, p, 30);
  c.backlogs({15, 10, 0});
  AffinityBalanced policy = with_slack(20 * kMs);
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 1u);
}

TEST(AffinityBalanced, HugeSlackBehavesLikeAffinity) {
  // Route the same random request stream with both policies while serving it
  // as Affinity decides; a slack longer than any backlog must never differ.
  for (const Tick slack : {seconds_to_ticks(3600), std::numeric_limits<Tick>::max()}) {
    SCOPED_TRACE("slack " + std::to_string(slack));
    Cluster c(4);
    Affinity affinity;
    AffinityBalanced balanced = with_slack(slack);
    Rng rng(7);
    Tick now = 0;
    int differing = 0;
    for (int r = 0; r < 2000; ++r) {
      now += static_cast<Tick>(rng.uniform_int(0, 30)) * kMs;
      const Token tenant = static_cast<Token>(rng.uniform_int(0, 5));
      Tokens prompt(static_cast<std::size_t>(rng.uniform_int(5, 60)), 10'000 * (tenant + 1));
      for (std::size_t k = 0; k < prompt.size(); ++k) prompt[k] += static_cast<Token>(k);
      for (int t = 0; t < 5; ++t) prompt.push_back(static_cast<Token>(rng.uniform_int(0, 50)));
      const std::size_t a = affinity.choose(prompt_of(prompt), c.view(), now);
      const std::size_t b = balanced.choose(prompt_of(prompt), c.view(), now);
      if (a != b) ++differing;
      ASSERT_LT(a, 4u);
      c.replicas()[a].admit(prompt, now, kPrefill);
    }
    EXPECT_EQ(differing, 0);
  }
}

TEST(AffinityBalanced, LargestRepresentableSlackWithEveryReplicaBusyBehavesLikeAffinity) {
  // w_min + slack exceeds the Tick range here: the eligibility bound must
  // saturate, not wrap around.
  Cluster c(3);
  const Tokens p = the_prompt();
  c.cache_prefix(2, p, 40);
  c.backlogs({100, 110, 150});
  AffinityBalanced policy = with_slack(std::numeric_limits<Tick>::max());
  ASSERT_EQ(policy.load_slack(), std::numeric_limits<Tick>::max());
  EXPECT_EQ(policy.choose(prompt_of(p), c.view(), kNow), 2u);
}

TEST(AffinityBalanced, NameAndSlackAccessor) {
  const AffinityBalanced policy = with_slack(123);
  EXPECT_EQ(policy.name(), "affinity_balanced");
  EXPECT_EQ(policy.load_slack(), 123);
}

// ClusterView::match_groups: with the simulator's kind of view (an index of
// the engines' caches) and with a view that scans, the same groups; the
// indexed walk is remembered for the simulator's insert (known_engine_match)
// until forget_walk().
TEST(ClusterView, MatchGroupsIsTheSameWithAndWithoutTheIndexAndIsRemembered) {
  std::vector<Replica> replicas;
  for (int r = 0; r < 5; ++r)
    replicas.emplace_back(RadixCache(1000, RadixCache::kDefaultProtectAfterHits, &testsupport::test_store()));
  PrefixIndex index(replicas.size());
  for (std::uint32_t r = 0; r < replicas.size(); ++r) replicas[r].cache().attach_index(&index, r);
  const PrefillModel prefill{1000.0};
  replicas[0].admit(prompt_of(Tokens{1, 2, 3, 4}), 0, prefill);
  replicas[1].admit(prompt_of(Tokens{1, 2, 3, 5}), 0, prefill);
  replicas[3].admit(prompt_of(Tokens{1, 2, 9}), 0, prefill);
  replicas[4].admit(prompt_of(Tokens{7}), 0, prefill);
  const ClusterView indexed(replicas, &index, CacheView::Engine, true, nullptr);
  const ClusterView scanning(replicas);
  const PromptPieces prompt = prompt_of(Tokens{1, 2, 3, 4, 6});
  HeldGroups from_index, from_scan;
  indexed.match_groups(prompt, CacheView::Engine, from_index);
  scanning.match_groups(prompt, CacheView::Engine, from_scan);
  EXPECT_EQ(from_index.lengths, (std::vector<std::size_t>{2, 3, 4}));
  EXPECT_EQ(from_index.members, (std::vector<std::uint64_t>{0b01000, 0b00010, 0b00001}));
  EXPECT_EQ(from_scan.lengths, from_index.lengths);
  EXPECT_EQ(from_scan.members, from_index.members);
  EXPECT_EQ(from_scan.all, from_index.all);
  for (std::size_t r = 0; r < replicas.size(); ++r)
    EXPECT_EQ(indexed.known_engine_match(prompt, r), replicas[r].cache().match(prompt)) << "replica " << r;
  indexed.forget_walk();
  EXPECT_EQ(indexed.known_engine_match(prompt, 0), std::nullopt);
}

}  // namespace
}  // namespace prefixroute::policies_test
