// The step model against published measurements, as the Markdown tables of
// docs/design/model.md (`prefixroute --step-table`, regenerated and checked by
// scripts/generated-docs.sh).
#pragma once

#include <string>

namespace prefixroute {

/// Step times of the hardware presets beside BLIS's fitted vLLM step times,
/// with the relative error and a flag past 30 %.
std::string format_step_table_markdown();

/// KV capacity of the presets beside the capacities vLLM servers reported
/// (published_measurements, cluster/calibration.h).
std::string format_capacity_table_markdown();

/// Measured prefill speeds and decode step times beside the presets' (the
/// same list), with the error and whether the row calibrates a constant.
std::string format_calibration_table_markdown();

}  // namespace prefixroute
