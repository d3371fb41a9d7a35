// Simulated time in integer ticks.
//
// Every timestamp and duration in the simulator is an integer number of
// nanoseconds. Integer time keeps event order and sums exact, so a scenario
// gives the same results natively, in Node and in the browser. Conversion from
// the scenario's floating-point rates happens once, through exactly rounded
// IEEE operations (division, llround), never through platform libm.
#pragma once

#include <cstdint>

namespace prefixroute {

/// A point in simulated time or a duration, in nanoseconds. 2^63 ns is ~292 years.
using Tick = std::int64_t;

inline constexpr Tick kTicksPerSecond = 1'000'000'000;
inline constexpr Tick kTicksPerMillisecond = 1'000'000;

/// Seconds (finite, >= 0, validated by the caller) to ticks, rounded to nearest.
Tick seconds_to_ticks(double seconds);

/// seconds_to_ticks, but values beyond the Tick range (and +inf) give the
/// largest Tick instead of overflowing: for limits such as a load slack,
/// where "longer than any time" must stay longer than any time.
Tick seconds_to_ticks_saturating(double seconds);

/// Ticks to milliseconds, for reporting. Exact for |ticks| < 2^53.
inline double ticks_to_ms(Tick ticks) { return static_cast<double>(ticks) / 1e6; }

/// The time limits that keep every tick sum below 2^63 (~292 years). A
/// synthetic workload whose expected arrival span (requests /
/// arrival_rate_per_s; for the session kinds requests / session_rate_per_s
/// plus the longest possible session's expected duration) or whose longest
/// possible prefill work (requests x longest prompt / prefill_tokens_per_s)
/// exceeds these is refused (scenario validation); a trace line whose
/// timestamp x time_scale exceeds the arrival bound is a bad line.
inline constexpr double kMaxArrivalSpanSeconds = 1e9;
inline constexpr double kMaxPrefillSeconds = 1e9;

}  // namespace prefixroute
