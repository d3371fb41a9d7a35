// The sweep JSON (schema "prefixroute.sweep/1"): the base scenario, the swept
// key, and per value each policy's summary (run/sweep.h runs it):
//
//   { "schema": "prefixroute.sweep/1",
//     "recommended": the catalogue's recommended policy,
//     "key": the dotted scenario key,
//     "base_scenario": { canonical scenario of the first value },
//     "points": [ { "value", "results": [ { "policy", "mean_ttft_ms", "p99_ttft_ms",
//                    "hit_rate", "prefill_tokens", "imbalance", "pareto" } ] } ],
//     "cancelled": true (only when cancelled) }
//
// Every (value, policy) point is flagged "pareto" when no other point has a
// higher-or-equal hit rate and a lower-or-equal p99 with one of them strict.
// A point with replicates > 1 reports each metric's mean over its seeds, and
// each row adds
//   "interval": { <metric>: { "half_width", "low", "high" } }
// for its five metrics (95 % Student t, as the results JSON); "pareto" then
// compares the means. The document is the same bytes whatever the number of
// jobs or shards.
#pragma once

#include <string>

#include "prefixroute/run/sweep.h"

namespace prefixroute {

/// The sweep JSON of a report (2-space indented, trailing newline).
std::string sweep_to_json(const SweepSpec& spec, const SweepReport& report);

}  // namespace prefixroute
