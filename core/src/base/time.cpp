#include "prefixroute/base/time.h"

#include <cmath>
#include <limits>

namespace prefixroute {

// llround and multiplication are exactly rounded: same result on every platform.
Tick seconds_to_ticks(double seconds) { return std::llround(seconds * 1e9); }

Tick seconds_to_ticks_saturating(double seconds) {
  // 2^63 ns is the first double past the Tick range: anything at or above it saturates.
  constexpr double kFirstBeyond = 9223372036854775808.0;
  const double ticks = seconds * 1e9;
  return ticks >= kFirstBeyond ? std::numeric_limits<Tick>::max() : std::llround(ticks);
}

}  // namespace prefixroute
