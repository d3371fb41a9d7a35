// Renders a capacity search's report (run/capacity_search.h) as the command
// line's table: per policy, the highest load meeting the SLO, the replicas
// and GPUs it needs at the scenario's load, and their monthly cost.
#pragma once

#include <string>

#include "prefixroute/run/capacity_search.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// Plain-text table, one row per policy; with replicates, means ± the
/// half-width of their 95 % interval.
std::string format_capacity_table(const Scenario& scenario, const CapacityReport& report);

}  // namespace prefixroute
