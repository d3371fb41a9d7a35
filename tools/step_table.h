// The step model against published measurements, as the Markdown tables of
// docs/MODEL.md (`prefixroute --step-table`, regenerated and checked by
// scripts/generated-docs.sh).
#pragma once

#include <string>

namespace prefixroute {

/// Step times of the hardware presets beside BLIS's fitted vLLM step times,
/// with the relative error and a flag past 30 %.
std::string format_step_table_markdown();

/// KV capacity of the presets beside vLLM's measured block counts.
std::string format_capacity_table_markdown();

}  // namespace prefixroute
