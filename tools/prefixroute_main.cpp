// prefixroute: runs a scenario (the reference one by default) with every
// listed policy on one trace and prints the table; --json PATH also writes the
// results JSON. No file is written unless an option names it.
//
//   prefixroute [--scenario FILE.json] [--set key=value]... [--json PATH] [--jobs N]
//                     [--timeline PATH]   (also each policy's run over time: timeline_json.h)
//   prefixroute [--trace FILE] --sweep SPEC [--json PATH]          (one key varied; on a trace, every point replays it)
//   prefixroute ... [--sweep SPEC] --shard K/N --json SHARD.json   (one shard of the runs)
//   prefixroute --merge SHARD.json... --json OUT.json             (the shards, merged)
//   prefixroute [--trace FILE] --capacity [--shard K/N] [--json PATH]  (per policy: the highest load and
//                                                                  the fewest replicas meeting the SLO, slo.*;
//                                                                  --merge takes capacity shards too)
//   prefixroute --trace FILE --trace-summary [--json PATH]       (what was read: requests, duration, lengths,
//                                                                  sessions, shared prefixes, ideal hit rate,
//                                                                  an openai log's key mapping; runs nothing)
//
// The runs of an experiment or sweep (run_list.h) go on --jobs threads (all
// cores by default); the output is the same bytes for any --jobs, and the
// merged shards are the bytes one machine writes (shard.h).
//
// Exit status: 0 on success, 2 for an invalid scenario or command line, 1 when
// a file cannot be read or written.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "prefixroute/run/capacity_search.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/io/capacity_json.h"
#include "prefixroute/io/capacity_shard_json.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/io/shard_json.h"
#include "prefixroute/cluster/tp_choice.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/base/parallel.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/run/shard.h"
#include "prefixroute/io/timeline_json.h"
#include "prefixroute/io/trace_summary_json.h"
#include "prefixroute/run/trace_summary.h"
#include "prefixroute/run/sweep.h"
#include "prefixroute/run/sweep_replay.h"
#include "prefixroute/workload/trace_reader.h"
#include <nlohmann/json.hpp>
#include "capacity_table.h"
#include "trace_summary_text.h"
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

// Reads the trace file at `path` with these reading settings into a
// temporary file (spill_trace: memory does not grow with the file; every run
// streams it back). On failure returns null, the message to print and the
// exit status (1: the file cannot be read; 2: a bad line).
std::unique_ptr<prefixroute::SpilledTrace> read_trace_file(const std::string& path,
                                                           const prefixroute::TraceReadOptions& options,
                                                           std::string& problem, int& status) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  status = 1;
  if (file == nullptr) {
    problem = "error: cannot read trace file " + path + "\n";
    return nullptr;
  }
  std::string error;
  auto spilled = std::make_unique<prefixroute::SpilledTrace>(prefixroute::spill_trace(file, options, error));
  std::fclose(file);
  const prefixroute::TraceReadResult& result = spilled->read();
  if (!error.empty()) {
    problem = "error: cannot replay trace " + path + ": " + error + "\n";
    return nullptr;
  }
  status = 2;
  if (!result.ok()) {
    problem = "error: cannot replay trace " + path + ":\n" + result.error_text();
    if (options.on_error == prefixroute::TraceReadOptions::OnError::Stop)
      problem += "(use --set trace.on_error=skip to skip bad lines; they are counted)\n";
    return nullptr;
  }
  return spilled;
}

// The message of the problems recording a trace in a scenario (or a sweep's).
std::string replay_problems(const std::string& path, const std::vector<prefixroute::FieldError>& errors) {
  std::string problem = "error: cannot replay trace " + path + ":\n";
  for (const auto& e : errors) problem += "  " + e.field + ": " + e.message + "\n";
  return problem;
}

void warn_skipped(const std::string& path, const prefixroute::TraceReadResult& result) {
  if (result.bad_lines > 0)
    std::cerr << "warning: skipped " << result.bad_lines << " bad lines of " << path << ":\n" << result.error_text();
}

// Reads the trace with the scenario's trace settings (read_trace_file) and
// records it in the scenario (core/include/prefixroute/run/replay.h). On
// failure returns null, the message to print and the exit status.
std::unique_ptr<prefixroute::SpilledTrace> load_trace(const std::string& path, prefixroute::Scenario& scenario,
                                                      std::string& problem, int& status) {
  auto spilled = read_trace_file(path, prefixroute::trace_read_options(scenario.trace), problem, status);
  if (!spilled) return nullptr;
  const std::vector<prefixroute::FieldError> errors =
      prefixroute::record_replay(scenario, path, spilled->read(), spilled->figures().size);
  if (!errors.empty()) {
    problem = replay_problems(path, errors);
    status = 2;
    return nullptr;
  }
  warn_skipped(path, spilled->read());
  return spilled;
}

