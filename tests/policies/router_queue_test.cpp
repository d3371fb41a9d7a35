// The router queue (sim/router_queue.h) driven by Dynamo's rule
// (dynamo_kv.router_queue): hand-computed traces where every replica's
// active prefill crosses the threshold, one behaviour per test.
#include "prefixroute/policies/router_queue.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "prefixroute/policies/dynamo_kv.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "shared_prefix_bound.h"
#include "tokens.h"

namespace prefixroute::router_queue_test {
namespace {

constexpr Tick kMs = kTicksPerMillisecond;

// Forwards everything to a DynamoKv and records when each request is routed.
class RecordedDynamo final : public RoutingPolicy {
 public:
  struct Routed {
    std::uint64_t id;
    Tick at;
    bool operator==(const Routed&) const = default;
  };
  explicit RecordedDynamo(const DynamoKvParams& params, std::uint64_t max_batched_tokens)
      : inner_(params, 7, max_batched_tokens) {}
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override {
    routed.push_back({request.id, now});
    return inner_.choose(request, cluster, now);
  }
  std::string_view name() const override { return "recorded_dynamo"; }
  std::int64_t predicted_cached_tokens() const override { return inner_.predicted_cached_tokens(); }
  void on_routed(const RoutedRequest& r) override { inner_.on_routed(r); }
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override {
    if (first_token_at < 0) first_token_at = now;
    inner_.on_first_token(id, replica, now);
  }
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override { inner_.on_completed(id, replica, now); }
  CacheView matched_view() const override { return inner_.matched_view(); }
  std::optional<HoldOrder> router_queue() const override { return inner_.router_queue(); }
  bool holds(const ClusterView& cluster, Tick now) const override { return inner_.holds(cluster, now); }

  std::vector<Routed> routed;
  Tick first_token_at = -1;  // the run's first first token

 private:
  DynamoKv inner_;
};

// Requests of distinct tokens (no prefix, turns from a vocabulary of 10^9
// ids): nothing is ever cached, so each prefills its whole prompt.
Workload distinct_prompts(const std::vector<std::pair<Tick, std::uint32_t>>& arrivals_and_tokens) {
  std::vector<Request> requests;
  std::uint64_t seed = 1;
  for (const auto& [arrival, tokens] : arrivals_and_tokens) requests.push_back(Request{arrival, 0, tokens, seed++, 0});
  return Workload({testsupport::Tokens{}}, std::move(requests), 1'000'000'000);
}

// One token per millisecond of prefill; the step budget is 100 tokens, so
// queue_threshold 0.5 makes a replica busy above 50 active prefill tokens.
ClusterConfig cluster_of(std::uint32_t replicas, EngineKind engine = EngineKind::Fifo) {
  ClusterConfig c;
  c.replicas = replicas;
  c.cache_tokens = 1'000'000;
  c.prefill.tokens_per_s = 1000.0;
  c.max_batched_tokens = 100;
  c.engine = engine;
  return c;
}

DynamoKvParams queue_params(DynamoRouterQueue mode, double threshold = 0.5) {
  DynamoKvParams p;
  p.router_queue = mode;
  p.queue_threshold = threshold;
  return p;
}

TEST(RouterQueue, ReleasesFcfsByArrivalAndSpfByPromptLengthThenArrival) {
  const auto held = [&](std::size_t length) {
    SourcedRequest r;
    r.prompt.length = length;
    return r;
  };
  for (const HoldOrder order : {HoldOrder::Fcfs, HoldOrder::ShortestPromptFirst}) {
    RouterQueue queue(order);
    queue.push(5, held(80));
    queue.push(6, held(30));
    queue.push(7, held(60));
    queue.push(8, held(30));
    std::vector<std::uint64_t> ids;
    HeldRequest out;
    while (!queue.empty()) {
      queue.pop(out);
      ids.push_back(out.id);
    }
    if (order == HoldOrder::Fcfs) EXPECT_EQ(ids, (std::vector<std::uint64_t>{5, 6, 7, 8}));
    else EXPECT_EQ(ids, (std::vector<std::uint64_t>{6, 8, 7, 5}));
  }
}

// Two replicas: request 0 (200 tokens) and 1 (300) put both above the
// 50-token threshold; request 2 (50 tokens, at 2 ms) is held until request
// 0's first token at 200 ms frees its replica, then routed there.
const std::vector<std::pair<Tick, std::uint32_t>> kBothBusy = {{0, 200}, {1 * kMs, 300}, {2 * kMs, 50}};

TEST(DynamoRouterQueue, OffRoutesEveryRequestAtItsArrival) {
  const Workload trace = distinct_prompts(kBothBusy);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::Off), 100);
  const SimulationRun run = simulate(trace, cluster_of(2), policy);
  EXPECT_EQ(policy.routed, (std::vector<RecordedDynamo::Routed>{{0, 0}, {1, 1 * kMs}, {2, 2 * kMs}}));
  EXPECT_FALSE(policy.router_queue().has_value());
  // The same trace as the default parameters route it (router_queue is off by default).
  DynamoKv defaults(DynamoKvParams{}, 7, 100);
  const SimulationRun default_run = simulate(trace, cluster_of(2), defaults);
  EXPECT_EQ(run.ttft, default_run.ttft);
  EXPECT_EQ(run.replica_of, default_run.replica_of);
}

TEST(DynamoRouterQueue, NothingIsHeldWhileSomeReplicaIsAtOrBelowTheThreshold) {
  // Threshold 3 x 100 = 300 tokens: the replica holding request 1 (300) is at it, not above.
  const Workload trace = distinct_prompts(kBothBusy);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::Fcfs, 3.0), 100);
  simulate(trace, cluster_of(2), policy);
  EXPECT_EQ(policy.routed, (std::vector<RecordedDynamo::Routed>{{0, 0}, {1, 1 * kMs}, {2, 2 * kMs}}));
}

