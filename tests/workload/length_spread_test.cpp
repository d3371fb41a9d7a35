// Lengths drawn as inference-perf draws them (LengthSpread) and the
// project's normal (Rng::normal) they rest on: the polar method on the
// stream's uniforms exactly, its moments, its bound, numpy's rounding, the
// clipping, and golden values (computed once by running the code) that pin
// the same bits natively and in WebAssembly.
#include "prefixroute/workload/length_spread.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "prefixroute/base/deterministic_math.h"
#include "prefixroute/base/random.h"

namespace prefixroute::length_spread_test {
namespace {

#if PREFIXROUTE_TESTS_SANITIZED
constexpr int kDraws = 20'000;
#else
constexpr int kDraws = 200'000;
#endif

TEST(RngNormal, IsMarsagliasPolarMethodOnTheStreamsUniforms) {
  Rng rng(7), reference(7);
  for (int i = 0; i < 10'000; ++i) {
    double expected = 0;
    for (;;) {
      const double u = 2.0 * reference.uniform01() - 1.0;
      const double v = 2.0 * reference.uniform01() - 1.0;
      const double s = u * u + v * v;
      if (s > 0.0 && s < 1.0) {
        expected = u * std::sqrt(-2.0 * dmath::log(s) / s);
        break;
      }
    }
    ASSERT_EQ(rng.normal(), expected) << "draw " << i;
  }
  EXPECT_EQ(rng.next_u64(), reference.next_u64()) << "both consumed the same draws";
}

TEST(RngNormal, HasMeanZeroAndVarianceOne) {
  Rng rng(11);
  double sum = 0, squares = 0;
  int within_one = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double z = rng.normal();
    sum += z;
    squares += z * z;
    within_one += std::fabs(z) < 1.0 ? 1 : 0;
  }
  const double n = kDraws;
  EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(squares / n, 1.0, 5.0 * std::sqrt(2.0 / n));  // the variance of z^2 is 2
  EXPECT_NEAR(within_one / n, 0.682689, 5.0 * std::sqrt(0.2166 / n));
}

TEST(RngNormal, NeverExceedsItsBound) {
  // The largest magnitude the method can return: u = 2^-52 (the least
  // nonzero |u|), v = 0, so s = 2^-104.
  const double u = 0x1.0p-52;
  const double s = u * u;
  EXPECT_LT(u * std::sqrt(-2.0 * dmath::log(s) / s), Rng::kNormalBound);
  EXPECT_GT(u * std::sqrt(-2.0 * dmath::log(s) / s), 12.0);  // the bound is tight
  Rng rng(3);
  for (int i = 0; i < kDraws; ++i) ASSERT_LE(std::fabs(rng.normal()), Rng::kNormalBound);
}

TEST(RngNormal, FirstValuesForSeed42AreGolden) {
  Rng rng(42);
  EXPECT_EQ(rng.normal(), -0.72621913824478568);
  EXPECT_EQ(rng.normal(), 0.22162270150359331);
  EXPECT_EQ(rng.normal(), 0.46417731016247366);
}

TEST(LengthSpread, RoundsHalvesToEvenAsNumpy) {
  EXPECT_EQ(round_half_to_even(0.5), 0.0);
  EXPECT_EQ(round_half_to_even(1.5), 2.0);
  EXPECT_EQ(round_half_to_even(2.5), 2.0);
  EXPECT_EQ(round_half_to_even(1200.5), 1200.0);
  EXPECT_EQ(round_half_to_even(1201.5), 1202.0);
  EXPECT_EQ(round_half_to_even(2.4999999), 2.0);
  EXPECT_EQ(round_half_to_even(2.5000001), 3.0);
  EXPECT_EQ(round_half_to_even(7.0), 7.0);
  EXPECT_EQ(round_half_to_even(0.0), 0.0);
}

TEST(LengthSpread, AFixedLengthIsTheMeanClippedAndDrawsNothing) {
  Rng rng(5), untouched(5);
  EXPECT_EQ(draw_length(LengthSpread{1200, 0, 0, 1000000}, rng), 1200u);
  EXPECT_EQ(draw_length(LengthSpread{1200, 0, 10, 1024}, rng), 1024u);  // inference-perf clips a fixed mean too
  EXPECT_EQ(draw_length(LengthSpread{5, 0, 10, 1024}, rng), 10u);
  EXPECT_EQ(rng.next_u64(), untouched.next_u64());
  EXPECT_EQ(longest_length(LengthSpread{1200, 0, 0, 1000000}), 1200.0);
  EXPECT_EQ(longest_length(LengthSpread{1200, 0, 10, 1024}), 1024.0);
}

TEST(LengthSpread, DrawsHaveTheMeanAndStandardDeviationGiven) {
  // C18's question length: 1200 +/- 360 tokens, far from its bounds.
  const LengthSpread spread{1200, 360, 1, 1000000};
  Rng rng(9);
  double sum = 0, squares = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = draw_length(spread, rng);
    sum += x;
    squares += x * x;
  }
  const double n = kDraws;
  const double mean = sum / n;
  const double sd = std::sqrt(squares / n - mean * mean);
  EXPECT_NEAR(mean, 1200.0, 5 * 360 / std::sqrt(n));
  EXPECT_NEAR(sd, 360.0, 5 * 360 / std::sqrt(2 * n) + 0.5);  // + rounding's share
}

TEST(LengthSpread, DrawsAreClippedIntoMinAndMaxAndReachBoth) {
  const LengthSpread spread{100, 1000, 50, 150};
  Rng rng(13);
  int at_min = 0, at_max = 0;
  for (int i = 0; i < 10'000; ++i) {
    const std::uint32_t x = draw_length(spread, rng);
    ASSERT_GE(x, 50u);
    ASSERT_LE(x, 150u);
    at_min += x == 50 ? 1 : 0;
    at_max += x == 150 ? 1 : 0;
  }
  // P(|z| > 0.05) = 0.96, half each side.
  EXPECT_GT(at_min, 4500);
  EXPECT_GT(at_max, 4500);
}

TEST(LengthSpread, NoDrawExceedsTheLongestLengthTheLimitsUse) {
  const LengthSpread spread{30, 9, 0, 1000000};
  EXPECT_EQ(longest_length(spread), std::ceil(30 + Rng::kNormalBound * 9));
  Rng rng(17);
  for (int i = 0; i < kDraws; ++i) ASSERT_LE(draw_length(spread, rng), longest_length(spread));
  EXPECT_EQ(longest_length(LengthSpread{30, 9, 0, 100}), 100.0);
}

}  // namespace
}  // namespace prefixroute::length_spread_test
