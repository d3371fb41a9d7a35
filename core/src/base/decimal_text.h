// Decimal text of doubles without printf: one llround of an exact power-of-ten
// scaling, then integer digits, thousands separated. The same bytes on every
// platform (glibc's and musl's printf agree on correctly rounded output, but
// these texts land in results files compared byte for byte, so they depend
// on nothing but IEEE multiplication and llround). Internal to core/src.
#pragma once

#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>

namespace prefixroute::decimal_text {

/// `x` with exactly `decimals` digits after the point, thousands separated:
/// fixed(1234.5, 1) == "1,234.5". |x| x 10^decimals must stay below 2^63.
inline std::string fixed(double x, int decimals) {
  double scale = 1;
  for (int i = 0; i < decimals; ++i) scale *= 10;
  const long long scaled = std::llround(x * scale);
  const bool negative = scaled < 0;
  const auto magnitude = static_cast<unsigned long long>(negative ? -scaled : scaled);
  const auto unit = static_cast<unsigned long long>(scale);
  const std::string whole = std::to_string(magnitude / unit);
  std::string text = negative ? "-" : "";
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) text += ',';
    text += whole[i];
  }
  if (decimals > 0) {
    std::string fraction = std::to_string(magnitude % unit);
    fraction.insert(0, static_cast<std::size_t>(decimals) - fraction.size(), '0');
    text += "." + fraction;
  }
  return text;
}

/// About four significant digits, trailing zeros of the fraction dropped;
/// integers above 9,999 keep all their digits: 0.72, 1.06, 6.658, 30,808.
inline std::string significant(double x) {
  const double a = std::fabs(x);
  int integer_digits = 1;
  for (double p = 10; a >= p && integer_digits < 22; p *= 10) ++integer_digits;
  int decimals = integer_digits >= 4 ? 0 : 4 - integer_digits;
  if (a < 1) {
    int leading_zeros = 0;
    for (double p = 0.1; a > 0 && a < p && leading_zeros < 20; p /= 10) ++leading_zeros;
    decimals = 4 + leading_zeros;
  }
  std::string text = fixed(x, decimals);
  if (decimals > 0) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

/// `pattern` with each '%' replaced by the next of `parts`, in order:
/// fill("% of %", {"a", "b"}) == "a of b". One call site per sentence keeps
/// the code small where many sentences are built (the hardware formulas).
[[gnu::noinline]] inline std::string fill(std::string_view pattern, std::initializer_list<std::string> parts) {
  std::string text;
  auto part = parts.begin();
  for (const char c : pattern) {
    if (c == '%' && part != parts.end()) {
      text += *part++;
    } else {
      text += c;
    }
  }
  return text;
}

}  // namespace prefixroute::decimal_text
