#include "prefixroute/random.h"

#include "prefixroute/deterministic_math.h"

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

namespace {
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& word : s_) word = splitmix64(state);
}

std::uint64_t Rng::next_u64() {
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

double Rng::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::uniform_int(std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t span = hi - lo;
  if (span == ~std::uint64_t{0}) return next_u64();
  const std::uint64_t range = span + 1;
  // Lemire: multiply-shift with rejection of the biased low region. 128-bit
  // product built from 32-bit halves so no compiler extension is needed.
  const std::uint64_t threshold = (0 - range) % range;
  for (;;) {
    const std::uint64_t x = next_u64();
    const std::uint64_t x_lo = x & 0xFFFFFFFFULL, x_hi = x >> 32;
    const std::uint64_t r_lo = range & 0xFFFFFFFFULL, r_hi = range >> 32;
    const std::uint64_t ll = x_lo * r_lo, lh = x_lo * r_hi, hl = x_hi * r_lo, hh = x_hi * r_hi;
    const std::uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFULL) + (hl & 0xFFFFFFFFULL);
    const std::uint64_t high = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    const std::uint64_t low = (mid << 32) | (ll & 0xFFFFFFFFULL);
    if (low >= threshold) return lo + high;
  }
}

double Rng::exponential(double rate) { return -dmath::log(1.0 - uniform01()) / rate; }

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
