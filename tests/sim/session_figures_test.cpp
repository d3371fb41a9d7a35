// Per-session figures (sim/session_tally.h): the tally's counts by hand, a
// simulated conversation's later-call hit rate and one-replica share by hand,
// and where the results JSON shows them (only for workloads with sessions, so
// other scenarios' results are unchanged; the command line's tables are
// checked in tests/cli/bench_cli_test.sh).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/run/replicates.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/sim/session_tally.h"
#include "tokens.h"

namespace prefixroute::session_figures_test {
namespace {

using testsupport::concat;
using testsupport::run_of;
using testsupport::Tokens;

TEST(SessionTally, CountsLaterCallsAndSessionsThatStayedByHand) {
  SessionTally tally;
  tally.routed(0, 1, 0, 100);  // session 1: replicas 0, 0, 1 (moved)
  tally.routed(1, 1, 0, 150);
  tally.routed(2, 2, 2, 50);   // session 2: one call
  tally.routed(3, 1, 1, 200);
  tally.routed(4, 3, 1, 80);   // session 3: replicas 1, 1
  tally.routed(5, 3, 1, 120);
  const std::vector<std::uint32_t> cached = {0, 90, 0, 10, 0, 100};
  const SessionFigures f = tally.figures(cached);
  EXPECT_TRUE(f.present());
  EXPECT_EQ(f.sessions, 3u);
  EXPECT_EQ(f.multi_call_sessions, 2u);
  EXPECT_EQ(f.one_replica_sessions, 1u);
  EXPECT_EQ(f.later_calls, 3u);
  EXPECT_EQ(f.later_prompt_tokens, 150u + 200u + 120u);
  EXPECT_EQ(f.later_cached_tokens, 90u + 10u + 100u);
}

TEST(SessionTally, SingleCallSessionsAloneAreNotShown) {
  SessionTally tally;
  tally.routed(0, 5, 0, 10);
  tally.routed(1, 6, 1, 10);
  const SessionFigures f = tally.figures(std::vector<std::uint32_t>{0, 0});
  EXPECT_EQ(f.sessions, 2u);
  EXPECT_EQ(f.later_calls, 0u);
  EXPECT_FALSE(f.present());
}

// Calls one second apart (every prefill long done), each a session's call.
class Calls final : public RequestTrace {
 public:
  struct Call {
    std::uint64_t session;
    Tokens tokens;
  };
  explicit Calls(std::vector<Call> calls) : calls_(std::move(calls)) {}
  std::size_t size() const override { return calls_.size(); }
  Tick arrival(std::size_t i) const override { return static_cast<Tick>(i) * kTicksPerSecond; }
  std::uint64_t prompt_tokens(std::size_t i) const override { return calls_[i].tokens.size(); }
  std::uint64_t output_tokens(std::size_t) const override { return 0; }
  std::uint64_t session(std::size_t i) const override { return calls_[i].session; }
  bool has_sessions() const override { return true; }
  const Content& content() const override { return testsupport::test_store(); }
  void prompt(std::size_t i, PromptPieces& out) const override { out = testsupport::prompt_of(calls_[i].tokens); }

 private:
  std::vector<Call> calls_;
};

// Session 7 grows A, A+B, A+B+C, A+B+C+D (10 tokens each); session 9 sends X once, second.
Calls conversation() {
  const Tokens a = run_of(100, 10), b = run_of(200, 10), c = run_of(300, 10), d = run_of(400, 10);
  return Calls({{7, a}, {9, run_of(5000, 10)}, {7, concat(a, b)}, {7, concat(concat(a, b), c)},
                {7, concat(concat(concat(a, b), c), d)}});
}

SimulationRun run(const RequestTrace& trace, std::uint32_t replicas) {
  Scenario s = Scenario::reference();
  s.cluster.replicas = replicas;
  s.cluster.cache_tokens = 100000;
  auto policy = make_policy("round_robin", s.policy_params, policy_context(s));
  return simulate(trace, s.cluster, *policy);
}

TEST(SessionFigures, RoundRobinMovesTheConversationAndLosesPartOfItsHistory) {
  const Calls trace = conversation();
  // Round robin: replicas 0, 1, 0, 1, 0. Session 7's later calls: A+B on 0
  // (A cached: 10), A+B+C on 1 (only X there: 0), A+B+C+D on 0 (A+B: 20).
  const SimulationRun r = run(trace, 2);
  ASSERT_EQ(r.replica_of, (std::vector<std::uint32_t>{0, 1, 0, 1, 0}));
  const RunSummary s = summarize(r);
  ASSERT_TRUE(s.has_sessions);
  EXPECT_EQ(s.sessions, 2u);
  EXPECT_EQ(s.multi_call_sessions, 1u);
  EXPECT_DOUBLE_EQ(s.later_call_hit_rate, 30.0 / 90.0);
  EXPECT_DOUBLE_EQ(s.one_replica_session_share, 0.0);
}

TEST(SessionFigures, OneReplicaKeepsTheConversationAndItsWholeHistory) {
  const Calls trace = conversation();
  const RunSummary s = summarize(run(trace, 1));
  ASSERT_TRUE(s.has_sessions);
  EXPECT_DOUBLE_EQ(s.later_call_hit_rate, (10.0 + 20.0 + 30.0) / 90.0);
  EXPECT_DOUBLE_EQ(s.one_replica_session_share, 1.0);
}

Scenario small(const std::string& kind, const std::string& replicates = "1") {
  ScenarioParse p = parse_scenario("", {{"workload.kind", kind},
                                        {"workload.requests", "200"},
                                        {"cluster.replicas", "3"},
                                        {"replicates", replicates},
                                        {"policies", "round_robin,affinity"}});
  EXPECT_TRUE(p.ok()) << p.error_text();
  return p.scenario;
}

TEST(SessionFigures, ResultsShowThemOnlyForWorkloadsWithSessions) {
  for (const std::string kind : {"tenants", "gsp"}) {
    const Scenario s = small(kind);
    const ExperimentReport report = run_experiment(s);
    EXPECT_FALSE(report.outcomes[0].summary.has_sessions) << kind;
    EXPECT_EQ(results_to_json(s, report).find("later_call_hit_rate"), std::string::npos) << kind;
  }
  for (const std::string kind : {"sessions", "agentic"}) {
    const Scenario s = small(kind);
    const ExperimentReport report = run_experiment(s);
    for (const PolicyOutcome& o : report.outcomes) {
      ASSERT_TRUE(o.summary.has_sessions) << kind;
      EXPECT_GT(o.summary.multi_call_sessions, 0u);
      EXPECT_LE(o.summary.multi_call_sessions, o.summary.sessions);
    }
    const std::string json = results_to_json(s, report);
    for (const char* key : {"\"sessions\"", "\"multi_call_sessions\"", "\"later_call_hit_rate\"", "\"one_replica_session_share\""})
      EXPECT_NE(json.find(key), std::string::npos) << kind << " " << key;
  }
}

TEST(SessionFigures, ReplicatesAverageThemWithIntervals) {
  const Scenario s = small("sessions", "3");
  const ExperimentReport report = run_experiment(s);
  const ReplicateStats stats = replicate_stats(report);
  const ReplicatedMetric* m = stats.policies[0].find("later_call_hit_rate");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->per_seed.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k)
    EXPECT_DOUBLE_EQ(m->per_seed[k], report.seeds[k].outcomes[0].summary.later_call_hit_rate);
}

}  // namespace
}  // namespace prefixroute::session_figures_test
