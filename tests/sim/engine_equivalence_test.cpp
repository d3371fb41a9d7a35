// The batched engine against the fifo engine and against the step model's
// own bounds, through whole runs (run_experiment).
//
// Degenerate settings: with one sequence at a time (max_running 1), a token
// budget larger than any prompt, blocks of one token, no step costs (t0 = 0,
// no attention, no memory terms), the same prefill rate and no decode, a
// batched replica runs each request alone in one step of uncached / rate, in
// arrival order: the fifo engine's schedule. The cache sees the same inserts
// in the same order (fifo inserts at arrival, batched when the request's step
// is formed, but each replica's order is its arrival order either way), so
// every request finds the same cached prefix and takes the same time.
//
// What can still differ is what a policy reads while requests wait: the fifo
// engine's cache already holds a waiting request's prompt, the batched one's
// does not (a real engine's does not either), and busy_until() is the
// batched engine's estimate. So the runs are byte-identical for policies
// that read neither engine caches nor waits (round robin, CHWBL) whatever the
// load, and for every policy whenever no request waits; llm-d EPP reads the
// scraped KV usage, which the batched engine reports as vLLM does (held
// blocks, not cached ones), so it differs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "files.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/policies/round_robin.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute::engine_equivalence_test {
namespace {

using Json = nlohmann::json;

const std::vector<Override> kDegenerate = {{"cluster.engine", "batched"},
                                           {"cluster.max_running", "1"},
                                           {"cluster.max_batched_tokens", "10000000"},
                                           {"cluster.kv_block_tokens", "1"}};

Scenario parsed(const std::string& document, std::vector<Override> overrides) {
  const ScenarioParse p = parse_scenario(document, overrides);
  EXPECT_TRUE(p.ok()) << p.error_text();
  return p.scenario;
}

std::vector<Override> with(std::vector<Override> a, const std::vector<Override>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Every per-request and per-replica number fifo reports, equal; the results
// JSON's rows equal on fifo's keys (peak_kv_usage aside: fifo samples the
// cache's size, batched the KV held).
void expect_same_runs(const ExperimentReport& fifo, const ExperimentReport& batched) {
  ASSERT_EQ(fifo.outcomes.size(), batched.outcomes.size());
  for (std::size_t p = 0; p < fifo.outcomes.size(); ++p) {
    const SimulationRun& f = fifo.outcomes[p].run;
    const SimulationRun& b = batched.outcomes[p].run;
    SCOPED_TRACE(fifo.outcomes[p].policy);
    ASSERT_EQ(f.ttft.size(), b.ttft.size());
    for (std::size_t i = 0; i < f.ttft.size(); ++i) {
      ASSERT_EQ(f.replica_of[i], b.replica_of[i]) << "request " << i;
      ASSERT_EQ(f.cached_of[i], b.cached_of[i]) << "request " << i;
      ASSERT_EQ(f.ttft[i], b.ttft[i]) << "request " << i;
      ASSERT_EQ(f.end_to_end[i], b.end_to_end[i]) << "request " << i;
    }
    for (std::size_t r = 0; r < f.replicas.size(); ++r) {
      EXPECT_EQ(f.replicas[r].requests, b.replicas[r].requests);
      EXPECT_EQ(f.replicas[r].prefill_tokens, b.replicas[r].prefill_tokens);
      EXPECT_EQ(f.replicas[r].cached_tokens, b.replicas[r].cached_tokens);
      EXPECT_EQ(f.replicas[r].busy_ticks, b.replicas[r].busy_ticks);
      EXPECT_EQ(f.replicas[r].peak_in_flight, b.replicas[r].peak_in_flight);
    }
    EXPECT_EQ(f.in_flight_samples, b.in_flight_samples);
  }
}

void expect_same_result_rows(const Scenario& fs, const ExperimentReport& fifo, const Scenario& bs,
                             const ExperimentReport& batched) {
  const Json f = Json::parse(results_to_json(fs, fifo));
  const Json b = Json::parse(results_to_json(bs, batched));
  for (std::size_t p = 0; p < f["results"].size(); ++p) {
    for (const auto& [key, value] : f["results"][p].items()) {
      if (key == "replicas") {
        for (std::size_t r = 0; r < value.size(); ++r) {
          for (const auto& [k, v] : value[r].items()) {
            if (k != "peak_kv_usage") {
              EXPECT_EQ(v, b["results"][p]["replicas"][r][k]) << key << "." << k;
            }
          }
        }
      } else {
        EXPECT_EQ(value, b["results"][p][key]) << key;
      }
    }
  }
  EXPECT_EQ(f["bounds"], b["bounds"]);
  EXPECT_EQ(f["workload"], b["workload"]);
}

class Degenerate : public ::testing::TestWithParam<std::string> {};

TEST_P(Degenerate, OneSequenceAtATimeIsTheFifoEngineForPoliciesBlindToCachesAndWaits) {
  const std::string document =
      GetParam().empty() ? "" : testsupport::read_file(testsupport::source_path(GetParam())).value_or("");
  const std::vector<Override> policies = {{"policies", "round_robin,chwbl"}};
  const Scenario fs = parsed(document, policies);
  const Scenario bs = parsed(document, with(policies, kDegenerate));
  ASSERT_EQ(bs.cluster.engine, EngineKind::Batched);
  const ExperimentReport fifo = run_experiment(fs);
  const ExperimentReport batched = run_experiment(bs);
  expect_same_runs(fifo, batched);
  expect_same_result_rows(fs, fifo, bs, batched);
}

INSTANTIATE_TEST_SUITE_P(Presets, Degenerate,
                         ::testing::Values("", "scenarios/one-hot-tenant.json", "scenarios/overloaded.json",
                                           "scenarios/cache-fits.json"));

// A light load (no request ever waits behind another): every policy but
// llm-d EPP sees the same cluster under both engines.
TEST(DegenerateWithoutQueueing, EveryPolicyButLlmdRoutesAndServesIdentically) {
  const std::vector<Override> light = {{"workload.requests", "2000"},
                                       {"workload.arrival_rate_per_s", "20"},
                                       {"cluster.prefill_tokens_per_s", "1000000000"},
                                       {"cluster.cache_tokens", "3000"},
                                       {"policies", "round_robin,least_loaded,affinity,affinity_balanced,"
                                                    "expected_ttft,dynamo_kv,chwbl,sglang_cache_aware,preble_e2"}};
  const Scenario fs = parsed("", light);
  const Scenario bs = parsed("", with(light, kDegenerate));
  const ExperimentReport fifo = run_experiment(fs);
  const ExperimentReport batched = run_experiment(bs);
  // The premise: nobody waited (TTFT is the request's own prefill time).
  for (const PolicyOutcome& o : fifo.outcomes)
    for (std::size_t i = 0; i < o.run.ttft.size(); ++i)
      ASSERT_LE(o.run.ttft[i], 2000) << o.policy << " request " << i;  // ~1 us per token
  expect_same_runs(fifo, batched);
  expect_same_result_rows(fs, fifo, bs, batched);
}

// Through the simulator: a request arriving on the very tick a step ends
// joins the step formed then (engine events after arrivals, sim/engine.h).
TEST(BatchedSimulation, ARequestArrivingAsAStepEndsJoinsTheStepFormedThen) {
  constexpr Tick kMs = kTicksPerMillisecond;
  const std::vector<Request> requests = {
      // arrival, tenant, turn tokens, turn seed, output
      {0, 0, 10, 1, 3},       // prefills 0-10 ms, then decodes
      {10 * kMs, 0, 5, 2, 1},  // arrives as the first step ends
  };
  const Workload trace({{}}, requests, 1'000'000'000);
  ClusterConfig c;
  c.replicas = 1;
  c.cache_tokens = 1000;
  c.prefill.tokens_per_s = 1000;
  c.engine = EngineKind::Batched;
  c.kv_block_tokens = 1;
  RoundRobin policy;
  const SimulationRun run = simulate(trace, c, policy);
  EXPECT_EQ(run.ttft[0], 10 * kMs);
  EXPECT_EQ(run.ttft[1], 6 * kMs);   // one step: request 0's decode token and its 5 prompt tokens
  EXPECT_EQ(run.end_to_end[0], 10 * kMs + 6 * kMs + 1 * kMs);
  ASSERT_EQ(run.tpot_ns.size(), 1u);
  EXPECT_EQ(run.tpot_ns[0], 3.5e6);  // two steps after its first token: 6 ms and 1 ms
  // Request 1 generated one token: no TPOT sample, so the mean is request 0's.
  EXPECT_DOUBLE_EQ(summarize(run).mean_tpot_ms, 3.5);
}

}  // namespace
}  // namespace prefixroute::engine_equivalence_test
