// Properties that must hold for every valid scenario, checked on many random
// ones: each field drawn within its allowed range from the schema's field table
// (scenario_fields()), sizes kept small so hundreds of scenarios run in
// seconds. Fields this file does not know (added later) are drawn from their
// whole range too, so a new parameter is covered as soon as it exists.
//
// A failure names the scenario (its canonical JSON), so it can be replayed
// with `prefixroute --scenario`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/trace_reader.h"
#include "prefixroute/workload/synthetic.h"
#include "field_errors.h"
#include "random_scenario.h"
#include "shared_prefix_bound.h"

namespace prefixroute::property_test {
namespace {

#if PREFIXROUTE_TESTS_SANITIZED
constexpr int kScenarios = 24;
#else
constexpr int kScenarios = 200;
#endif
constexpr std::uint64_t kMasterSeed = testsupport::kPropertySuiteSeed;
constexpr double kTolerance = 1e-12;

struct Case {
  Scenario scenario;
  std::string json;  // canonical scenario, for messages
  std::unique_ptr<RequestTrace> workload;
  ExperimentReport report;
  std::vector<std::uint64_t> ideal_cached;  // per request: longest prefix shared with any earlier prompt
};

// The scenarios and their reports, built once for every test of the suite:
// cases 0 .. kScenarios - 1 of the generator's stream (random_scenario.h),
// each the same whatever else the catalogue holds. A case that lists no
// policy is counted, not run.
class RandomScenarios : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cases_ = new std::vector<Case>();
    unlisted_ = 0;
    for (int i = 0; i < kScenarios; ++i) {
      const testsupport::ParsedCase drawn = testsupport::parsed_random_case(kMasterSeed, static_cast<std::uint64_t>(i));
      if (!drawn.draw.runnable()) {
        ++unlisted_;
        continue;
      }
      ASSERT_TRUE(drawn.parse.ok()) << "case " << i << ": five random scenarios in a row were refused:\n"
                                    << drawn.refusals;
      const Scenario& scenario = drawn.parse.scenario;
      std::unique_ptr<RequestTrace> workload = generate_synthetic(scenario.workload, scenario.seed);
      std::vector<std::uint64_t> ideal = testsupport::shared_with_earlier_arrivals(*workload);
      ExperimentReport report = run_experiment(scenario);
      cases_->push_back(
          Case{scenario, scenario_to_json(scenario), std::move(workload), std::move(report), std::move(ideal)});
    }
  }
  static void TearDownTestSuite() {
    delete cases_;
    cases_ = nullptr;
  }
  static const std::vector<Case>& cases() { return *cases_; }
  static int unlisted() { return unlisted_; }

 private:
  static std::vector<Case>* cases_;
  static int unlisted_;
};

std::vector<Case>* RandomScenarios::cases_ = nullptr;
int RandomScenarios::unlisted_ = 0;

TEST_F(RandomScenarios, EveryListedPolicyRunsToTheEnd) {
  ASSERT_EQ(cases().size() + static_cast<std::size_t>(unlisted()), static_cast<std::size_t>(kScenarios));
  EXPECT_LE(unlisted(), kScenarios / 20);  // a list of no policy is rare (random_scenario.h)
  std::uint64_t runs = 0, requests = 0, evicting = 0, decoding = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    EXPECT_FALSE(c.report.cancelled);
    ASSERT_EQ(c.report.outcomes.size(), c.scenario.policies.size());
    for (std::size_t p = 0; p < c.report.outcomes.size(); ++p)
      EXPECT_EQ(c.report.outcomes[p].policy, c.scenario.policies[p]);
    runs += c.report.outcomes.size();
    requests += c.report.requests * c.report.outcomes.size();
    evicting += c.report.pooled.cached_tokens < c.report.ideal.cached_tokens ? 1 : 0;
    decoding += c.scenario.cluster.decode_ms_per_token > 0 && c.scenario.workload.output_tokens_max > 0 ? 1 : 0;
  }
  // The figures quoted in docs/reliability.md.
  std::printf("%zu scenarios (%d more list no policy), %llu policy runs, %llu routed requests; %llu scenarios where "
              "the pooled cache evicts, %llu with decode\n",
              cases().size(), unlisted(), static_cast<unsigned long long>(runs), static_cast<unsigned long long>(requests),
              static_cast<unsigned long long>(evicting), static_cast<unsigned long long>(decoding));
}

