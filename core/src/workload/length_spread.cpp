#include "prefixroute/workload/length_spread.h"

#include <algorithm>
#include <cmath>

#include "prefixroute/base/random.h"

namespace prefixroute {

double round_half_to_even(double x) {
  const double whole = std::floor(x);
  const double rest = x - whole;  // exact (Sterbenz): whole <= x < whole + 1
  if (rest > 0.5) return whole + 1;
  if (rest < 0.5) return whole;
  return std::fmod(whole, 2.0) == 0.0 ? whole : whole + 1;
}

std::uint32_t draw_length(const LengthSpread& s, Rng& rng) {
  const double lo = s.min, hi = s.max;
  double x = s.mean;
  if (s.std_dev > 0) x += s.std_dev * rng.normal();
  // Clip, round, clip again: inference-perf's order (the second clip is a no-op
  // for integer bounds).
  return static_cast<std::uint32_t>(std::clamp(round_half_to_even(std::clamp(x, lo, hi)), lo, hi));
}

double longest_length(const LengthSpread& s) {
  const double reach = s.std_dev > 0 ? std::ceil(s.mean + Rng::kNormalBound * s.std_dev) : s.mean;
  return std::clamp(reach, static_cast<double>(s.min), static_cast<double>(s.max));
}

}  // namespace prefixroute
