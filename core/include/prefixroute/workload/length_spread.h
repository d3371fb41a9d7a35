// LengthSpread: a token length drawn as inference-perf draws one from a
// Distribution of its default type, normal (inference_perf/utils/numeric/
// distribution: sample_from_distribution): a normal of the given mean and
// standard deviation, clipped into [min, max] and rounded to an integer
// (numpy's round: halves to even). std_dev = 0 is inference-perf's fixed
// length: clamp(mean, min, max), and nothing is drawn.
//
// Determinism: the project's Rng::normal (dmath::log and sqrt) and a
// rounding of its own, so one seed gives the same lengths natively and in
// WebAssembly. Cost: O(1) per draw (4/pi normal attempts on average).
#pragma once

#include <cstdint>

namespace prefixroute {

class Rng;

/// A length's distribution (the scenario's *_len, *_len_std, *_len_min,
/// *_len_max of a kind). Invariant (validated): min <= max.
struct LengthSpread {
  std::uint32_t mean = 0;
  double std_dev = 0;
  std::uint32_t min = 0;
  std::uint32_t max = 1000000;

  bool operator==(const LengthSpread&) const = default;
};

/// x (>= 0) rounded to the nearest integer, halves to the even one (numpy's
/// round, which inference-perf applies to its drawn lengths).
double round_half_to_even(double x);

/// One length of `spread`: one Rng::normal() when std_dev > 0, none otherwise.
std::uint32_t draw_length(const LengthSpread& spread, Rng& rng);

/// No drawn length exceeds this: clamp(mean + Rng::kNormalBound x std_dev
/// rounded up, min, max), since |Rng::normal()| <= kNormalBound. O(1).
double longest_length(const LengthSpread& spread);

}  // namespace prefixroute