TEST_F(RandomScenarios, HitRateNeverExceedsTheIdealBound) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    EXPECT_LE(c.report.pooled.hit_rate, c.report.ideal.hit_rate + kTolerance);
    for (const PolicyOutcome& o : c.report.outcomes) {
      SCOPED_TRACE(o.policy);
      EXPECT_LE(o.summary.hit_rate, c.report.ideal.hit_rate + kTolerance);
    }
  }
}

// A replica's cache holds only prompts routed before: under a router queue
// (dynamo_kv.router_queue) a request may be routed after later arrivals, so
// its bound counts every prompt that had arrived by its first token
// (shared_prefix_bound.h); without one, the earlier arrivals only.
TEST_F(RandomScenarios, NoRequestFindsMoreCachedThanAPromptRoutedBeforeItShares) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    std::uint64_t ideal_total = 0;
    for (const std::uint64_t v : c.ideal_cached) ideal_total += v;
    EXPECT_EQ(c.report.ideal.cached_tokens, ideal_total);
    for (const PolicyOutcome& o : c.report.outcomes) {
      SCOPED_TRACE(o.policy);
      ASSERT_EQ(o.run.cached_of.size(), c.ideal_cached.size());
      const bool queued =
          make_policy(o.policy, c.scenario.policy_params, policy_context(c.scenario))->router_queue().has_value();
      const std::vector<std::uint64_t> bound =
          queued ? testsupport::shared_with_arrivals_by_first_token(*c.workload, o.run.ttft) : c.ideal_cached;
      for (std::size_t r = 0; r < c.ideal_cached.size(); ++r) {
        ASSERT_LE(o.run.cached_of[r], bound[r]) << "request " << r << (queued ? " (router queue)" : "");
        ASSERT_LE(o.run.cached_of[r], c.scenario.cluster.cache_tokens) << "request " << r;
      }
    }
  }
}

TEST_F(RandomScenarios, PrefillPlusCachedTokensEqualPromptTokens) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    const std::uint64_t prompt_tokens = c.workload->total_prompt_tokens();
    EXPECT_EQ(c.report.prompt_tokens, prompt_tokens);
    EXPECT_EQ(c.report.ideal.cached_tokens + c.report.ideal.prefill_tokens, prompt_tokens);
    EXPECT_EQ(c.report.pooled.cached_tokens + c.report.pooled.prefill_tokens, prompt_tokens);
    for (const PolicyOutcome& o : c.report.outcomes) {
      SCOPED_TRACE(o.policy);
      EXPECT_EQ(o.summary.prefill_tokens + o.summary.cached_tokens, prompt_tokens);
      std::uint64_t cached = 0, replica_prefill = 0, replica_cached = 0;
      for (const std::uint32_t v : o.run.cached_of) cached += v;
      for (const ReplicaTotals& r : o.run.replicas) {
        replica_prefill += r.prefill_tokens;
        replica_cached += r.cached_tokens;
      }
      EXPECT_EQ(cached, o.summary.cached_tokens);
      EXPECT_EQ(replica_cached, o.summary.cached_tokens);
      EXPECT_EQ(replica_prefill, o.summary.prefill_tokens);
    }
  }
}

TEST_F(RandomScenarios, EveryRequestIsServedExactlyOnce) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    const std::size_t n = c.workload->size();
    EXPECT_EQ(c.report.requests, n);
    for (const PolicyOutcome& o : c.report.outcomes) {
      SCOPED_TRACE(o.policy);
      ASSERT_EQ(o.run.ttft.size(), n);
      ASSERT_EQ(o.run.replica_of.size(), n);
      ASSERT_EQ(o.run.cached_of.size(), n);
      ASSERT_EQ(o.run.replicas.size(), c.scenario.cluster.replicas);
      std::vector<std::uint64_t> served(o.run.replicas.size(), 0);
      for (const std::uint32_t r : o.run.replica_of) {
        ASSERT_LT(r, o.run.replicas.size());
        ++served[r];
      }
      std::uint64_t total = 0;
      for (std::size_t r = 0; r < served.size(); ++r) {
        EXPECT_EQ(o.run.replicas[r].requests, served[r]) << "replica " << r;
        total += o.run.replicas[r].requests;
      }
      EXPECT_EQ(total, n);
      EXPECT_EQ(o.summary.requests, n);
    }
  }
}

