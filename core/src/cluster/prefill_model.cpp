#include "prefixroute/cluster/prefill_model.h"

#include <cmath>

namespace prefixroute {

// One division and one llround: both exactly rounded, so identical everywhere.
Tick PrefillModel::prefill_ticks(std::uint64_t uncached_tokens) const {
  return std::llround(static_cast<double>(uncached_tokens) * 1e9 / tokens_per_s);
}

}  // namespace prefixroute
