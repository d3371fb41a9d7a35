// Replicate statistics: the Student-t interval against hand-computed values,
// the t quantiles against published (40-digit) values, and the rule that
// says when two policies are distinguishable.
#include "prefixroute/base/statistics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace prefixroute::statistics_test {
namespace {

// Relative closeness: the table's entries are the doubles nearest the exact
// quantiles; hand values below are exact to 1e-15.
void expect_close(double got, double want, double rel = 1e-13) {
  EXPECT_LE(std::fabs(got - want), rel * std::fabs(want)) << "got " << got << ", want " << want;
}

TEST(StudentT, QuantilesMatchPublishedValues) {
  // t_{0.975, df}, 20 digits (mpmath: the root of I_{df/(df+t^2)}(df/2, 1/2) / 2 = 0.025).
  expect_close(student_t_975(1), 12.706204736174704646, 1e-15);
  expect_close(student_t_975(2), 4.3026527297494638523, 1e-15);
  expect_close(student_t_975(4), 2.7764451051977943578, 1e-15);
  expect_close(student_t_975(29), 2.0452296421327042982, 1e-15);
  expect_close(student_t_975(30), 2.04227245630123831, 1e-15);
  expect_close(student_t_975(100), 1.9839715185235522866, 1e-15);
  // Beyond the table: the Cornish-Fisher expansion, within 4e-13.
  expect_close(student_t_975(101), 1.983731002955606193, 4e-13);
  expect_close(student_t_975(120), 1.9799304050824408467, 4e-13);
  expect_close(student_t_975(150), 1.9759053308966205192, 4e-13);
  expect_close(student_t_975(500), 1.9647198374673677934, 4e-13);
  expect_close(student_t_975(999), 1.9623414611334499787, 4e-13);
}

TEST(StudentT, FallsTowardsTheNormalQuantileAsDegreesOfFreedomGrow) {
  for (std::size_t df = 1; df < 1000; ++df) EXPECT_GT(student_t_975(df), student_t_975(df + 1)) << df;
  EXPECT_GT(student_t_975(1000), 1.959963984540054);
}

TEST(TInterval, TwoValues) {
  // {1, 3}: mean 2, s = sqrt(2), half = t_1 x sqrt(2) / sqrt(2) = t_1.
  const std::vector<double> v = {1, 3};
  const Interval i = t_interval(v);
  EXPECT_EQ(i.mean, 2);
  expect_close(i.half_width, 12.706204736174704646);
  expect_close(i.low(), 2 - 12.706204736174704646);
  expect_close(i.high(), 2 + 12.706204736174704646);
}

TEST(TInterval, FiveValues) {
  // {10, 12, 14, 16, 18}: mean 14, s^2 = 40 / 4 = 10, half = t_4 x sqrt(10) / sqrt(5) = t_4 x sqrt(2).
  const std::vector<double> v = {10, 12, 14, 16, 18};
  const Interval i = t_interval(v);
  EXPECT_EQ(i.mean, 14);
  expect_close(i.half_width, 3.92648632295511539530682135324);
}

TEST(TInterval, ThirtyValues) {
  // 1 .. 30: mean 15.5, s^2 = 30 x 31 / 12 = 77.5, half = t_29 x sqrt(77.5 / 30).
  std::vector<double> v;
  for (int x = 1; x <= 30; ++x) v.push_back(x);
  const Interval i = t_interval(v);
  EXPECT_EQ(i.mean, 15.5);
  expect_close(i.half_width, 3.28724673245973380280397764082);
}

TEST(TInterval, OneValueHasNoSpreadAndEqualValuesNone) {
  const std::vector<double> one = {7.5};
  EXPECT_EQ(t_interval(one).mean, 7.5);
  EXPECT_EQ(t_interval(one).half_width, 0);
  const std::vector<double> same = {0.25, 0.25, 0.25, 0.25};
  EXPECT_EQ(t_interval(same).mean, 0.25);
  EXPECT_EQ(t_interval(same).half_width, 0);
  EXPECT_EQ(t_interval(std::vector<double>{}).mean, 0);
}

TEST(TInterval, IsTheSameBitsForTheSameValuesInTheSameOrder) {
  const std::vector<double> v = {0.1, 0.7, 0.3, 0.9, 0.2};
  const Interval a = t_interval(v), b = t_interval(v);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.half_width, b.half_width);
}

TEST(Distinguishable, OverlappingIntervalsAreNot) {
  EXPECT_TRUE(intervals_overlap({10, 2}, {13, 2}));   // [8, 12] and [11, 15]
  EXPECT_TRUE(intervals_overlap({13, 2}, {10, 2}));   // either order
  EXPECT_TRUE(intervals_overlap({10, 5}, {10, 1}));   // one inside the other
}

TEST(Distinguishable, TouchingIntervalsAreNot) {
  EXPECT_TRUE(intervals_overlap({10, 1}, {12, 1}));   // [9, 11] and [11, 13] share 11
}

TEST(Distinguishable, SeparateIntervalsAre) {
  EXPECT_FALSE(intervals_overlap({10, 1}, {12.5, 1}));  // [9, 11] and [11.5, 13.5]
  EXPECT_FALSE(intervals_overlap({12.5, 1}, {10, 1}));
}

TEST(Distinguishable, ZeroWidthIntervalsAreDistinguishableUnlessEqual) {
  EXPECT_FALSE(intervals_overlap({1, 0}, {1.0000001, 0}));
  EXPECT_TRUE(intervals_overlap({1, 0}, {1, 0}));
}

}  // namespace
}  // namespace prefixroute::statistics_test
