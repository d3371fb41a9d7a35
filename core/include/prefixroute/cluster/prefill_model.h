// PrefillModel: how long a replica takes to prefill uncached prompt tokens.
#pragma once

#include <cstdint>

#include "prefixroute/base/time.h"

namespace prefixroute {

/// Prefill time is linear in the uncached tokens: tokens / tokens_per_s,
/// rounded to the nearest tick. Cached tokens cost nothing (first-order model;
/// attention over a long cached context is not charged).
/// Invariant: tokens_per_s is finite and > 0 (validated with the scenario).
struct PrefillModel {
  double tokens_per_s = 11000.0;  // reference scenario's calibrated rate

  Tick prefill_ticks(std::uint64_t uncached_tokens) const;
};

}  // namespace prefixroute
