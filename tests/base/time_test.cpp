// Simulated time: seconds to integer ticks, exactly and saturating.
#include "prefixroute/base/time.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace prefixroute::time_test {
namespace {

TEST(SecondsToTicks, RoundsToTheNearestNanosecond) {
  EXPECT_EQ(seconds_to_ticks(0.05), 50'000'000);
  EXPECT_EQ(seconds_to_ticks(1.5e-9), 2);
  EXPECT_EQ(seconds_to_ticks(0), 0);
}

TEST(SecondsToTicksSaturating, EqualsTheExactConversionInRange) {
  for (const double s : {0.0, 0.05, 3600.0, 1e9, 9.2e9})
    EXPECT_EQ(seconds_to_ticks_saturating(s), seconds_to_ticks(s)) << s;
}

TEST(SecondsToTicksSaturating, BeyondTheTickRangeGivesTheLargestTick) {
  constexpr Tick kMax = std::numeric_limits<Tick>::max();
  EXPECT_EQ(seconds_to_ticks_saturating(9.3e9), kMax);
  EXPECT_EQ(seconds_to_ticks_saturating(static_cast<double>(kMax) / 1e9), kMax);
  EXPECT_EQ(seconds_to_ticks_saturating(1e300), kMax);
  EXPECT_EQ(seconds_to_ticks_saturating(INFINITY), kMax);
}

}  // namespace
}  // namespace prefixroute::time_test
