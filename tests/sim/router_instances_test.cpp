// Router instances (router.instances; sim/router_instances.h): request i is
// routed by instance i mod N, and each instance's policy state, in-flight
// counts and router queue are its own.
#include "prefixroute/sim/router_instances.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "field_errors.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/policies/round_robin.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "tokens.h"

namespace prefixroute::router_instances_test {
namespace {

constexpr Tick kMs = kTicksPerMillisecond;

// Records the requests it routes, the hooks it receives and the sum of the
// in-flight counts it sees at each choice; routes to replica id mod size.
class Witness final : public RoutingPolicy {
 public:
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick) override {
    chosen.push_back(request.id);
    std::uint32_t in_flight = 0;
    for (const Replica& r : cluster.replicas()) in_flight += r.in_flight();
    seen_in_flight.push_back(in_flight);
    return request.id % cluster.size();
  }
  std::string_view name() const override { return "witness"; }
  void on_routed(const RoutedRequest& r) override { hooked.push_back(r.id); }
  void on_first_token(std::uint64_t id, std::size_t, Tick) override { hooked.push_back(id); }
  void on_completed(std::uint64_t id, std::size_t, Tick) override { hooked.push_back(id); }

  std::vector<std::uint64_t> chosen;
  std::vector<std::uint64_t> hooked;
  std::vector<std::uint32_t> seen_in_flight;
};

// 12 requests 1 ms apart, each decoding for a second: none completes before
// the last arrives, so in-flight counts only grow during the arrivals.
Workload twelve_requests() {
  std::vector<Request> requests;
  for (std::uint32_t i = 0; i < 12; ++i) requests.push_back(Request{i * kMs, 0, 10, 100 + i, 100});
  return Workload({testsupport::Tokens{}}, std::move(requests), 1'000'000'000);
}

ClusterConfig three_replicas() {
  ClusterConfig c;
  c.replicas = 3;
  c.cache_tokens = 100'000;
  c.prefill.tokens_per_s = 1e6;
  c.decode_ms_per_token = 10;
  return c;
}

TEST(RouterInstances, EachInstanceRoutesAndHearsOnlyItsOwnRequests) {
  const Workload trace = twelve_requests();
  Witness a, b, c;
  RoutingPolicy* const routers[] = {&a, &b, &c};
  TraceSource source(trace);
  simulate(source, three_replicas(), std::span<RoutingPolicy* const>(routers));
  const Witness* witnesses[] = {&a, &b, &c};
  for (std::size_t k = 0; k < 3; ++k) {
    const Witness& w = *witnesses[k];
    EXPECT_EQ(w.chosen, (std::vector<std::uint64_t>{k, k + 3, k + 6, k + 9})) << "instance " << k;
    EXPECT_EQ(w.hooked.size(), 3 * 4u);  // on_routed, on_first_token, on_completed of each
    for (const std::uint64_t id : w.hooked) EXPECT_EQ(id % 3, k) << "instance " << k << " heard request " << id;
  }
}

TEST(RouterInstances, EachInstanceSeesOnlyItsOwnInFlightCountsAndTheRunCountsThemAll) {
  const Workload trace = twelve_requests();
  Witness a, b;
  RoutingPolicy* const routers[] = {&a, &b};
  TraceSource source(trace);
  const SimulationRun run = simulate(source, three_replicas(), std::span<RoutingPolicy* const>(routers));
  // Instance a routes requests 0, 2, 4, ...: at its j-th choice it has j in flight, not 2j.
  EXPECT_EQ(a.seen_in_flight, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(b.seen_in_flight, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
  // The run's peak is the cluster's: 4 requests per replica (id mod 3).
  for (const ReplicaTotals& t : run.replicas) EXPECT_EQ(t.peak_in_flight, 4u);
  // One router sees every request.
  Witness one;
  const SimulationRun single = simulate(trace, three_replicas(), one);
  EXPECT_EQ(one.seen_in_flight, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(single.in_flight_samples, run.in_flight_samples);
}

TEST(RouterInstances, ShownInFlightIsTheSumOfTheCountsTheReplicasShow) {
  // What ClusterView::total_in_flight reads: kept as requests are dispatched
  // and completed, and recounted when another instance's counts are shown.
  std::vector<Replica> replicas;
  for (int i = 0; i < 3; ++i) replicas.emplace_back(RadixCache(100));
  RoundRobin a, b;
  RoutingPolicy* policies[] = {&a, &b};
  RouterInstances routers(policies, replicas);
  const auto shown = [&] {
    std::uint64_t sum = 0;
    for (const Replica& r : replicas) sum += r.in_flight();
    return sum;
  };
  routers.dispatched(0, 0);
  routers.dispatched(0, 2);
  routers.dispatched(1, 1);  // not the instance shown
  EXPECT_EQ(routers.shown_in_flight(), 2u);
  EXPECT_EQ(routers.shown_in_flight(), shown());
  routers.enter(1);
  EXPECT_EQ(routers.shown_in_flight(), 1u);
  routers.dispatched(1, 1);
  routers.completed(0, 2);  // not the instance shown
  EXPECT_EQ(routers.shown_in_flight(), 2u);
  EXPECT_EQ(routers.shown_in_flight(), shown());
  routers.enter(0);
  EXPECT_EQ(routers.shown_in_flight(), 1u);
  EXPECT_EQ(routers.shown_in_flight(), shown());
}

TEST(RouterInstances, RoundRobinKeepsOneCursorPerInstance) {
  const Workload trace = twelve_requests();
  ClusterConfig cluster = three_replicas();
  cluster.replicas = 2;
  RoundRobin one;
  EXPECT_EQ(simulate(trace, cluster, one).replica_of,
            (std::vector<std::uint32_t>{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
  // Two routers, each with its own cursor: requests 0, 2, 4, ... go to 0, 1,
  // 0, ... and so do 1, 3, 5, ...: two consecutive requests share a replica.
  RoundRobin first, second;
  RoutingPolicy* const routers[] = {&first, &second};
  TraceSource source(trace);
  EXPECT_EQ(simulate(source, cluster, std::span<RoutingPolicy* const>(routers)).replica_of,
            (std::vector<std::uint32_t>{0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1}));
}

TEST(RouterInstances, TheScenarioFieldBuildsOnePolicyPerInstanceWithItsOwnSeed) {
  const ScenarioParse parse = parse_scenario("", {{"router.instances", "4"}, {"policies", "random"}});
  ASSERT_TRUE(parse.ok()) << parse.error_text();
  const auto instances = make_router_instances("random", parse.scenario.policy_params, policy_context(parse.scenario));
  ASSERT_EQ(instances.size(), 4u);
  // Instance 0 draws the single router's stream; instance 1 another one.
  const auto single = make_policy("random", parse.scenario.policy_params, policy_context(parse.scenario));
  const Workload trace = twelve_requests();
  ClusterConfig cluster = three_replicas();
  cluster.replicas = 64;
  const std::vector<std::uint32_t> alone = simulate(trace, cluster, *single).replica_of;
  EXPECT_EQ(simulate(trace, cluster, *instances[0]).replica_of, alone);
  EXPECT_NE(simulate(trace, cluster, *instances[1]).replica_of, alone);
  EXPECT_EQ(make_router_instances("no_such_policy", parse.scenario.policy_params, policy_context(parse.scenario)).size(), 0u);
}

// Every catalogued policy behind three routers, Dynamo's with its queue on
// and a threshold low enough to hold: every request is served.
TEST(RouterInstances, EveryPolicyRunsBehindSeveralRoutersWithTheRouterQueueOn) {
  const ScenarioParse parse =
      parse_scenario("", {{"policies", "all"}, {"workload.requests", "400"}, {"router.instances", "3"},
                          {"cluster.decode_ms_per_token", "5"}, {"dynamo_kv.router_queue", "spf"},
                          {"dynamo_kv.queue_threshold", "0.01"}});
  ASSERT_TRUE(parse.ok()) << parse.error_text();
  const ExperimentReport report = run_experiment(parse.scenario);
  ASSERT_EQ(report.outcomes.size(), parse.scenario.policies.size());
  for (const PolicyOutcome& o : report.outcomes) {
    ASSERT_EQ(o.run.ttft.size(), 400u) << o.policy;
    for (std::size_t i = 0; i < o.run.ttft.size(); ++i) {
      ASSERT_GT(o.run.ttft[i], 0) << o.policy << " request " << i;
      ASSERT_GE(o.run.end_to_end[i], o.run.ttft[i]) << o.policy << " request " << i;
    }
  }
}

TEST(RouterInstances, RefusesAnInstanceCountOutsideItsRange) {
  for (const char* bad : {"0", "257", "1.5"}) {
    const ScenarioParse parse = parse_scenario("", {{"router.instances", bad}});
    EXPECT_TRUE(testsupport::has_error(parse, "router.instances", {"256"})) << bad;
  }
}

}  // namespace
}  // namespace prefixroute::router_instances_test
