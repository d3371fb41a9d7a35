#include "prefixroute/base/deterministic_math.h"

#include <cstdint>
#include <cstring>
#include <limits>

namespace prefixroute::dmath {
namespace {

std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double from_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// 2^k for k in the normal range, built from the exponent bits (exact).
double pow2(int k) { return from_bits(static_cast<std::uint64_t>(k + 1023) << 52); }

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kSqrtHalf = 0.70710678118654752440;

}  // namespace

double log(double x) {
  if (x != x || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x == std::numeric_limits<double>::infinity()) return x;
  int k = 0;
  std::uint64_t b = bits_of(x);
  if ((b >> 52) == 0) {  // subnormal: scale into the normal range first
    x *= 18014398509481984.0;  // 2^54
    k -= 54;
    b = bits_of(x);
  }
  k += static_cast<int>(b >> 52) - 1023;
  // m in [1, 2), then fold into [sqrt(1/2), sqrt(2)) so the series converges fast.
  double m = from_bits((b & 0x000FFFFFFFFFFFFFULL) | 0x3FF0000000000000ULL);
  if (m > 2 * kSqrtHalf) {
    m *= 0.5;
    ++k;
  }
  // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.1716: 2 s (1 + s^2/3 + s^4/5 + ...).
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double term = s2;
  double series = 0;
  for (int n = 3; n <= 41; n += 2) {  // s^40 < 1e-30: far below one ulp
    series += term / n;
    term *= s2;
  }
  const double log_m = 2 * s + 2 * s * series;
  return (k * kLn2Hi + log_m) + k * kLn2Lo;
}

double exp(double x) {
  if (x != x) return x;
  if (x > 709.78) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0.0;
  // x = k ln2 + r, |r| <= ln2/2; e^x = 2^k e^r.
  const double kd = x / (kLn2Hi + kLn2Lo);
  int k = static_cast<int>(kd < 0 ? kd - 0.5 : kd + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Taylor series of e^r, |r| < 0.35: 27 terms are far past double precision.
  double term = 1;
  double sum = 1;
  for (int n = 1; n <= 27; ++n) {
    term = term * r / n;
    sum += term;
  }
  // Scale by 2^k in two steps so results near the subnormal range stay exact-ish.
  if (k < -1000) return sum * pow2(k + 1000) * pow2(-1000);
  if (k > 1000) return sum * pow2(k - 1000) * pow2(1000);
  return sum * pow2(k);
}

double pow(double base, double exponent) {
  if (exponent == 0) return 1;
  if (base == 1) return 1;
  if (base == 0) return exponent > 0 ? 0 : std::numeric_limits<double>::infinity();
  return exp(exponent * log(base));
}

}  // namespace prefixroute::dmath