TEST(DynamoRouterQueue, HoldsWhileEveryReplicaIsAboveTheThresholdAndTtftCountsTheHold) {
  const Workload trace = distinct_prompts(kBothBusy);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::Fcfs), 100);
  const SimulationRun run = simulate(trace, cluster_of(2), policy);
  // Request 2 reaches a replica when request 0's prefill ends at 200 ms.
  EXPECT_EQ(policy.routed, (std::vector<RecordedDynamo::Routed>{{0, 0}, {1, 1 * kMs}, {2, 200 * kMs}}));
  EXPECT_EQ(run.replica_of[2], run.replica_of[0]);
  // Its TTFT: 198 ms held at the router, then its 50-token prefill.
  EXPECT_EQ(run.ttft[2], (200 - 2) * kMs + 50 * kMs);
  EXPECT_EQ(run.ttft[0], 200 * kMs);
  EXPECT_EQ(run.ttft[1], 300 * kMs);
}

TEST(DynamoRouterQueue, HoldsUnderTheBatchedEngineUntilAFirstTokenFreesAReplica) {
  const Workload trace = distinct_prompts(kBothBusy);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::Fcfs), 100);
  const SimulationRun run = simulate(trace, cluster_of(2, EngineKind::Batched), policy);
  ASSERT_EQ(policy.routed.size(), 3u);
  EXPECT_EQ(policy.routed[0], (RecordedDynamo::Routed{0, 0}));
  EXPECT_EQ(policy.routed[1], (RecordedDynamo::Routed{1, 1 * kMs}));
  // Held until the first first token (the batched engine's steps decide when).
  ASSERT_GT(policy.first_token_at, 2 * kMs);
  EXPECT_EQ(policy.routed[2], (RecordedDynamo::Routed{2, policy.first_token_at}));
  // Its TTFT counts from its arrival: the hold, then its own prefill steps.
  EXPECT_GT(run.ttft[2], policy.first_token_at - 2 * kMs);
  // Off, it is routed at its arrival.
  RecordedDynamo off(queue_params(DynamoRouterQueue::Off), 100);
  simulate(trace, cluster_of(2, EngineKind::Batched), off);
  EXPECT_EQ(off.routed[2], (RecordedDynamo::Routed{2, 2 * kMs}));
}

// One replica, threshold 50 tokens. Request 0 (100 tokens) makes it busy;
// requests 1 (80), 2 (30) and 3 (60) arrive during its prefill and are held.
// fcfs: at 100 ms request 1 goes (80 > 50: busy again); at its first token
// (180 ms) request 2 goes (30: not busy), then request 3 (90: busy).
// spf: at 100 ms request 2 (30) then request 3 (90); request 1 waits for
// request 3's first token at 190 ms (request 2's at 130 ms leaves 60 > 50).
const std::vector<std::pair<Tick, std::uint32_t>> kOneReplica = {
    {0, 100}, {1 * kMs, 80}, {2 * kMs, 30}, {3 * kMs, 60}};

TEST(DynamoRouterQueue, FcfsReleasesTheEarliestArrivalFirst) {
  const Workload trace = distinct_prompts(kOneReplica);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::Fcfs), 100);
  const SimulationRun run = simulate(trace, cluster_of(1), policy);
  EXPECT_EQ(policy.routed,
            (std::vector<RecordedDynamo::Routed>{{0, 0}, {1, 100 * kMs}, {2, 180 * kMs}, {3, 180 * kMs}}));
  EXPECT_EQ(run.ttft[1], (100 - 1) * kMs + 80 * kMs);
  EXPECT_EQ(run.ttft[3], (180 - 3) * kMs + (30 + 60) * kMs);
}

