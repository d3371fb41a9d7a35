// prefixroute-bench: runs a scenario (the reference one by default) with every
// listed policy on one trace, prints the table and writes the results JSON.
//
//   prefixroute-bench [--scenario FILE.json] [--set key=value]... [--json PATH]
//
// Exit status: 0 on success, 2 for an invalid scenario or command line, 1 when
// a file cannot be read or written.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "prefixroute/experiment.h"
#include "prefixroute/hardware_summary.h"
#include "prefixroute/overrides.h"
#include "prefixroute/replay.h"
#include "prefixroute/scenario.h"
#include "prefixroute/sweep.h"
#include "prefixroute/workload/trace_reader.h"
#include <nlohmann/json.hpp>
#include "step_table.h"
#include "table_printer.h"

namespace {

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

// Reads the trace with the scenario's trace settings and records it in the
// scenario (core/include/prefixroute/replay.h). On failure returns null and
// the message to print.
std::unique_ptr<prefixroute::BlockTrace> load_trace(const std::string& path, const std::string& text,
                                                    prefixroute::Scenario& scenario, std::string& problem) {
  const prefixroute::TraceReadOptions options = prefixroute::trace_read_options(scenario.trace);
  prefixroute::TraceReadResult result = prefixroute::read_trace(text, options);
  if (!result.ok()) {
    problem = "error: cannot replay trace " + path + ":\n" + result.error_text();
    if (options.on_error == prefixroute::TraceReadOptions::OnError::Stop)
      problem += "(use --set trace.on_error=skip to skip bad lines; they are counted)\n";
    return nullptr;
  }
  const std::vector<prefixroute::FieldError> errors = prefixroute::record_replay(scenario, path, result, prefixroute::replay_size(*result.trace));
  if (!errors.empty()) {
    problem = "error: cannot replay trace " + path + ":\n";
    for (const auto& e : errors) problem += "  " + e.field + ": " + e.message + "\n";
    return nullptr;
  }
  if (result.bad_lines > 0)
    std::cerr << "warning: skipped " << result.bad_lines << " bad lines of " << path << ":\n" << result.error_text();
  return std::move(result.trace);
}

bool write_text(const std::string& path_text, const std::string& text) {
  const std::filesystem::path path(path_text);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

// --sweep: one row per (value, policy), the Pareto points starred.
int run_sweep_command(const std::string& text, const std::vector<prefixroute::Override>& overrides,
                      const std::string& sweep_text, const std::string& json_path) {
  prefixroute::SweepSpec spec;
  std::string error;
  if (!prefixroute::parse_sweep(sweep_text, spec, error)) {
    std::cerr << "error: --sweep " << error << "\n";
    return 2;
  }
  const prefixroute::SweepReport report = prefixroute::run_sweep(text, overrides, spec);
  if (!report.errors.empty()) {
    std::cerr << "error: invalid sweep:\n";
    for (const auto& e : report.errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
    return 2;
  }
  const std::string json = prefixroute::sweep_to_json(spec, report);
  const auto doc = nlohmann::json::parse(json);
  std::printf("sweep of %s: hit rate vs p99 TTFT (* = on the Pareto front of all points)\n", spec.key.c_str());
  std::printf("%-14s %-22s %9s %11s %11s\n", "value", "policy", "hit_rate", "p99_ttft", "mean_ttft");
  for (const auto& point : doc["points"])
    for (const auto& r : point["results"])
      std::printf("%-14s %-22s %8.1f%% %8.1f ms %8.1f ms %s\n", point["value"].get<std::string>().c_str(),
                  r["policy"].get<std::string>().c_str(), r["hit_rate"].get<double>() * 100,
                  r["p99_ttft_ms"].get<double>(), r["mean_ttft_ms"].get<double>(), r["pareto"].get<bool>() ? "*" : "");
  if (!json_path.empty() && json_path != "docs/results.json") {
    if (!write_text(json_path, json)) {
      std::cerr << "error: cannot write " << json_path << "\n";
      return 1;
    }
    std::cout << "wrote " << json_path << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"prefixroute reference benchmark: every routing policy on one multi-tenant trace"};
  std::string scenario_path;
  std::string trace_path;
  std::string sweep_text;
  std::vector<std::string> sets;
  std::string json_path = "docs/results.json";
  bool markdown = false;
  bool print_schema = false;
  bool print_scenario = false;
  bool print_fields = false;
  bool print_hardware = false;
  bool print_step_table = false;
  app.add_option("--scenario", scenario_path, "Scenario JSON file (missing keys take defaults)");
  app.add_option("--trace", trace_path,
                 "Replay a Mooncake-format JSONL trace instead of the synthetic workload");
  app.add_option("--sweep", sweep_text,
                 "Vary one key: key=v1,v2,... or key=from:to:steps; prints hit rate vs p99 per policy")
      ->excludes("--trace");
  app.add_option("--set", sets, "Override one scenario key: dotted.key=value (repeatable)")
      ->take_all();
  app.add_option("--json", json_path, "Where to write the results JSON ('' to skip)");
  app.add_flag("--markdown", markdown, "Also print the table as Markdown");
  app.add_flag("--schema", print_schema, "Print the scenario JSON Schema and exit");
  app.add_flag("--fields", print_fields, "Print the scenario fields as a Markdown table and exit");
  app.add_flag("--print-scenario", print_scenario, "Print the resolved scenario and exit");
  app.add_flag("--step-table", print_step_table,
               "Print the hardware presets' step times and KV capacity beside vLLM measurements (Markdown) and exit");
  app.add_flag("--hardware", print_hardware,
               "Print what the scenario's hardware.* and cluster settings mean for one replica (JSON) and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  if (print_schema) {
    std::cout << prefixroute::scenario_json_schema() << "\n";
    return 0;
  }

  if (print_fields) {
    std::cout << prefixroute::format_fields_markdown();
    return 0;
  }

  if (print_step_table) {
    std::cout << prefixroute::format_step_table_markdown() << "\n" << prefixroute::format_capacity_table_markdown();
    return 0;
  }

  std::string text;
  if (!scenario_path.empty() && !read_file(scenario_path, text)) {
    std::cerr << "error: cannot read scenario file " << scenario_path << "\n";
    return 1;
  }
  std::vector<prefixroute::Override> overrides;
  for (const std::string& assignment : sets) {
    std::string error;
    if (!prefixroute::parse_assignment(assignment, overrides.emplace_back(), error)) {
      std::cerr << "error: --set " << error << "\n";
      return 2;
    }
  }
  if (!sweep_text.empty()) return run_sweep_command(text, overrides, sweep_text, json_path);
  prefixroute::ScenarioParse parsed = prefixroute::parse_scenario(text, overrides);
  if (!parsed.ok()) {
    std::cerr << "error: invalid scenario" << (scenario_path.empty() ? "" : " " + scenario_path)
              << ":\n";
    for (const auto& e : parsed.errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
    return 2;
  }
  prefixroute::Scenario& scenario = parsed.scenario;
  std::unique_ptr<prefixroute::BlockTrace> trace;
  if (!trace_path.empty()) {
    std::string trace_text;
    if (!read_file(trace_path, trace_text)) {
      std::cerr << "error: cannot read trace file " << trace_path << "\n";
      return 1;
    }
    std::string problem;
    trace = load_trace(trace_path, trace_text, scenario, problem);
    if (!trace) {
      std::cerr << problem;
      return 2;
    }
  } else if (scenario.replays_trace()) {
    std::cerr << "error: the scenario replays trace \"" << scenario.trace.name
              << "\"; give the file with --trace FILE\n";
    return 2;
  }
  if (print_scenario) {
    std::cout << prefixroute::scenario_to_json(scenario, 2) << "\n";
    return 0;
  }
  if (print_hardware) {
    std::cout << prefixroute::hardware_summary_json(scenario) << "\n";
    return 0;
  }

  const prefixroute::ExperimentReport report = prefixroute::run_experiment(scenario, {}, trace.get());
  std::cout << prefixroute::format_text_table(scenario, report);
  if (markdown) std::cout << "\n" << prefixroute::format_markdown_table(report);

  if (!json_path.empty()) {
    const std::filesystem::path path(json_path);
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary);
    out << prefixroute::results_to_json(scenario, report);
    if (!out) {
      std::cerr << "error: cannot write " << json_path << "\n";
      return 1;
    }
    std::cout << "wrote " << json_path << "\n";
  }
  return 0;
}
