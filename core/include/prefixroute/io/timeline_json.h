// The timelines of an experiment as one JSON document (schema
// "prefixroute.timeline/1"), what `prefixroute --timeline PATH` writes:
//
//   { "schema": "prefixroute.timeline/1",
//     "workload": { "requests", "fingerprint" },
//     "engine": "fifo" | "batched",
//     "windows": W, "window_ms", "replicas", "replicas_shown",
//     "other_row": true when a last row pools the replicas not shown,
//     "policies": [ { "policy",
//                     "requests", "mean_wait_ms", "mean_ttft_ms", "hit_rate",
//                     "mean_in_flight", ("mean_batch", "kv_use": batched only),
//                     "groups", "top_group", "top_share":
//                         each [ [per row] per window ],
//                     "group_keys": [ ranked prefix groups ] } ] }
//
// The fields' meanings are Timeline's (sim/timeline.h). Like the results JSON
// it holds no timestamps, so equal scenarios give equal bytes everywhere.
#pragma once

#include <string>

#include "prefixroute/run/experiment.h"

namespace prefixroute {

/// The document of a report run with record_timeline (2-space indented,
/// trailing newline). Outcomes without a timeline are left out.
std::string timelines_to_json(const Scenario& scenario, const ExperimentReport& report);

}  // namespace prefixroute