TEST(DynamoRouterQueue, SpfReleasesTheShortestPromptFirst) {
  const Workload trace = distinct_prompts(kOneReplica);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::ShortestPromptFirst), 100);
  const SimulationRun run = simulate(trace, cluster_of(1), policy);
  EXPECT_EQ(policy.routed,
            (std::vector<RecordedDynamo::Routed>{{0, 0}, {2, 100 * kMs}, {3, 100 * kMs}, {1, 190 * kMs}}));
  EXPECT_EQ(run.ttft[2], (100 - 2) * kMs + 30 * kMs);
  EXPECT_EQ(run.ttft[1], (190 - 1) * kMs + 80 * kMs);
  // Results stay per request in arrival order.
  EXPECT_EQ(run.replica_of, (std::vector<std::uint32_t>{0, 0, 0, 0}));
}

// A held request is routed after later arrivals, so it can find cached what
// a later arrival left. kOneReplica's prompts, requests 1 and 3 with a
// 20-token prefix of their own tenant (1: 20 + 60 tokens, 3: 20 + 40), the
// others without: spf routes 0, 2, 3, then 1 at 190 ms, and request 1 finds
// request 3's prefix cached though no earlier arrival shares a token with
// it. What bounds its hit is the prompts routed before it, all arrived by
// its first token (shared_prefix_bound.h), not the earlier arrivals.
TEST(DynamoRouterQueue, AHeldRequestFindsThePrefixOfALaterArrivalRoutedBeforeIt) {
  const testsupport::Tokens tenant_prefix = testsupport::run_of(1'500'000'000, 20);  // outside the turns' ids
  std::vector<Request> requests = {Request{0, 0, 100, 1, 0}, Request{1 * kMs, 1, 60, 2, 0},
                                   Request{2 * kMs, 0, 30, 3, 0}, Request{3 * kMs, 1, 40, 4, 0}};
  const Workload trace({testsupport::Tokens{}, tenant_prefix}, std::move(requests), 1'000'000'000);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::ShortestPromptFirst), 100);
  const SimulationRun run = simulate(trace, cluster_of(1), policy);
  EXPECT_EQ(policy.routed,
            (std::vector<RecordedDynamo::Routed>{{0, 0}, {2, 100 * kMs}, {3, 100 * kMs}, {1, 190 * kMs}}));
  EXPECT_EQ(run.cached_of, (std::vector<std::uint32_t>{0, 20, 0, 0}));
  EXPECT_EQ(run.ttft[1], (190 - 1) * kMs + 60 * kMs);  // only its 60 uncached tokens prefill
  // No earlier arrival shares a token with request 1; request 3, routed before it, shares 20.
  EXPECT_EQ(testsupport::shared_with_earlier_arrivals(trace), (std::vector<std::uint64_t>{0, 0, 0, 20}));
  const std::vector<std::uint64_t> bound = testsupport::shared_with_arrivals_by_first_token(trace, run.ttft);
  EXPECT_EQ(bound, (std::vector<std::uint64_t>{0, 20, 0, 20}));
  for (std::size_t r = 0; r < trace.size(); ++r) EXPECT_LE(run.cached_of[r], bound[r]) << "request " << r;
}

// A held request is routed after later arrivals (here 0, 2, 3, then 1): the
// timeline still files each request under its arrival's window, and its
// routing groups (each distinct prompt its own) are tallied over the whole run.
TEST(DynamoRouterQueue, TheTimelineFilesHeldRequestsByTheirArrival) {
  const Workload trace = distinct_prompts(kOneReplica);
  RecordedDynamo policy(queue_params(DynamoRouterQueue::ShortestPromptFirst), 100);
  const SimulationRun run = simulate(trace, cluster_of(1), policy, {}, 4096, {}, true);
  ASSERT_EQ(policy.routed.back().id, 1u);  // routed last
  const Timeline& t = run.timeline;
  ASSERT_GT(t.windows, 0u);
  std::uint32_t requests = 0, groups = 0;
  for (std::size_t c = 0; c < t.requests.size(); ++c) {
    requests += t.requests[c];
    groups += t.groups[c];
    EXPECT_EQ(t.groups[c], t.requests[c]) << "cell " << c;  // distinct prompts: one group per request
  }
  EXPECT_EQ(requests, 4u);
  EXPECT_EQ(groups, 4u);
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto w = static_cast<std::size_t>(std::min<Tick>(trace.arrival(i) / t.window_ticks, t.windows - 1));
    EXPECT_GE(t.requests[w * t.rows()], 1u) << "request " << i << " not in its arrival's window " << w;
  }
}

}  // namespace
}  // namespace prefixroute::router_queue_test
