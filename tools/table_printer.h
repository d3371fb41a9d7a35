// Renders an experiment report as the benchmark's text table or as Markdown.
#pragma once

#include <string>

#include "prefixroute/experiment.h"

namespace prefixroute {

/// Plain-text table in the original write-up's style, one row per policy.
std::string format_text_table(const Scenario& scenario, const ExperimentReport& report);

/// GitHub Markdown table of the same figures (used for the README).
std::string format_markdown_table(const ExperimentReport& report);

/// Markdown table of every scenario field: key, default, allowed range, unit, meaning.
std::string format_fields_markdown();

}  // namespace prefixroute