TEST_F(RandomScenarios, TtftIsAtLeastTheUncachedPrefillTime) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    for (const PolicyOutcome& o : c.report.outcomes) {
      SCOPED_TRACE(o.policy);
      ASSERT_EQ(o.run.ttft.size(), c.workload->size());
      for (std::size_t r = 0; r < c.workload->size(); ++r) {
        const std::uint64_t uncached = c.workload->prompt_tokens(r) - o.run.cached_of[r];
        ASSERT_GE(o.run.ttft[r], c.scenario.cluster.prefill.prefill_ticks(uncached)) << "request " << r;
        if (!o.run.end_to_end.empty()) {
          ASSERT_GE(o.run.end_to_end[r], o.run.ttft[r]) << "request " << r;
        }
      }
    }
  }
}

TEST_F(RandomScenarios, TheSameScenarioGivesTheSameResultsJson) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.json);
    const std::string first = results_to_json(c.scenario, c.report);
    EXPECT_EQ(results_to_json(c.scenario, run_experiment(c.scenario)), first);
    // The canonical JSON is the whole scenario: reading it back changes nothing.
    const ScenarioParse again = parse_scenario(c.json);
    ASSERT_TRUE(again.ok()) << again.error_text();
    EXPECT_EQ(scenario_to_json(again.scenario), c.json);
  }
}

}  // namespace
}  // namespace prefixroute::property_test

// ---------------------------------------------------------------------------
// Hostile input: what the fuzzers found, kept as specifications. Each is
// refused with a message (or computed exactly) before anything large is
// allocated or any int64 tick overflows.

