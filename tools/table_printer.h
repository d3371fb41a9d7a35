// Renders an experiment report as the benchmark's text table or as Markdown.
#pragma once

#include <string>

#include "prefixroute/run/experiment.h"

namespace prefixroute {

/// Plain-text table in the original write-up's style, one row per policy.
/// With replicates: means ± 95 % half-widths and the pairs of policies that
/// are not distinguishable on each headline metric.
std::string format_text_table(const Scenario& scenario, const ExperimentReport& report);

/// GitHub Markdown table of the same figures (the docs' generated tables).
std::string format_markdown_table(const Scenario& scenario, const ExperimentReport& report);

/// A client's stages, one row per policy and stage (text or Markdown; empty
/// when the run had none). The Markdown table prints it after the main table.
std::string format_stage_table(const Scenario& scenario, const ExperimentReport& report, bool markdown);

/// The scenario's SLO targets as one phrase ("p99 TTFT <= 2000 ms, p90 TPOT
/// <= 50 ms"); empty without targets. The SLO and capacity tables' headings.
std::string slo_text(const SloSettings& slo);

/// The SLO's figures per policy (attainment of each target and of all,
/// goodput, whether the SLO held); empty without SLO targets.
std::string format_slo_table(const Scenario& scenario, const ExperimentReport& report);

/// Markdown table of every scenario field: key, default, allowed range, unit, meaning.
std::string format_fields_markdown();

/// Markdown table of the policy catalogue, in report order: name, label,
/// what it does, its parameters (the scenario fields it owns), and which
/// policy is the recommended one.
std::string format_policies_markdown();

}  // namespace prefixroute
