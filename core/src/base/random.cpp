#include "prefixroute/base/random.h"

#include <cmath>

#include "prefixroute/base/deterministic_math.h"

namespace prefixroute {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t mix_seed(std::uint64_t a, std::uint64_t b) {
  std::uint64_t state = a;
  std::uint64_t first = splitmix64(state);
  state = first ^ (b * 0xD1B54A32D192ED03ULL);
  return splitmix64(state);
}

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& word : s_) word = splitmix64(state);
}

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Rng::exponential(double rate) { return -dmath::log(1.0 - uniform01()) / rate; }

double Rng::normal() {
  for (;;) {
    const double u = 2.0 * uniform01() - 1.0;
    const double v = 2.0 * uniform01() - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * dmath::log(s) / s);
  }
}

ZipfSampler::ZipfSampler(std::size_t n, double s) {
  cdf_.reserve(n);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += 1.0 / dmath::pow(static_cast<double>(i + 1), s);
    cdf_.push_back(total);
  }
}

std::size_t ZipfSampler::sample(Rng& rng) const {
  const double target = rng.uniform01() * cdf_.back();
  // First index whose cumulative weight exceeds the target.
  std::size_t lo = 0, hi = cdf_.size() - 1;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (cdf_[mid] > target) hi = mid; else lo = mid + 1;
  }
  return lo;
}

double ZipfSampler::probability(std::size_t i) const {
  const double prev = i == 0 ? 0.0 : cdf_[i - 1];
  return (cdf_[i] - prev) / cdf_.back();
}

}  // namespace prefixroute
