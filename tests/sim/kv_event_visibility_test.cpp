// When a router sees a prefix, by where its view comes from: a router fed by
// the engines' KV events (precise_view(), the lagged mirror) sees a prompt's
// blocks once the step that computes them has ended plus the event lag; a
// router that indexes its own decisions (sglang_cache_aware) sees them from
// the moment it routes the prompt. Batched engine, one replica, one token of
// prefill per millisecond, 16-token blocks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "prefixroute/policies/sglang_cache_aware.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/workload.h"
#include "tokens.h"

namespace prefixroute::kv_event_visibility_test {
namespace {

using testsupport::run_of;

constexpr Tick kMs = kTicksPerMillisecond;

// Routes with sglang_cache_aware and records, at each request, what the
// KV-event view of replica 0 holds of the prompt and what the policy's own
// tree predicted.
class Probe final : public RoutingPolicy {
 public:
  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override {
    precise.push_back(cluster.replicas()[0].precise_view().match(request.prompt));
    const std::size_t chosen = inner_.choose(request, cluster, now);
    own.push_back(inner_.predicted_cached_tokens());
    return chosen;
  }
  void on_routed(const RoutedRequest& r) override { inner_.on_routed(r); }
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override {
    inner_.on_first_token(id, replica, now);
  }
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override { inner_.on_completed(id, replica, now); }
  std::string_view name() const override { return "probe"; }
  bool reads_in_flight_order() const override { return true; }

  std::vector<std::size_t> precise;
  std::vector<std::int64_t> own;

 private:
  SglangCacheAware inner_{SglangCacheAwareParams{}};
};

// Four requests of one tenant (a 64-token prefix, 8 tokens of their own):
// a at 0 computes its 72 tokens in 0 - 72 ms; b arrives during that step,
// c at 74 ms (after the step, before its events arrive at 72 + 5 ms), d at
// 80 ms. The KV-event view shows a's 64 prompt-block tokens only to d; the
// router's own tree shows them to b, c and d. Under both reuse rules.
TEST(KvEventVisibility, AKvEventRouterSeesAPrefixAfterItsComputeAndTheLagAnOwnIndexRouterAtRouting) {
  for (const PrefixReuse reuse : {PrefixReuse::Scheduled, PrefixReuse::Computed}) {
    SCOPED_TRACE(static_cast<int>(reuse));
    Workload trace({run_of(1000, 64)},
                   {{0 * kMs, 0, 8, 1, 1}, {10 * kMs, 0, 8, 2, 1}, {74 * kMs, 0, 8, 3, 1}, {80 * kMs, 0, 8, 4, 1}},
                   1'000'000'000);
    ClusterConfig c;
    c.replicas = 1;
    c.cache_tokens = 100'000;
    c.protect_after_hits = 0;
    c.prefill.tokens_per_s = 1000;
    c.engine = EngineKind::Batched;
    c.kv_block_tokens = 16;
    c.prefix_reuse = reuse;
    RouterConfig router;
    router.kv_event_lag_ms = 5;
    Probe probe;
    const SimulationRun run = simulate(trace, c, probe, {}, 4096, router);
    EXPECT_EQ(probe.precise, (std::vector<std::size_t>{0, 0, 0, 64}));
    EXPECT_EQ(probe.own, (std::vector<std::int64_t>{0, 64, 64, 64}));
    // The engine itself: b is scheduled in the step after a's (at 72 ms),
    // when a's blocks are cached under either rule.
    EXPECT_EQ(run.cached_of, (std::vector<std::uint32_t>{0, 64, 64, 64}));
  }
}

}  // namespace
}  // namespace prefixroute::kv_event_visibility_test
