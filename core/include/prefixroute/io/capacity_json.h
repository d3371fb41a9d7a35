// The capacity JSON: what `prefixroute --capacity --json FILE` writes and the
// module's runCapacity returns for a capacity search (run/capacity_search.h).
//
// Capacity JSON (schema "prefixroute.capacity/1"; 2-space indented):
//   { "schema": "prefixroute.capacity/1",
//     "scenario": { ...canonical scenario, every field (slo.*, capacity.*)... },
//     "load": { "key" (the field varied), "unit", "base" (the scenario's load),
//               "min", "max" (the range tried), "integer" },
//     "replicas": { "base" (the scenario's), "max" (capacity.max_replicas),
//                   "gpus_per_replica" (hardware.tp) },
//     "results": [ { "policy", "label",
//         "max_load": the highest load meeting the SLO (mean over the seeds;
//                     null unless every seed met it somewhere),
//         "max_load_limited": true when some seed met it at load.max (a lower bound),
//         "replicas": the fewest replicas meeting the SLO at the scenario's
//                     load (mean; null unless every seed met it within
//                     replicas.max), "gpus": replicas x gpus_per_replica,
//         "cost_per_month": gpus x capacity.gpu_hour_price x 730 (only when
//                     the price is > 0; null with "gpus"),
//         with replicates > 1, "interval": { "max_load", "replicas", "gpus":
//                     { "half_width", "low", "high" } } (the 95 % Student-t
//                     interval over the seeds, for the figures not null),
//         "per_seed": [ { "seed", "max_load", "max_load_limited", "replicas", "gpus",
//                         "load_steps": [ step ... ], "replica_steps": [ step ... ] } ] } ],
//     "cancelled": true (only when cancelled: the policies whose searches all finished) }
// A step is one run of the search, in the order they ran:
//   { "value" (the load or the replicas tried), "met" (the SLO held),
//     "slo_attainment", "goodput_per_s",
//     "ttft_ms" / "tpot_ms": the TTFT / TPOT at the SLO's percentile, with
//     that target only (null when the rank falls on a request that failed its
//     client timeout) }
// A per-seed "max_load" or "replicas" not found is null. Like the results
// JSON it holds no timings, so equal scenarios give equal bytes everywhere.
#pragma once

#include <string>

#include "prefixroute/run/capacity_search.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// The capacity JSON of a report (2-space indented, trailing newline).
std::string capacity_to_json(const Scenario& scenario, const CapacityReport& report);

}  // namespace prefixroute
