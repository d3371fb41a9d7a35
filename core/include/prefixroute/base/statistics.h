// Replicate statistics: the mean of a metric over the seeds of a replicated
// experiment and its 95 % confidence interval (Student t), and the rule that
// says whether two policies are distinguishable on that metric.
//
//   mean  = (x_1 + ... + x_n) / n                  (summed in order)
//   s     = sqrt(sum (x_i - mean)^2 / (n - 1))      (sample standard deviation)
//   half  = t_{0.975, n-1} * s / sqrt(n)
//   interval = [mean - half, mean + half]
//
// Two policies are distinguishable on a metric when their intervals do not
// overlap (one's high end is below the other's low end). Overlap is the
// conservative reading: non-overlapping 95 % intervals imply a difference at
// better than the 5 % level, overlapping ones do not prove there is none; the
// table says "not distinguishable at N = n", never "equal".
//
// Determinism: only + - * / and sqrt (all exactly rounded in IEEE 754, and the
// core is built with -ffp-contract=off) and a fixed table, so native and
// WebAssembly builds give the same bits. t_{0.975, df} is exact (to the
// double) from a table for df <= 100 (computed with 40-digit arithmetic) and
// beyond from the Cornish-Fisher expansion in 1/df (Abramowitz & Stegun
// 26.7.5, five terms), whose relative error there is below 4e-13.
#pragma once

#include <cstddef>
#include <span>

namespace prefixroute {

/// The 97.5 % quantile of Student's t with `df` >= 1 degrees of freedom: the
/// factor of a two-sided 95 % interval. O(1).
double student_t_975(std::size_t df);

/// A metric's mean over n values and its 95 % interval's half-width (0 when
/// n < 2: one value has no spread to measure).
struct Interval {
  double mean = 0;
  double half_width = 0;
  double low() const { return mean - half_width; }
  double high() const { return mean + half_width; }
};

/// Mean and 95 % Student-t interval of `values` (in the given order). O(n).
Interval t_interval(std::span<const double> values);

/// Whether the two intervals overlap (touching counts): the policies are
/// then not distinguishable on that metric at this number of replicates.
bool intervals_overlap(const Interval& a, const Interval& b);

}  // namespace prefixroute
