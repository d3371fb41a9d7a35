// The presets against published measurements (cluster/calibration.h): every
// KV capacity a server reported within 10 %, every measured prefill speed and
// decode step time within 15 %, and the list itself complete.
#include "prefixroute/cluster/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace prefixroute::calibration_test {
namespace {

using Kind = PublishedMeasurement::Kind;

std::string name_of(const PublishedMeasurement& row) {
  return std::string(row.model) + " on " + std::to_string(row.tp) + " x " + std::string(row.gpu) + ", " +
         std::string(row.engine) + ": " + std::string(row.what);
}

TEST(Calibration, EveryReportedKvCapacityIsMetWithin10Percent) {
  int rows = 0;
  for (const PublishedMeasurement& row : published_measurements()) {
    if (row.kind != Kind::KvCapacity) continue;
    ++rows;
    EXPECT_LE(std::fabs(model_error(row)), 0.10) << name_of(row) << ": prefixroute " << model_figure(row);
  }
  EXPECT_GE(rows, 2);
}

TEST(Calibration, EveryMeasuredPrefillSpeedAndStepTimeIsMetWithin15Percent) {
  int rows = 0;
  for (const PublishedMeasurement& row : published_measurements()) {
    if (row.kind == Kind::KvCapacity) continue;
    ++rows;
    EXPECT_LE(std::fabs(model_error(row)), 0.15) << name_of(row) << ": prefixroute " << model_figure(row);
  }
  EXPECT_GE(rows, 5);
}

// The measurements the brief names are all in the list (and so in the tables).
TEST(Calibration, TheNamedMeasurementsAreListed) {
  const auto listed = [](Kind kind, const char* model, const char* gpu, std::uint32_t tp, double measured) {
    for (const PublishedMeasurement& row : published_measurements())
      if (row.kind == kind && row.model == model && row.gpu == gpu && row.tp == tp && row.measured == measured)
        return true;
    return false;
  };
  EXPECT_TRUE(listed(Kind::KvCapacity, "qwen3-32b", "h100", 2, 307328));
  EXPECT_TRUE(listed(Kind::KvCapacity, "qwen3-0.6b", "l40s", 1, 350304));
  EXPECT_TRUE(listed(Kind::PrefillChunk, "qwen3-32b", "h100", 2, 20480));
  EXPECT_TRUE(listed(Kind::PrefillChunk, "qwen3-32b", "h100", 2, 15928));
  EXPECT_TRUE(listed(Kind::PrefillChunk, "gpt-oss-120b", "h100", 1, 39065));
  EXPECT_TRUE(listed(Kind::PrefillChunk, "qwen3-32b", "h200", 2, 15751));
}

// Each row's setup derives, and its sources are named.
TEST(Calibration, EveryRowDerivesAndNamesItsSource) {
  for (const PublishedMeasurement& row : published_measurements()) {
    EXPECT_TRUE(derive_hardware(measurement_settings(row), 16).ok()) << name_of(row);
    EXPECT_TRUE(std::isfinite(model_figure(row))) << name_of(row);
    EXPECT_FALSE(row.source.empty()) << name_of(row);
    EXPECT_FALSE(row.what.empty()) << name_of(row);
  }
}

}  // namespace
}  // namespace prefixroute::calibration_test