namespace prefixroute::property_test {
namespace {

using testsupport::has_error;

TEST(HostileInput, ArrivalSpanBeyondTheTickRangeIsRefused) {
  // 1e7 requests at 0.001/s: ~1e10 s of arrivals, past int64 nanoseconds.
  const ScenarioParse p = parse_scenario("", {{"workload.requests", "10000000"}, {"workload.arrival_rate_per_s", "0.001"}});
  EXPECT_TRUE(has_error(p, "workload.arrival_rate_per_s",
                        {"(the expected arrival span) must be at most 1000000000 s", "got 10000000000 s"}))
      << p.error_text();
}

TEST(HostileInput, PrefillWorkBeyondTheTickRangeIsRefused) {
  const ScenarioParse p = parse_scenario("", {{"workload.requests", "10000"},
                                              {"workload.tenants", "1"},
                                              {"workload.prefix_tokens_max", "1000000"},
                                              {"cluster.prefill_tokens_per_s", "1"}});
  EXPECT_TRUE(has_error(p, "cluster.prefill_tokens_per_s",
                        {"(the longest possible prefill work) must be at most 1000000000 s", "got 10001250000 s"}))
      << p.error_text();
}

TEST(HostileInput, OverrideKeysWithThousandsOfDotsAreRefused) {
  std::string key = "seed";
  for (int i = 0; i < 100000; ++i) key += ".a";
  const ScenarioParse p = parse_scenario("", {{key, "1"}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error_text().find("key longer than"), std::string::npos) << p.error_text();
  // Named by the key's first 40 characters, never the whole 200 kB key.
  ASSERT_EQ(p.errors.size(), 1u) << p.error_text();
  EXPECT_TRUE(has_error(p, key.substr(0, 40) + "...",
                        {"key longer than 256 characters", "use dotted keys such as workload.requests"}));
}

TEST(HostileInput, DeeplyNestedOverrideValuesAreNamedNotDumped) {
  std::string key = "seed";
  for (int i = 0; i < 100; ++i) key += ".a";  // within the key length limit
  const ScenarioParse p = parse_scenario("", {{key, "1"}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error_text().find("seed: must be an integer"), std::string::npos) << p.error_text();
  // The nested object the key builds is described, not printed.
  ASSERT_EQ(p.errors.size(), 1u) << p.error_text();
  EXPECT_TRUE(has_error(p, "seed", {"must be an integer in [0, 9007199254740991]; got an object"}));
  EXPECT_EQ(p.errors[0].message.find('{'), std::string::npos) << p.errors[0].message;
}

TEST(HostileInput, TextThatIsNotUtf8IsRefusedNotThrown) {
  const ScenarioParse name = parse_scenario("", {{"trace.name", "caf\xE9"}});
  EXPECT_TRUE(has_error(name, "trace.name", {"must be valid UTF-8 text"})) << name.error_text();
  const ScenarioParse seed = parse_scenario("", {{"seed", "\xFF\xFE"}});
  // The message quotes the value with each bad byte replaced (U+FFFD): it is valid UTF-8 itself.
  EXPECT_TRUE(has_error(seed, "seed",
                        {"must be an integer in [0, 9007199254740991]", "got \"\xEF\xBF\xBD\xEF\xBF\xBD\" (a string)"}))
      << seed.error_text();
  // Built in code, the canonical JSON replaces the bad bytes instead of throwing.
  Scenario s = Scenario::reference();
  s.trace.name = "caf\xE9";
  EXPECT_NE(scenario_to_json(s).find("caf\xEF\xBF\xBD"), std::string::npos);
}

TEST(HostileInput, DeeplyNestedTraceLinesAreRefusedBeforeParsing) {
  const std::string deep(2'000'000, '[');
  const std::string line = "{\"timestamp\": " + deep + ", \"input_length\": 1, \"output_length\": 0, \"hash_ids\": [1]}\n";
  const TraceReadResult r = read_trace(line, TraceReadOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error_text().find("nesting deeper than"), std::string::npos) << r.error_text();
  ASSERT_EQ(r.problems.size(), 1u) << r.error_text();
  EXPECT_EQ(r.problems[0].line, 1u);
  EXPECT_EQ(r.problems[0].field, "");  // the line as a whole, not one of its fields
  EXPECT_EQ(r.problems[0].message, "nesting deeper than 16 levels");
}

TEST(HostileInput, TraceTimestampsBeyondTheTickRangeAreBadLines) {
  const std::string text =
      "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 0, \"hash_ids\": [1]}\n"
      "{\"timestamp\": 1e300, \"input_length\": 4, \"output_length\": 0, \"hash_ids\": [1]}\n";
  TraceReadOptions options;
  options.block_size = 16;
  const TraceReadResult stop = read_trace(text, options);
  ASSERT_FALSE(stop.ok());
  EXPECT_NE(stop.error_text().find("line 2, timestamp"), std::string::npos) << stop.error_text();
  ASSERT_EQ(stop.problems.size(), 1u) << stop.error_text();
  EXPECT_EQ(stop.problems[0].line, 2u);
  EXPECT_EQ(stop.problems[0].field, "timestamp");
  EXPECT_NE(stop.problems[0].message.find("must be at most 1e+12 ms at this time_scale"), std::string::npos)
      << stop.problems[0].message;
  EXPECT_NE(stop.problems[0].message.find("got 1e+300"), std::string::npos) << stop.problems[0].message;
  options.on_error = TraceReadOptions::OnError::Skip;
  const TraceReadResult skip = read_trace(text, options);
  ASSERT_TRUE(skip.ok());
  EXPECT_EQ(skip.trace->size(), 1u);
  EXPECT_EQ(skip.bad_lines, 1u);
  ASSERT_EQ(skip.problems.size(), 1u);
  EXPECT_EQ(skip.problems[0].line, 2u);
  EXPECT_EQ(skip.problems[0].field, "timestamp");
}

TEST(HostileInput, MeanTtftOfHugeWaitsDoesNotOverflow) {
  SimulationRun run;
  run.replicas.resize(1);
  run.ttft.assign(4, Tick{1} << 62);  // the sum is 2^64 ns
  const RunSummary s = summarize(run);
  EXPECT_DOUBLE_EQ(s.mean_ttft_ms, std::ldexp(1.0, 62) / 1e6);
}

}  // namespace
}  // namespace prefixroute::property_test
