#include "prefixroute/base/time.h"

#include <cmath>

namespace prefixroute {

// llround and multiplication are exactly rounded: same result on every platform.
Tick seconds_to_ticks(double seconds) { return std::llround(seconds * 1e9); }

}  // namespace prefixroute
