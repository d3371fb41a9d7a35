// The project's own random number generator and distributions.
//
// The C++ standard fixes engines but not distributions: std::uniform_int_distribution
// and friends give different numbers under libstdc++ (native) and libc++ (wasm).
// Everything random in prefixroute goes through this file, so a seed means the
// same trace on every platform.
#pragma once

#include <cstdint>
#include <vector>

namespace prefixroute {

/// SplitMix64 step: turns any 64-bit value into a well-mixed one. Used to seed
/// Xoshiro256 and to derive independent sub-seeds (per request, per tenant).
std::uint64_t splitmix64(std::uint64_t& state);

/// Mixes two values into one seed (order matters), for derived streams.
std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b);

/// xoshiro256** (Blackman & Vigna): fast, 2^256-1 period, passes BigCrush.
/// Invariant: the state is never all zero (SplitMix64 seeding guarantees it).
/// Cost: a few integer operations per draw.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();

  /// Uniform in [0, 1) with 53 random bits.
  double uniform01();

  /// Uniform integer in [lo, hi] (inclusive), unbiased (Lemire's method with rejection).
  std::uint64_t uniform_int(std::uint64_t lo, std::uint64_t hi);

  /// Exponential with the given rate (> 0): -ln(1-U)/rate, via dmath::log.
  double exponential(double rate);

 private:
  std::uint64_t s_[4];
};

/// Samples indices 0..n-1 with probability proportional to 1/(i+1)^s (Zipf).
/// s = 0 is uniform. Cost: O(n) to build, O(log n) per draw (binary search on the CDF).
class ZipfSampler {
 public:
  ZipfSampler(std::size_t n, double s);
  std::size_t sample(Rng& rng) const;
  /// Probability of index i (for tests and reports).
  double probability(std::size_t i) const;

 private:
  std::vector<double> cdf_;  // cdf_[i] = sum of weights 0..i; cdf_.back() = total
};

}  // namespace prefixroute