bool write_text(const std::string& path_text, const std::string& text) {
  const std::filesystem::path path(path_text);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

// Writes `text` to `path`, saying so; false (and the message) when it cannot.
bool write_reported(const std::string& path, const std::string& text) {
  if (!write_text(path, text)) {
    std::cerr << "error: cannot write " << path << "\n";
    return false;
  }
  std::cout << "wrote " << path << "\n";
  return true;
}

void print_sweep_table(const prefixroute::SweepSpec& spec, const std::string& json) {
  const auto doc = nlohmann::json::parse(json);
  std::printf("sweep of %s: hit rate vs p99 TTFT (* = on the Pareto front of all points)\n", spec.key.c_str());
  std::printf("%-14s %-22s %9s %11s %11s\n", "value", "policy", "hit_rate", "p99_ttft", "mean_ttft");
  for (const auto& point : doc["points"])
    for (const auto& r : point["results"])
      std::printf("%-14s %-22s %8.1f%% %8.1f ms %8.1f ms %s\n", point["value"].get<std::string>().c_str(),
                  r["policy"].get<std::string>().c_str(), r["hit_rate"].get<double>() * 100,
                  r["p99_ttft_ms"].get<double>(), r["mean_ttft_ms"].get<double>(), r["pareto"].get<bool>() ? "*" : "");
}

std::string shard_text(const prefixroute::Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

// --sweep: one row per (value, policy), the Pareto points starred. With
// --trace every point replays the file, read once (run/sweep_replay.h).
int run_sweep_command(const std::string& text, const std::vector<prefixroute::Override>& overrides,
                      const std::string& sweep_text, const std::string& json_path, unsigned jobs,
                      const prefixroute::Shard* shard, const std::string& trace_path) {
  prefixroute::SweepSpec spec;
  std::string error;
  if (!prefixroute::parse_sweep(sweep_text, spec, error)) {
    std::cerr << "error: --sweep " << error << "\n";
    return 2;
  }
  prefixroute::SweepReport plan = prefixroute::plan_sweep(text, overrides, spec);
  if (!plan.errors.empty()) {
    std::cerr << "error: invalid sweep:\n";
    for (const auto& e : plan.errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
    return 2;
  }
  std::unique_ptr<prefixroute::SpilledTrace> trace;
  if (const auto errors = prefixroute::sweep_replay_key_errors(spec); !trace_path.empty() && !errors.empty()) {
    std::cerr << replay_problems(trace_path, errors);
    return 2;
  }
  if (!trace_path.empty()) {
    // The points share their reading settings (a sweep cannot vary trace.*): the first point's read the file.
    const prefixroute::TraceReadOptions options = prefixroute::trace_read_options(plan.points.front().scenario.trace);
    std::string problem;
    int status = 0;
    trace = read_trace_file(trace_path, options, problem, status);
    if (!trace) {
      std::cerr << problem;
      return status;
    }
    const std::vector<prefixroute::FieldError> errors =
        prefixroute::record_sweep_replay(plan, spec, options, trace_path, trace->read(), trace->figures().size);
    if (!errors.empty()) {
      std::cerr << replay_problems(trace_path, errors);
      return 2;
    }
    warn_skipped(trace_path, trace->read());
  }
  try {
    if (shard != nullptr) {
      const prefixroute::ShardReport report = prefixroute::run_sweep_shard(plan, *shard, {}, jobs, trace.get());
      std::printf("sweep of %s, shard %s: ran %zu of %zu runs\n", spec.key.c_str(), shard_text(*shard).c_str(),
                  report.runs.size(), report.total_runs);
      return write_reported(json_path, prefixroute::sweep_shard_to_json(spec, plan, report)) ? 0 : 1;
    }
    const prefixroute::SweepReport report = prefixroute::run_planned_sweep(std::move(plan), {}, jobs, trace.get());
    const std::string json = prefixroute::sweep_to_json(spec, report);
    print_sweep_table(spec, json);
    if (!json_path.empty() && !write_reported(json_path, json)) return 1;
    return 0;
  } catch (const std::runtime_error& e) {
    std::cerr << "error: cannot replay trace " << trace_path << ": " << e.what() << "\n";
    return 1;
  }
}

// --merge: the shards' documents, checked and merged into what one machine writes.
int merge_command(const std::vector<std::string>& paths, const std::string& json_path, bool markdown) {
  std::vector<prefixroute::ShardInput> inputs;
  for (const std::string& path : paths) {
    prefixroute::ShardInput input{path, {}};
    if (!read_file(path, input.text)) {
      std::cerr << "error: cannot read shard file " << path << "\n";
      return 1;
    }
    inputs.push_back(std::move(input));
  }
  if (prefixroute::is_capacity_shard(inputs.front().text)) {
    const prefixroute::MergedCapacity capacity = prefixroute::merge_capacity_shards(inputs);
    if (!capacity.ok()) {
      std::cerr << "error: cannot merge the capacity shards:\n";
      for (const auto& e : capacity.errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
      return 2;
    }
    std::cout << prefixroute::format_capacity_table(capacity.scenario, capacity.report);
    return write_reported(json_path, prefixroute::capacity_to_json(capacity.scenario, capacity.report)) ? 0 : 1;
  }
  const prefixroute::MergedShards merged = prefixroute::merge_shards(inputs);
  if (!merged.ok()) {
    std::cerr << "error: cannot merge the shards:\n";
    for (const auto& e : merged.errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
    return 2;
  }
  if (merged.kind == prefixroute::MergedShards::Kind::Sweep) {
    const std::string json = prefixroute::sweep_to_json(merged.spec, merged.sweep);
    print_sweep_table(merged.spec, json);
    return write_reported(json_path, json) ? 0 : 1;
  }
  std::cout << prefixroute::format_text_table(merged.scenario, merged.report)
            << prefixroute::format_slo_table(merged.scenario, merged.report);
  if (markdown) {
    std::cout << "\n" << prefixroute::format_markdown_table(merged.scenario, merged.report);
    const std::string stages = prefixroute::format_stage_table(merged.scenario, merged.report, true);
    if (!stages.empty()) std::cout << "\n" << stages;
  }
  return write_reported(json_path, prefixroute::results_to_json(merged.scenario, merged.report)) ? 0 : 1;
}

// Runs the experiment (on `replay` when given), prints its table and writes
// its results JSON to `json_path` ('' writes none). Returns the exit status.
int run_and_write(const prefixroute::Scenario& scenario, const prefixroute::ReplayedTrace* replay, unsigned jobs,
                  bool markdown, const std::string& json_path, const std::string& timeline_path) {
  const prefixroute::ExperimentReport report =
      // No per-request series: the table and JSON need the summaries only,
      // so a long run's per-request times go to disk (tick_spill.h).
      prefixroute::run_experiment(scenario, {}, replay, jobs, !timeline_path.empty(), /*keep_series=*/false);
  std::cout << prefixroute::format_text_table(scenario, report) << prefixroute::format_slo_table(scenario, report);
  if (markdown) {
    std::cout << "\n" << prefixroute::format_markdown_table(scenario, report);
    const std::string stages = prefixroute::format_stage_table(scenario, report, true);
    if (!stages.empty()) std::cout << "\n" << stages;
  }

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
  if (!timeline_path.empty() && !write_reported(timeline_path, prefixroute::timelines_to_json(scenario, report)))
    return 1;
  return 0;
}

// --capacity: per policy, the highest load and the fewest replicas at which
// the scenario's SLO holds (run/capacity_search.h); its table, and the
// capacity JSON to `json_path` ('' writes none).
int capacity_command(const prefixroute::Scenario& scenario, const prefixroute::ReplayedTrace* replay, unsigned jobs,
                     const std::string& json_path, const prefixroute::Shard* shard) {
  const std::vector<prefixroute::FieldError> errors = prefixroute::check_capacity(scenario);
  if (!errors.empty()) {
    std::cerr << "error: cannot search capacity:\n";
    for (const auto& e : errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
    return 2;
  }
  if (shard != nullptr) {
    const prefixroute::CapacityShardReport report = prefixroute::run_capacity_shard(scenario, *shard, replay, jobs);
    std::printf("capacity shard %s: ran %zu of %zu searches\n", shard_text(*shard).c_str(), report.searches.size(),
                report.total);
    return write_reported(json_path, prefixroute::capacity_shard_to_json(scenario, report)) ? 0 : 1;
  }
  const prefixroute::CapacityReport report = prefixroute::run_capacity_search(scenario, replay, jobs);
  std::cout << prefixroute::format_capacity_table(scenario, report);
  if (!json_path.empty() && !write_reported(json_path, prefixroute::capacity_to_json(scenario, report))) return 1;
  return 0;
}

// --smallest-tp: the smallest tensor parallelism for the scenario's model on
// its GPU (cluster/tp_choice.h), as JSON. Errors only in the fields the
// choice reads end it: the scenario's own hardware.tp may be refused.
int print_tp_choice(const prefixroute::ScenarioParse& parsed) {
  bool read = true;
  for (const auto& e : parsed.errors) {
    if (!prefixroute::tp_choice_reads(e.field)) continue;
    if (read) std::cerr << "error: invalid scenario:\n";
    read = false;
    std::cerr << "  " << e.field << ": " << e.message << "\n";
  }
  if (!read) return 2;
  const prefixroute::TpChoice c =
      prefixroute::smallest_tp(parsed.scenario.hardware, parsed.scenario.cluster.kv_block_tokens);
  if (!c.ok()) {
    std::cerr << "error: " << c.error_field << ": " << c.error << "\n";
    return 2;
  }
  nlohmann::ordered_json out;
  out["tp"] = c.tp;
  out["min_fit_tp"] = c.min_fit_tp;
  out["holds_context"] = c.holds_context;
  out["cache_tokens"] = c.cache_tokens;
  out["context_tokens"] = c.context_tokens;
  out["reason"] = c.reason;
  std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"prefixroute: routing policies simulated on one scenario (the reference one by default) or a trace"};
  std::string scenario_path;
  std::string trace_path;
  std::string sweep_text;
  std::vector<std::string> sets;
  std::string json_path;  // no file unless asked
  bool markdown = false;
  bool print_schema = false;
  bool print_scenario = false;
  bool print_fields = false;
  bool print_policies = false;
  bool print_hardware = false;
  bool print_smallest_tp = false;
  bool print_step_table = false;
  bool capacity = false;
  bool trace_summary = false;
  unsigned jobs = prefixroute::hardware_jobs();
  std::string shard_text_arg;
  std::vector<std::string> merge_paths;
  std::string timeline_path;
  app.add_option("--scenario", scenario_path, "Scenario JSON file (missing keys take defaults)");
  app.add_option("--trace", trace_path,
                 "Replay a Mooncake- or Bailian-format JSONL trace (trace.format) instead of the synthetic workload");
  app.add_option("--sweep", sweep_text,
                 "Vary one key: key=v1,v2,... or key=from:to:steps; prints hit rate vs p99 per policy (with --trace: "
                 "every point replays the trace)");
  app.add_option("--set", sets, "Override one scenario key: dotted.key=value (repeatable)")
      ->take_all();
  app.add_option("--json", json_path, "Write the results JSON to this file (default: none)");
  app.add_option("--timeline", timeline_path,
                 "Also write each policy's run over time (windows x replicas: queue wait or batch and KV use, hit "
                 "rate, dominant prefix group) to this JSON file");
  app.add_flag("--markdown", markdown, "Also print the table as Markdown");
  app.add_option("--jobs", jobs, "Runs at once (threads); the results are the same for any number (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  app.add_option("--shard", shard_text_arg,
                 "Run only shard K of N (runs i with i mod N = K - 1) and write its shard document to --json");
  app.add_option("--merge", merge_paths,
                 "Merge shard documents (every K of one --shard K/N run) into the results or sweep JSON --json writes")
      ->take_all()
      ->excludes("--scenario", "--set", "--trace", "--sweep", "--shard");
  app.add_flag("--capacity", capacity,
               "Per policy, search the highest load and the fewest replicas (GPUs) meeting the scenario's SLO "
               "(slo.ttft_ms / slo.tpot_ms; capacity.*); --json writes the capacity JSON")
      ->excludes("--sweep", "--merge", "--timeline");
  app.add_flag("--trace-summary", trace_summary,
               "With --trace: print what was read (requests, duration, rate, prompt and output lengths, sessions, "
               "shared prefixes, ideal hit rate, an openai log's key mapping) and run nothing; --json writes it "
               "(prefixroute.trace/1)")
      ->needs("--trace")
      ->excludes("--sweep", "--merge", "--timeline", "--capacity", "--shard");
  app.add_flag("--schema", print_schema, "Print the scenario JSON Schema and exit");
  app.add_flag("--fields", print_fields, "Print the scenario fields as a Markdown table and exit");
  app.add_flag("--policies", print_policies, "Print the policy catalogue as a Markdown table and exit");
  app.add_flag("--print-scenario", print_scenario, "Print the resolved scenario and exit");
  app.add_flag("--step-table", print_step_table,
               "Print the hardware presets' step times, KV capacities and prefill speeds beside published "
               "measurements (Markdown) and exit");
  app.add_flag("--hardware", print_hardware,
               "Print what the scenario's hardware.* and cluster settings mean for one replica (JSON) and exit");
  app.add_flag("--smallest-tp", print_smallest_tp,
               "Print the smallest hardware.tp that holds the scenario's model on its GPU with room for one "
               "full-context request's KV (JSON: tp, min_fit_tp, holds_context, cache_tokens, context_tokens, reason) and exit; "
               "the scenario's own hardware.tp is ignored");
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

  if (print_policies) {
    std::cout << prefixroute::format_policies_markdown();
    return 0;
  }

  if (print_step_table) {
    std::cout << prefixroute::format_step_table_markdown() << "\n" << prefixroute::format_capacity_table_markdown()
              << "\n" << prefixroute::format_calibration_table_markdown();
    return 0;
  }

  // A shard or merge exists only to write its document.
  const bool json_given = !json_path.empty();
  if (!merge_paths.empty()) {
    if (!timeline_path.empty()) {
      std::cerr << "error: --timeline needs a single run of the scenario (a merge holds no per-request results)\n";
      return 2;
    }
    if (!json_given) {
      std::cerr << "error: --merge needs --json OUT (where to write the merged document)\n";
      return 2;
    }
    return merge_command(merge_paths, json_path, markdown);
  }
  prefixroute::Shard shard;
  if (!shard_text_arg.empty()) {
    std::string error;
    if (!prefixroute::parse_shard(shard_text_arg, shard, error)) {
      std::cerr << "error: --shard " << error << "\n";
      return 2;
    }
    if (!json_given) {
      std::cerr << "error: --shard needs --json SHARD.json (where to write the shard document)\n";
      return 2;
    }
  }
  const prefixroute::Shard* sharded = shard_text_arg.empty() ? nullptr : &shard;

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
  if (!timeline_path.empty() && (!sweep_text.empty() || sharded != nullptr)) {
    std::cerr << "error: --timeline needs a single run of the scenario (not --sweep or --shard)\n";
    return 2;
  }
  if (!sweep_text.empty()) return run_sweep_command(text, overrides, sweep_text, json_path, jobs, sharded, trace_path);
  prefixroute::ScenarioParse parsed = prefixroute::parse_scenario(text, overrides);
  if (print_smallest_tp) return print_tp_choice(parsed);
  if (!parsed.ok()) {
    std::cerr << "error: invalid scenario" << (scenario_path.empty() ? "" : " " + scenario_path)
              << ":\n";
    for (const auto& e : parsed.errors) std::cerr << "  " << e.field << ": " << e.message << "\n";
    return 2;
  }
  prefixroute::Scenario& scenario = parsed.scenario;
  std::unique_ptr<prefixroute::SpilledTrace> trace;
  if (!trace_path.empty()) {
    std::string problem;
    int status = 0;
    trace = load_trace(trace_path, scenario, problem, status);
    if (!trace) {
      std::cerr << problem;
      return status;
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
  if (trace_summary) {
    try {
      const prefixroute::TraceSummary summary = prefixroute::summarize_trace(
          trace_path, trace->read(), prefixroute::trace_read_options(scenario.trace), *trace);
      std::cout << prefixroute::format_trace_summary(summary);
      if (!json_path.empty() && !write_reported(json_path, prefixroute::trace_summary_to_json(summary))) return 1;
      return 0;
    } catch (const std::runtime_error& e) {
      std::cerr << "error: cannot read trace " << trace_path << ": " << e.what() << "\n";
      return 1;
    }
  }

  // A replay's runs read the trace back from its temporary file: a read that
  // fails there (an I/O error) ends the command rather than a run on part of it.
  try {
    if (sharded != nullptr && !capacity) {
      const prefixroute::ShardReport report = prefixroute::run_experiment_shard(scenario, shard, {}, trace.get(), jobs);
      std::printf("shard %s: ran %zu of %zu runs\n", shard_text(shard).c_str(), report.runs.size(), report.total_runs);
      return write_reported(json_path, prefixroute::experiment_shard_to_json(scenario, report)) ? 0 : 1;
    }
    if (capacity) return capacity_command(scenario, trace.get(), jobs, json_path, sharded);
    return run_and_write(scenario, trace.get(), jobs, markdown, json_path, timeline_path);
  } catch (const std::runtime_error& e) {
    std::cerr << "error: " << (trace_path.empty() ? "" : "cannot replay trace " + trace_path + ": ") << e.what()
              << "\n";
    return 1;
  }
}
