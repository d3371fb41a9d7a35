// The sweep, as a specification: how a --sweep text is read, what a sweep
// runs and keeps, and how its JSON marks the Pareto front.
#include "prefixroute/run/sweep.h"
#include "prefixroute/io/sweep_json.h"

#include "prefixroute/policies/catalogue.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace prefixroute::sweep_test {
namespace {

SweepSpec parsed(const std::string& text) {
  SweepSpec spec;
  std::string error;
  EXPECT_TRUE(parse_sweep(text, spec, error)) << text << ": " << error;
  return spec;
}

std::string refused(const std::string& text) {
  SweepSpec spec;
  std::string error;
  EXPECT_FALSE(parse_sweep(text, spec, error)) << text;
  return error;
}

TEST(ParseSweep, ARangeIsEvenlySpacedWithBothEnds) {
  const SweepSpec spec = parsed("affinity_balanced.load_slack_s=0:0.2:5");
  EXPECT_EQ(spec.key, "affinity_balanced.load_slack_s");
  EXPECT_EQ(spec.values, (std::vector<std::string>{"0", "0.05", "0.1", "0.15", "0.2"}));
}

TEST(ParseSweep, RangeValuesAreWrittenWithTwelveSignificantDigits) {
  EXPECT_EQ(parsed("k=0:1:4").values, (std::vector<std::string>{"0", "0.333333333333", "0.666666666667", "1"}));
  EXPECT_EQ(parsed("k=1e6:3e6:2").values, (std::vector<std::string>{"1000000", "3000000"}));
  EXPECT_EQ(parsed("k=10:-10:3").values, (std::vector<std::string>{"10", "0", "-10"}));
}

TEST(ParseSweep, ARangeOverAnIntegerFieldIsRoundedHalfUpWithoutRepeats) {
  EXPECT_EQ(parsed("cluster.replicas=1:4:5").values, (std::vector<std::string>{"1", "2", "3", "4"}));
  EXPECT_EQ(parsed("cluster.replicas=2:3:4").values, (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(parsed("cluster.replicas=8:2:3").values, (std::vector<std::string>{"8", "5", "2"}));
  EXPECT_EQ(parsed("seed=9007199254740000:9007199254740991:2").values,
            (std::vector<std::string>{"9007199254740000", "9007199254740991"}));
}

TEST(ParseSweep, AListIsTakenAsWrittenAndATrailingCommaAddsNothing) {
  EXPECT_EQ(parsed("cluster.replicas=2,4,8").values, (std::vector<std::string>{"2", "4", "8"}));
  EXPECT_EQ(parsed("seed=1,2,").values, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(parsed("seed=1,,2").values, (std::vector<std::string>{"1", "", "2"}));
}

TEST(ParseSweep, RefusesWhatIsNotARangeOrAList) {
  EXPECT_NE(refused("no-equals").find("expected key=v1,v2"), std::string::npos);
  EXPECT_NE(refused("=1,2").find("expected key=v1,v2"), std::string::npos);
  EXPECT_NE(refused("seed=").find("seed: a sweep needs 1 to 200 values"), std::string::npos);
  for (const char* bad : {"k=0:1", "k=0:1:1", "k=0:1:201", "k=0:1:2.5", "k=0:1:5:6", "k=a:1:3", "k=0:inf:3",
                          "k=nan:1:3", "k=0x10:20:3", "k=0:1 :3", "k=1e400:1:3", "k=0:1:"}) {
    const std::string error = refused(bad);
    EXPECT_NE(error.find("k: a range must be from:to:steps"), std::string::npos) << bad;
    // What is allowed, and what was given.
    EXPECT_NE(error.find("with numbers and 2 <= steps <= 200"), std::string::npos) << error;
    EXPECT_NE(error.find("got \"" + std::string(bad).substr(2) + "\""), std::string::npos) << error;
  }
  std::string many = "k=0";
  for (int i = 1; i <= 200; ++i) {
    many += ',';
    many += std::to_string(i);
  }
  EXPECT_NE(refused(many).find("1 to 200 values"), std::string::npos);
  EXPECT_EQ(refused(many), "k: a sweep needs 1 to 200 values");
}

TEST(RunSweep, ABadValueNamesItsFieldAndValueAndNothingRuns) {
  const SweepReport report = run_sweep("", {}, parsed("cluster.replicas=4,0"));
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].field, "cluster.replicas");
  EXPECT_NE(report.errors[0].message.find("(sweep value \"0\")"), std::string::npos);
  EXPECT_NE(report.errors[0].message.find("must be an integer in [1, 4096] (replicas); got 0"), std::string::npos)
      << report.errors[0].message;
  EXPECT_TRUE(report.points.empty());
}

TEST(RunSweep, KeepsEachPointsSummariesAndReleasesItsPerRequestSeries) {
  const std::vector<Override> small = {{"workload.requests", "300"}, {"policies", "affinity,round_robin"}};
  const SweepReport report = run_sweep("", small, parsed("seed=1,2"));
  ASSERT_TRUE(report.errors.empty());
  ASSERT_EQ(report.points.size(), 2u);
  for (const SweepPoint& p : report.points) {
    ASSERT_EQ(p.report.outcomes.size(), 2u);
    for (const PolicyOutcome& o : p.report.outcomes) {
      EXPECT_GT(o.summary.p99_ttft_ms, 0);
      EXPECT_TRUE(o.run.ttft.empty());
      EXPECT_TRUE(o.run.replica_of.empty());
    }
  }
  EXPECT_EQ(report.points[1].scenario.seed, 2u);
}

TEST(RunSweep, ProgressCanCancel) {
  const std::vector<Override> small = {{"workload.requests", "300"}};
  const SweepReport report =
      run_sweep("", small, parsed("seed=1,2,3"), [](std::size_t point, std::size_t, std::uint64_t, std::uint64_t) {
        return point < 1;
      });
  EXPECT_TRUE(report.cancelled);
}

TEST(SweepJson, MarksExactlyTheUndominatedPoints) {
  const std::vector<Override> small = {{"workload.requests", "800"}};
  const SweepSpec spec = parsed("workload.arrival_rate_per_s=60:160:3");
  const auto doc = nlohmann::json::parse(sweep_to_json(spec, run_sweep("", small, spec)));
  EXPECT_EQ(doc["schema"], "prefixroute.sweep/1");
  EXPECT_EQ(doc["recommended"], std::string(recommended_policy()));
  EXPECT_EQ(doc["key"], "workload.arrival_rate_per_s");
  std::vector<nlohmann::json> all;
  for (const auto& point : doc["points"])
    for (const auto& r : point["results"]) all.push_back(r);
  int front = 0;
  for (const auto& x : all) {
    bool dominated = false;
    for (const auto& y : all) {
      const double xh = x["hit_rate"], xp = x["p99_ttft_ms"], yh = y["hit_rate"], yp = y["p99_ttft_ms"];
      dominated |= yh >= xh && yp <= xp && (yh > xh || yp < xp);
    }
    EXPECT_EQ(x["pareto"].get<bool>(), !dominated);
    front += !dominated;
  }
  EXPECT_GT(front, 0);
}

}  // namespace
}  // namespace prefixroute::sweep_test
