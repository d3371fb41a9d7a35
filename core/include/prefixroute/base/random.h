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

  std::uint64_t next_u64() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1) with 53 random bits.
  double uniform01();

  /// Uniform integer in [lo, hi] (inclusive), unbiased (Lemire's method with rejection).
  std::uint64_t uniform_int(std::uint64_t lo, std::uint64_t hi) {
    const std::uint64_t span = hi - lo;
    if (span == ~std::uint64_t{0}) return next_u64();
    return lo + below(span + 1);
  }

  /// Uniform integer in [0, range) for range >= 1: uniform_int(0, range - 1)
  /// draw for draw.
  std::uint64_t below(std::uint64_t range) {
    // Lemire's nearly divisionless method: the high half of the 128-bit
    // product x * range is the draw unless its low half falls in the biased
    // region [0, 2^64 mod range). That bound is below `range`, so the division
    // that computes it is only needed when the low half is below `range`
    // (probability range / 2^64): the same draws are accepted and rejected as
    // when it is computed every time.
    for (;;) {
      std::uint64_t low = 0;
      const std::uint64_t high = multiply_wide(next_u64(), range, low);
      if (low >= range || low >= (0 - range) % range) return high;
    }
  }

  /// The 128-bit product x * y as its high half (returned) and low half
  /// (`low`): one multiply where the compiler has a 128-bit type and the
  /// target a widening multiply (x86-64, AArch64), else four 32-bit partial
  /// products (WebAssembly, where the 128-bit type would call a library
  /// routine). Both give the same bits (a test compares them).
  static std::uint64_t multiply_wide(std::uint64_t x, std::uint64_t y, std::uint64_t& low) {
#if defined(__SIZEOF_INT128__) && !defined(__wasm__)
    __extension__ typedef unsigned __int128 Wide;  // __extension__: a GNU type, not ISO C++
    const Wide product = static_cast<Wide>(x) * y;
    low = static_cast<std::uint64_t>(product);
    return static_cast<std::uint64_t>(product >> 64);
#else
    return multiply_halves(x, y, low);
#endif
  }

  /// multiply_wide from 32-bit halves, on every target.
  static std::uint64_t multiply_halves(std::uint64_t x, std::uint64_t y, std::uint64_t& low) {
    const std::uint64_t x_lo = x & 0xFFFFFFFFULL, x_hi = x >> 32;
    const std::uint64_t y_lo = y & 0xFFFFFFFFULL, y_hi = y >> 32;
    const std::uint64_t ll = x_lo * y_lo, lh = x_lo * y_hi, hl = x_hi * y_lo, hh = x_hi * y_hi;
    const std::uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFULL) + (hl & 0xFFFFFFFFULL);
    low = (mid << 32) | (ll & 0xFFFFFFFFULL);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  }

  /// Exponential with the given rate (> 0): -ln(1-U)/rate, via dmath::log.
  double exponential(double rate);

  /// Standard normal (mean 0, variance 1) by Marsaglia's polar method: u, v
  /// uniform in [-1, 1) until 0 < s = u^2 + v^2 < 1, then u x sqrt(-2 ln(s) / s),
  /// via dmath::log and sqrt (exactly rounded), so the same bits everywhere.
  /// Two uniform draws per attempt, 4/pi attempts on average; the pair's
  /// second normal is dropped, so every call draws from the stream alone.
  /// Bounded: u and v are multiples of 2^-52, so a nonzero s is at least
  /// about 2^-104 and |result| <= |u| / sqrt(s) x sqrt(-2 ln s) <=
  /// sqrt(208 ln 2) = 12.01 (kNormalBound, with a margin for the roundings).
  double normal();
  static constexpr double kNormalBound = 12.1;

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

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
