// A saturated batched replica delivers the step model's ceiling: the tokens/s
// hardware_summary_json reports as "bounds", within 2 %. Llama-3.1-8B on one
// H100 (derived step costs), one replica, every request waiting from the
// start, so no step is idle and every step has the shape the bound assumes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::batched_throughput_test {
namespace {

using Json = nlohmann::json;

Scenario saturated(std::vector<Override> extra) {
  std::vector<Override> o = {{"hardware.model", "llama-3.1-8b"},
                             {"hardware.gpu", "h100"},
                             {"cluster.engine", "batched"},
                             {"cluster.replicas", "1"},
                             {"workload.tenants", "1"},
                             {"workload.prefix_tokens_min", "0"},
                             {"workload.prefix_tokens_max", "0"},
                             {"workload.vocab_size", "4000000000"},
                             {"workload.arrival_rate_per_s", "1000000"},
                             {"policies", "round_robin"}};
  o.insert(o.end(), extra.begin(), extra.end());
  const ScenarioParse p = parse_scenario("", o);
  EXPECT_TRUE(p.ok()) << p.error_text();
  return p.scenario;
}

TEST(BatchedThroughput, SaturatedPrefillRunsAtTheFullBudgetStepsRate) {
  // Prompts of exactly the token budget: every step prefills one of them.
  const Scenario s = saturated({{"workload.requests", "300"},
                                {"workload.turn_tokens_min", "8192"},
                                {"workload.turn_tokens_max", "8192"}});
  const Json summary = Json::parse(hardware_summary_json(s));
  const double bound = summary["bounds"]["prefill_tokens_per_s"].get<double>();
  const ExperimentReport report = run_experiment(s);
  const RunSummary& r = report.outcomes[0].summary;
  ASSERT_EQ(r.cached_tokens, 0u);
  const double measured = static_cast<double>(r.prefill_tokens) / r.span_s;
  EXPECT_NEAR(measured / bound, 1.0, 0.02) << measured << " vs " << bound;
  // And the bound is what the step model says of such a step.
  EXPECT_NEAR(bound, 8192 / (s.cluster.step_model().step_ticks([] {
                               StepLoad l;
                               l.add(8192, 0);
                               return l;
                             }()) / 1e9),
              1e-6 * bound);
}

TEST(BatchedThroughput, SaturatedDecodeRunsMaxRunningTokensPerStep) {
  // One-token prompts, equal outputs, 64 sequences at a time; the KV and
  // attention terms given as 0 so a step's time does not depend on context.
  const Scenario s = saturated({{"workload.requests", "640"},
                                {"workload.turn_tokens_min", "1"},
                                {"workload.turn_tokens_max", "1"},
                                {"workload.output_tokens_min", "200"},
                                {"workload.output_tokens_max", "200"},
                                {"cluster.max_running", "64"},
                                {"cluster.kv_read_ns_per_token", "0"},
                                {"cluster.attention_ns_per_token_pair", "0"}});
  const Json summary = Json::parse(hardware_summary_json(s));
  const double bound = summary["bounds"]["decode_tokens_per_s"].get<double>();
  const ExperimentReport report = run_experiment(s);
  const RunSummary& r = report.outcomes[0].summary;
  EXPECT_EQ(r.output_tokens, 640u * 200u);
  EXPECT_NEAR(r.output_tokens_per_s / bound, 1.0, 0.02) << r.output_tokens_per_s << " vs " << bound;
  EXPECT_NEAR(r.mean_batch, 64.0, 0.5);
  // Every sequence's time per output token is one such step.
  EXPECT_NEAR(r.mean_tpot_ms, summary["step_ms"]["decode_full"].get<double>(), 1e-3);
}

}  // namespace
}  // namespace prefixroute::batched_throughput_test
