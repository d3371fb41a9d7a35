// prefixroute-perf: the macro benchmark behind `npm run perf` (docs/performance.md).
//
//   prefixroute-perf [--only SECTIONS] [--policies P,..] [--repeat N] [--rounds N] [--cpu N|none] [--quick]
//                    [--trace FILE] [--format md|json] [--in-process]
//   prefixroute-perf --only custom [--set key=value]... [--custom-trace] [--policies P]
//
// Sections (default: all, in this order):
//   reference       simulate() of the reference scenario, per policy
//   experiment      parse + run_experiment + results JSON of the reference scenario
//                   (what the wasm module's runScenario does), all policies and each alone
//   mooncake        the whole Mooncake conversation trace, 8 replicas, 1M-token caches
//   batched         the batched engine (Llama-3.1-8B on one H100 per replica): the
//                   reference scenario, the same with decode (50-300 output tokens),
//                   and the whole Mooncake trace on 8 replicas (its own output lengths)
//   requests        scaling in requests: the reference scenario with 1k .. 1M requests
//   replicas        scaling in replicas: 4 .. 256 replicas at the same load per replica
//                   (arrival rate and tenants scale with the replica count)
//   jobs            the run pool (base/parallel.h): wall time with --jobs 1 and 2 of a
//                   sweep of 8 points x 4 policies (reference scenario) and of all
//                   policies on the Mooncake trace; the speed-up is the median of
//                   `rounds` alternating pairs of processes (jobs 1, then jobs 2),
//                   each free to use every allowed CPU (the section lifts the pinning)
//   custom          (only when named) the scenario given by --set overrides, or
//                   the --trace file with --custom-trace: for profiling one case
//
// Every case runs in a forked child process, `repeat` times; the parent reports
// the median wall time and the child's peak resident memory (wait4's
// ru_maxrss: the child's own high-water mark, workload or trace included).
// Setup (workload generation, trace parsing) is timed separately and is not in
// the wall time of simulate(). "sim s / wall s" is the trace's arrival span
// divided by the wall time. Timings vary with machine load: see `uptime`.
// The scaling sections judge their ratio on `rounds` alternating pairs of
// processes (the smallest case, then the largest), not on one process each.
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/io/sweep_json.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/run/sweep.h"
#include "prefixroute/workload/trace_reader.h"
#include "prefixroute/workload/workload.h"

namespace {

using Clock = std::chrono::steady_clock;
using prefixroute::Override;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// CPU time of this thread: unlike wall time, it does not count time spent
// descheduled, so it is the steadier figure on a shared machine.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// What a child measured. Sent to the parent as one line of numbers.
struct Measurement {
  std::vector<double> wall_s;   // one per repeat
  std::vector<double> cpu_s;    // thread CPU time, one per repeat
  double setup_s = 0;           // workload generation or trace parsing
  double span_s = 0;            // simulated arrival span of the trace
  double requests = 0;
  double prompt_tokens = 0;
  double prefill_tokens = 0;    // modelled work: tokens the replicas prefilled (last repeat)
  long peak_rss_kb = 0;         // filled in by the parent
  bool ok = false;
  std::string error;

  static double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (v.empty()) return 0;
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  double median() const { return median_of(wall_s); }
  double cpu_median() const { return median_of(cpu_s); }
  double min() const { return wall_s.empty() ? 0 : *std::min_element(wall_s.begin(), wall_s.end()); }
  double max() const { return wall_s.empty() ? 0 : *std::max_element(wall_s.begin(), wall_s.end()); }
};

std::string serialize(const Measurement& m) {
  std::ostringstream out;
  out.precision(17);
  out << (m.ok ? 1 : 0) << ' ' << m.setup_s << ' ' << m.span_s << ' ' << m.requests << ' ' << m.prompt_tokens
      << ' ' << m.prefill_tokens << ' ' << m.wall_s.size();
  for (const double w : m.wall_s) out << ' ' << w;
  for (const double c : m.cpu_s) out << ' ' << c;
  out << ' ' << m.error;
  return out.str();
}

Measurement deserialize(const std::string& text) {
  Measurement m;
  std::istringstream in(text);
  int ok = 0;
  std::size_t n = 0;
  if (!(in >> ok >> m.setup_s >> m.span_s >> m.requests >> m.prompt_tokens >> m.prefill_tokens >> n)) {
    m.error = "child process died without a result";
    return m;
  }
  m.wall_s.resize(n);
  for (double& w : m.wall_s) in >> w;
  m.cpu_s.resize(n);
  for (double& c : m.cpu_s) in >> c;
  std::getline(in, m.error);
  if (!m.error.empty() && m.error.front() == ' ') m.error.erase(0, 1);
  m.ok = ok == 1;
  return m;
}

bool g_in_process = false;  // --in-process: no fork (for valgrind/perf profiles)
cpu_set_t g_allowed;        // the CPUs this process could use before pin_to_one_cpu
bool g_have_allowed = false;

// Lets this process use every CPU it was allowed at start (the jobs section's
// children: a thread pool pinned to one CPU measures nothing).
void unpin() {
  if (g_have_allowed) sched_setaffinity(0, sizeof g_allowed, &g_allowed);
}

int allowed_cpus() { return g_have_allowed ? CPU_COUNT(&g_allowed) : 1; }

// Pins this process (and so every child it forks) to one CPU. On the project's 2-vCPU machines the
// two vCPUs differ in speed by ~35 % (the same run, `taskset -c 0` against
// `taskset -c 1`, alternately), and successive children landed on either: a
// ratio of two cases then measured the cores as much as the code. `cpu` < 0:
// the first CPU this process may run on. Returns the CPU, or -1 when pinning
// failed (then nothing is pinned and the output says so).
int pin_to_one_cpu(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  g_allowed = allowed;
  g_have_allowed = true;
  if (cpu < 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) {
        cpu = c;
        break;
      }
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) return -1;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0 ? cpu : -1;
}

// Runs `body` in a child process and returns its measurement with the
// child's peak resident memory.
Measurement isolated(const std::function<Measurement()>& body) {
  if (g_in_process) {
    Measurement m = body();
    struct rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    m.peak_rss_kb = usage.ru_maxrss;
    return m;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  int fds[2];
  if (pipe(fds) != 0) {
    Measurement m;
    m.error = "pipe failed";
    return m;
  }
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string text = serialize(body());
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t w = write(fds[1], text.data() + done, text.size() - done);
      if (w <= 0) break;
      done += static_cast<std::size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t r;
  while ((r = read(fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(r));
  close(fds[0]);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  Measurement m = deserialize(text);
  m.peak_rss_kb = usage.ru_maxrss;
  return m;
}

prefixroute::Scenario scenario_with(const std::vector<Override>& overrides, std::string& error) {
  prefixroute::ScenarioParse p = prefixroute::parse_scenario("", overrides);
  if (!p.ok()) error = p.error_text();
  return p.scenario;
}

double span_seconds(const prefixroute::RequestTrace& trace) {
  if (trace.size() == 0) return 0;
  return static_cast<double>(trace.arrival(trace.size() - 1) - trace.arrival(0)) / 1e9;
}

// simulate() of one policy on a synthetic workload, `repeat` times.
Measurement run_synthetic(const std::vector<Override>& overrides, const std::string& policy, int repeat) {
  Measurement m;
  const prefixroute::Scenario s = scenario_with(overrides, m.error);
  if (!m.error.empty()) return m;
  const auto start = Clock::now();
  const prefixroute::Workload workload = prefixroute::generate_workload(s.workload, s.seed);
  m.setup_s = seconds_since(start);
  m.span_s = span_seconds(workload);
  m.requests = static_cast<double>(workload.size());
  m.prompt_tokens = static_cast<double>(workload.total_prompt_tokens());
  for (int r = 0; r < repeat; ++r) {
    auto p = prefixroute::make_policy(policy, s.policy_params, policy_context(s));
    const double c0 = thread_cpu_seconds();
    const auto t0 = Clock::now();
    const prefixroute::SimulationRun run = prefixroute::simulate(workload, s.cluster, *p, {}, 4096, s.router);
    m.wall_s.push_back(seconds_since(t0));
    m.cpu_s.push_back(thread_cpu_seconds() - c0);
    if (run.ttft.size() != workload.size()) m.error = "run incomplete";
    m.prefill_tokens = 0;
    for (const prefixroute::ReplicaTotals& t : run.replicas) m.prefill_tokens += static_cast<double>(t.prefill_tokens);
  }
  m.ok = m.error.empty();
  return m;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// simulate() of one policy on the Mooncake trace, `repeat` times.
Measurement run_trace(const std::string& path, const std::vector<Override>& overrides, const std::string& policy,
                      int repeat) {
  Measurement m;
  const prefixroute::Scenario s = scenario_with(overrides, m.error);
  if (!m.error.empty()) return m;
  const auto start = Clock::now();
  const std::optional<std::string> text = read_file(path);
  if (!text) {
    m.error = "cannot read " + path;
    return m;
  }
  prefixroute::TraceReadResult read = prefixroute::read_trace(*text, {});
  m.setup_s = seconds_since(start);
  if (!read.ok()) {
    m.error = read.error_text();
    return m;
  }
  const prefixroute::BlockTrace& trace = *read.trace;
  m.span_s = span_seconds(trace);
  m.requests = static_cast<double>(trace.size());
  m.prompt_tokens = static_cast<double>(trace.total_prompt_tokens());
  for (int r = 0; r < repeat; ++r) {
    auto p = prefixroute::make_policy(policy, s.policy_params, policy_context(s));
    const double c0 = thread_cpu_seconds();
    const auto t0 = Clock::now();
    const prefixroute::SimulationRun run = prefixroute::simulate(trace, s.cluster, *p, {}, 4096, s.router);
    m.wall_s.push_back(seconds_since(t0));
    m.cpu_s.push_back(thread_cpu_seconds() - c0);
    if (run.ttft.size() != trace.size()) m.error = "run incomplete";
  }
  m.ok = m.error.empty();
  return m;
}

// What runScenario does in the wasm module: parse, run_experiment (workload,
// every listed policy, both bounds), results JSON.
Measurement run_whole_experiment(const std::vector<Override>& overrides, int repeat) {
  Measurement m;
  for (int r = 0; r < repeat; ++r) {
    const double c0 = thread_cpu_seconds();
    const auto t0 = Clock::now();
    prefixroute::ScenarioParse p = prefixroute::parse_scenario("", overrides);
    if (!p.ok()) {
      m.error = p.error_text();
      return m;
    }
    const prefixroute::ExperimentReport report = prefixroute::run_experiment(p.scenario);
    const std::string json = prefixroute::results_to_json(p.scenario, report);
    m.wall_s.push_back(seconds_since(t0));
    m.cpu_s.push_back(thread_cpu_seconds() - c0);
    m.requests = static_cast<double>(report.requests);
    m.prompt_tokens = static_cast<double>(report.prompt_tokens);
    if (json.empty()) m.error = "empty results";
  }
  m.ok = m.error.empty();
  return m;
}

// The jobs section's sweep: 8 points x the 4 baseline policies of the
// reference scenario (plus each point's two bounds), on `jobs` threads.
Measurement run_jobs_sweep(unsigned jobs, int repeat) {
  unpin();
  Measurement m;
  prefixroute::SweepSpec spec;
  if (!prefixroute::parse_sweep("affinity_balanced.load_slack_s=0:0.14:8", spec, m.error)) return m;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    const prefixroute::SweepReport report = prefixroute::run_sweep("", {}, spec, {}, jobs);
    const std::string json = prefixroute::sweep_to_json(spec, report);
    m.wall_s.push_back(seconds_since(t0));
    m.cpu_s.push_back(0);
    if (!report.errors.empty() || json.empty()) m.error = "sweep failed";
    m.requests = static_cast<double>(report.points.size() * 4 * 4000);
  }
  m.ok = m.error.empty();
  return m;
}

// The jobs section's experiment: every policy on the Mooncake trace (8
// replicas, 1M-token caches: the mooncake section's cluster), on `jobs`
// threads; reading the file is setup, not timed.
Measurement run_jobs_trace(const std::string& path, unsigned jobs, int repeat) {
  unpin();
  Measurement m;
  const prefixroute::Scenario s = scenario_with(
      {{"cluster.replicas", "8"}, {"cluster.cache_tokens", "1000000"}, {"policies", "all"}}, m.error);
  if (!m.error.empty()) return m;
  const auto start = Clock::now();
  const std::optional<std::string> text = read_file(path);
  if (!text) {
    m.error = "cannot read " + path;
    return m;
  }
  prefixroute::TraceReadResult read = prefixroute::read_trace(*text, {});
  m.setup_s = seconds_since(start);
  if (!read.ok()) {
    m.error = read.error_text();
    return m;
  }
  m.requests = static_cast<double>(read.trace->size());
  const prefixroute::InMemoryReplay replay(*read.trace);
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = Clock::now();
    const prefixroute::ExperimentReport report = prefixroute::run_experiment(s, {}, &replay, jobs);
    m.wall_s.push_back(seconds_since(t0));
    m.cpu_s.push_back(0);
    if (report.outcomes.size() != s.policies.size()) m.error = "run incomplete";
  }
  m.ok = m.error.empty();
  return m;
}

// ---------------------------------------------------------------------------
// Output

struct Options {
  std::vector<std::string> sections = {"reference", "experiment", "mooncake", "batched", "requests", "replicas", "jobs"};
  std::vector<std::string> policies;
  int repeat = 5;
  int rounds = 5;  // scaling sections: alternating small/large rounds behind each judged ratio
  int cpu = -1;    // --cpu: the CPU to pin to (-1: the first allowed); --cpu none: no pinning
  bool pin = true;
  bool quick = false;
  bool json = false;
  std::string trace = "../shared/traces/mooncake_conversation_trace.jsonl";
  std::vector<Override> custom;  // --set: the `custom` section's scenario overrides
  bool custom_trace = false;     // --custom-trace: the `custom` section replays --trace
  bool no_all = false;           // --no-all: the `experiment` section skips policies=all
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool wanted(const Options& o, const char* section) {
  return std::find(o.sections.begin(), o.sections.end(), section) != o.sections.end();
}

std::string label_of(const std::string& policy) {
  for (const auto* info : prefixroute::policy_catalogue())
    if (info->name() == policy) return std::string(info->label());
  return policy;
}

std::string with_commas(double value) {
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.0f", value);
  std::string s = digits, out;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; ++i) {
    out += s[i];
    if (i + 1 < n && (n - i - 1) % 3 == 0 && s[i] != '-') out += ',';
  }
  return out;
}

std::string format(const char* fmt, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, v);
  return buffer;
}

std::string time_text(double seconds) {
  if (seconds < 1e-3) return format("%.1f µs", seconds * 1e6);
  if (seconds < 1) return format("%.2f ms", seconds * 1e3);
  return format("%.3f s", seconds);
}

std::string mib(long kb) { return format("%.1f MiB", static_cast<double>(kb) / 1024.0); }

void json_line(const char* section, const std::string& name, const std::string& policy, const Measurement& m,
               double extra = 0) {
  std::printf("{\"section\":\"%s\",\"case\":\"%s\",\"policy\":\"%s\",\"ok\":%s,\"median_s\":%.9g,"
              "\"min_s\":%.9g,\"max_s\":%.9g,\"cpu_median_s\":%.9g,\"runs\":%zu,\"setup_s\":%.9g,\"span_s\":%.9g,\"requests\":%.0f,"
              "\"prompt_tokens\":%.0f,\"peak_rss_kb\":%ld,\"param\":%.9g}\n",
              section, name.c_str(), policy.c_str(), m.ok ? "true" : "false", m.median(), m.min(), m.max(),
              m.cpu_median(), m.wall_s.size(), m.setup_s, m.span_s, m.requests, m.prompt_tokens, m.peak_rss_kb, extra);
  std::fflush(stdout);
}

bool check(const Measurement& m, const std::string& what) {
  if (m.ok) return true;
  std::fprintf(stderr, "error: %s: %s\n", what.c_str(), m.error.c_str());
  return false;
}

// A scaling ratio (cost per request of the large case / of the small one)
// as the median of per-round ratios: each round runs the small case, then the
// large one, each in its own process, back to back. Even on one CPU (see
// pin_to_one_cpu) a machine's speed drifts over minutes, so one process per case
// gives ratios that swing across the target; pairing the cases in rounds and
// taking the median cancels most of it.
struct ScalingRatio {
  double median = NAN, low = NAN, high = NAN;
};

// `first` is the ratio of a round already measured (the table's row); the
// other rounds call `cost` (CPU seconds per request, NaN on error) with false
// for the small case and true for the large one.
ScalingRatio alternating_ratio(double first, int rounds, const std::function<double(bool)>& cost) {
  std::vector<double> ratios;
  if (!std::isnan(first)) ratios.push_back(first);
  while (static_cast<int>(ratios.size()) < rounds) {
    const double small = cost(false);
    const double large = cost(true);
    if (std::isnan(small) || std::isnan(large)) return {};
    ratios.push_back(large / small);
  }
  ScalingRatio r;
  r.median = Measurement::median_of(ratios);
  r.low = *std::min_element(ratios.begin(), ratios.end());
  r.high = *std::max_element(ratios.begin(), ratios.end());
  return r;
}

// The scaling row's ratio columns: wall and CPU of the row's own round, the
// judged ratio of `rounds` alternating rounds (cost: `cost` as for
// alternating_ratio) and whether it meets `target`. No line end: a section
// may add columns.
void print_scaling_ratios(const std::vector<double>& cost, const std::vector<double>& cpu_cost, int rounds,
                          const std::function<double(bool)>& round_cost, double target, bool& all_ok) {
  const double cpu_ratio = cpu_cost.back() / cpu_cost.front();
  const ScalingRatio judged = alternating_ratio(cpu_ratio, rounds, round_cost);
  if (std::isnan(judged.median)) all_ok = false;
  char range[64] = "error";
  if (!std::isnan(judged.median))
    std::snprintf(range, sizeof range, "%.2fx (%.2f – %.2f)", judged.median, judged.low, judged.high);
  std::printf(" %.2fx | %.2fx | %s | %s |", cost.back() / cost.front(), cpu_ratio, range,
              judged.median <= target ? "yes" : "**no**");
}

// Prints the standard per-policy table for one workload.
void policy_table(const Options& o, const char* section, const char* title, const char* target,
                  const std::function<Measurement(const std::string&)>& measure, double target_s, bool& all_ok) {
  if (!o.json) {
    std::printf("\n### %s\n\n", title);
    std::printf("Target: %s. Median of %d runs (min–max). Target met is judged on CPU time, which on a "
                "shared machine excludes the time other processes hold the core (on a quiet machine the two "
                "agree).\n\n",
                target, o.repeat);
    std::printf("| Policy | Wall time (median) | min–max | CPU time (median) | Requests/s | Sim s / wall s | Peak RSS | Setup | Target met |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
  }
  for (const std::string& policy : o.policies) {
    const Measurement m = measure(policy);
    if (!check(m, std::string(section) + " " + policy)) {
      all_ok = false;
      continue;
    }
    if (o.json) {
      json_line(section, section, policy, m);
      continue;
    }
    const double t = m.median();
    std::printf("| %s | %s | %s – %s | %s | %s | %s | %s | %s | %s |\n", label_of(policy).c_str(), time_text(t).c_str(),
                time_text(m.min()).c_str(), time_text(m.max()).c_str(), time_text(m.cpu_median()).c_str(),
                with_commas(m.requests / t).c_str(),
                with_commas(m.span_s / t).c_str(), mib(m.peak_rss_kb).c_str(), time_text(m.setup_s).c_str(),
                m.cpu_median() <= target_s ? "yes" : "**no**");
    std::fflush(stdout);
  }
}

int run(const Options& o) {
  bool all_ok = true;
  const int repeat = o.repeat;

  if (wanted(o, "reference")) {
    policy_table(
        o, "reference", "Reference scenario (4,000 requests, 4 replicas): simulate() per policy",
        "under 10 ms per policy", [&](const std::string& p) { return isolated([&] { return run_synthetic({}, p, repeat); }); },
        0.010, all_ok);
  }

  if (wanted(o, "experiment")) {
    if (!o.json) {
      std::printf("\n### Reference scenario as the wasm module runs it (parse + run_experiment + results JSON)\n\n");
      std::printf("Includes workload generation and both cache bounds. Median of %d runs.\n\n", repeat);
      std::printf("| Policies | Wall time (median) | min–max | CPU time (median) | Peak RSS |\n|---|---|---|---|---|\n");
    }
    std::vector<std::string> lists;
    if (!o.no_all) lists.push_back("all");
    for (const std::string& p : o.policies) lists.push_back(p);
    for (const std::string& list : lists) {
      const Measurement m = isolated([&] { return run_whole_experiment({{"policies", list}}, repeat); });
      if (!check(m, "experiment " + list)) {
        all_ok = false;
        continue;
      }
      if (o.json) {
        json_line("experiment", list, list, m);
        continue;
      }
      const std::string all = "all " + std::to_string(prefixroute::policy_catalogue().size()) + " (policies=all)";
      std::printf("| %s | %s | %s – %s | %s | %s |\n", list == "all" ? all.c_str() : label_of(list).c_str(),
                  time_text(m.median()).c_str(), time_text(m.min()).c_str(), time_text(m.max()).c_str(),
                  time_text(m.cpu_median()).c_str(), mib(m.peak_rss_kb).c_str());
    }
  }

  if (wanted(o, "jobs")) {
    if (!o.json) {
      std::printf("\n### The run pool: --jobs 1 against --jobs 2 (wall time)\n\n");
      std::printf("Each process may use all %d allowed CPUs (this section lifts the pinning). Median of %d runs per "
                  "process; the speed-up (jobs 1 / jobs 2) is the median of %d rounds (range), each a jobs-1 process "
                  "then a jobs-2 one. Wall time counts whatever else the machine runs: see `uptime`.\n\n",
                  allowed_cpus(), repeat, o.rounds);
      std::printf("| Case | jobs 1 (median) | jobs 2 (median) | Speed-up, median of rounds (range) | Target | Met |\n"
                  "|---|---|---|---|---|---|\n");
    }
    struct JobsCase {
      const char* name;
      const char* target;
      std::function<Measurement(unsigned)> measure;
      double min_speedup, max_jobs2_s;
    };
    const int r = std::max(1, std::min(repeat, 3));
    const std::vector<JobsCase> cases = {
        {"sweep, 8 points x 4 policies (reference scenario)", "speed-up >= 1.7x",
         [&](unsigned jobs) { return isolated([&] { return run_jobs_sweep(jobs, r); }); }, 1.7, 1e300},
        {"all policies, Mooncake conversation trace (8 replicas, 1M-token caches)", "<= 0.6 s with 2 jobs",
         [&](unsigned jobs) { return isolated([&] { return run_jobs_trace(o.trace, jobs, r); }); }, 0, 0.6},
    };
    for (const JobsCase& c : cases) {
      std::vector<double> speedups, one_s, two_s;
      bool ok = true;
      for (int round = 0; round < o.rounds && ok; ++round) {
        const Measurement one = c.measure(1), two = c.measure(2);
        ok = check(one, std::string("jobs 1 ") + c.name) && check(two, std::string("jobs 2 ") + c.name);
        if (!ok) break;
        one_s.push_back(one.median());
        two_s.push_back(two.median());
        speedups.push_back(one.median() / two.median());
        if (o.json) {
          json_line("jobs", c.name, "1", one, 1);
          json_line("jobs", c.name, "2", two, 2);
        }
      }
      if (!ok) {
        all_ok = false;
        continue;
      }
      const double speedup = Measurement::median_of(speedups);
      const double jobs2 = Measurement::median_of(two_s);
      const bool met = speedup >= c.min_speedup && jobs2 <= c.max_jobs2_s;
      if (!o.json)
        std::printf("| %s | %s | %s | %.2fx (%.2f – %.2f) | %s | %s |\n", c.name,
                    time_text(Measurement::median_of(one_s)).c_str(), time_text(jobs2).c_str(), speedup,
                    *std::min_element(speedups.begin(), speedups.end()),
                    *std::max_element(speedups.begin(), speedups.end()), c.target, met ? "yes" : "**no**");
      std::fflush(stdout);
    }
  }

  if (wanted(o, "custom")) {
    std::string title = "Custom case (" + std::string(o.custom_trace ? "trace " + o.trace : "synthetic");
    for (const auto& [key, text] : o.custom) title += ", " + key + "=" + text;
    title += "): simulate() per policy";
    policy_table(
        o, "custom", title.c_str(), "none (a measurement for profiles)",
        [&](const std::string& p) {
          return isolated([&] {
            return o.custom_trace ? run_trace(o.trace, o.custom, p, repeat) : run_synthetic(o.custom, p, repeat);
          });
        },
        1e300, all_ok);
  }

  if (wanted(o, "mooncake")) {
    const std::vector<Override> cluster = {{"cluster.replicas", "8"}, {"cluster.cache_tokens", "1000000"}};
    const int r = std::max(1, std::min(repeat, 3));
    Options trace_options = o;
    trace_options.repeat = r;
    policy_table(
        trace_options, "mooncake",
        "Mooncake conversation trace (whole file), 8 replicas, 1,000,000-token caches: simulate() per policy",
        "at least 5,000x real time per policy, i.e. under 0.7 s (setup = reading and parsing the file)",
        [&](const std::string& p) { return isolated([&] { return run_trace(o.trace, cluster, p, r); }); }, 0.7,
        all_ok);
  }

  if (wanted(o, "batched")) {
    const std::vector<Override> engine = {{"cluster.engine", "batched"},
                                          {"hardware.model", "llama-3.1-8b"},
                                          {"hardware.gpu", "h100"}};
    policy_table(
        o, "batched-reference",
        "Batched engine, reference scenario (Llama-3.1-8B on one H100 per replica, no decode): simulate() per policy",
        "under 10 ms per policy",
        [&](const std::string& p) { return isolated([&] { return run_synthetic(engine, p, repeat); }); }, 0.010,
        all_ok);
    std::vector<Override> decode = engine;
    decode.insert(decode.end(), {{"workload.output_tokens_min", "50"}, {"workload.output_tokens_max", "300"}});
    policy_table(
        o, "batched-decode",
        "Batched engine, reference scenario with 50-300 output tokens per request (700k decode steps' worth): "
        "simulate() per policy",
        "none (for comparison)",
        [&](const std::string& p) { return isolated([&] { return run_synthetic(decode, p, repeat); }); }, 1e300,
        all_ok);
    std::vector<Override> trace = engine;
    trace.emplace_back("cluster.replicas", "8");
    const int r = std::max(1, std::min(repeat, 3));
    Options trace_options = o;
    trace_options.repeat = r;
    policy_table(
        trace_options, "batched-mooncake",
        "Batched engine, Mooncake conversation trace (whole file, its output lengths decoded), 8 replicas of "
        "Llama-3.1-8B on one H100 (448,608-token KV each): simulate() per policy",
        "at least 5,000x real time per policy, i.e. under 0.7 s",
        [&](const std::string& p) { return isolated([&] { return run_trace(o.trace, trace, p, r); }); }, 0.7,
        all_ok);
  }

  if (wanted(o, "requests")) {
    std::vector<long> sizes = {1000, 10000, 100000, 1000000};
    if (o.quick) sizes.pop_back();
    if (!o.json) {
      std::printf("\n### Scaling in requests: reference scenario with 1k .. %s requests\n\n",
                  o.quick ? "100k" : "1M");
      std::printf("Target: cost per request within 1.5x across sizes. Cost per request = median wall time of "
                  "simulate() / requests; runs: %d below 1M requests, 1 at 1M. Target met is judged on the CPU-time "
                  "ratio largest / smallest, the median of %d rounds (range): the row's processes, then %d more "
                  "rounds of a smallest-size process followed by a largest-size one.\n\n",
                  repeat, o.rounds, o.rounds - 1);
      std::printf("| Policy |");
      for (const long n : sizes) std::printf(" %s req |", with_commas(static_cast<double>(n)).c_str());
      std::printf(" Largest / smallest (wall) | (CPU, one round) | CPU, median of rounds (range) | Target met |\n|---|");
      for (std::size_t i = 0; i < sizes.size(); ++i) std::printf("---|");
      std::printf("---|---|---|---|\n");
    }
    std::vector<std::pair<std::string, Measurement>> million;
    const auto measure = [&](const std::string& policy, long n) {
      return isolated([&] {
        return run_synthetic({{"workload.requests", std::to_string(n)}}, policy, n >= 1000000 ? 1 : repeat);
      });
    };
    for (const std::string& policy : o.policies) {
      std::vector<double> cost, cpu_cost;
      if (!o.json) std::printf("| %s |", label_of(policy).c_str());
      for (const long n : sizes) {
        const Measurement m = measure(policy, n);
        if (!check(m, "requests " + std::to_string(n) + " " + policy)) {
          all_ok = false;
          cost.push_back(NAN);
          cpu_cost.push_back(NAN);
          if (!o.json) std::printf(" error |");
          continue;
        }
        if (n == 1000000) million.emplace_back(policy, m);
        if (o.json) json_line("requests", std::to_string(n), policy, m, static_cast<double>(n));
        cost.push_back(m.median() / static_cast<double>(n));
        cpu_cost.push_back(m.cpu_median() / static_cast<double>(n));
        if (!o.json) std::printf(" %s |", time_text(cost.back()).c_str());
        std::fflush(stdout);
      }
      if (!o.json) {
        print_scaling_ratios(cost, cpu_cost, o.rounds, [&](bool large) {
          const long n = large ? sizes.back() : sizes.front();
          const Measurement m = measure(policy, n);
          return m.ok ? m.cpu_median() / static_cast<double>(n) : NAN;
        }, 1.5, all_ok);
        std::printf("\n");
        std::fflush(stdout);
      }
    }
    if (!o.json && !million.empty()) {
      std::printf("\n### 1,000,000-request synthetic run (reference scenario, 4 replicas; one run each)\n\n");
      std::printf("| Policy | Wall time | Requests/s | Sim s / wall s | Peak RSS | Workload generation |\n");
      std::printf("|---|---|---|---|---|---|\n");
      for (const auto& [policy, m] : million)
        std::printf("| %s | %s | %s | %s | %s | %s |\n", label_of(policy).c_str(), time_text(m.median()).c_str(),
                    with_commas(m.requests / m.median()).c_str(), with_commas(m.span_s / m.median()).c_str(),
                    mib(m.peak_rss_kb).c_str(), time_text(m.setup_s).c_str());
    }
  }

  if (wanted(o, "replicas")) {
    std::vector<int> counts = {4, 8, 16, 32, 64, 128, 256};
    if (o.quick) counts.resize(5);
    constexpr long kRequests = 100000;
    if (!o.json) {
      std::printf("\n### Scaling in replicas: %s requests, 4 .. %d replicas at the same load per replica\n\n",
                  with_commas(kRequests).c_str(), counts.back());
      std::printf("Arrival rate = 25/s x replicas and tenants = 3 x replicas (the reference scenario's per-replica "
                  "load and tenant mix at 4 replicas). Target: cost per request at most 2x from 4 to %d replicas. "
                  "Cost per request = median wall time of simulate() / requests (%d runs). Target met is judged on "
                  "the CPU-time ratio largest / 4 replicas, the median of %d rounds (range): the row's processes, "
                  "then %d more rounds of a 4-replica process followed by a %d-replica one. The last column is the "
                  "modelled work: prefilled (cache-missed) tokens per request at %d replicas / at 4, each of which "
                  "a replica writes into its cache.\n\n",
                  counts.back(), repeat, o.rounds, o.rounds - 1, counts.back(), counts.back());
      std::printf("| Policy |");
      for (const int n : counts) std::printf(" %d |", n);
      std::printf(" Largest / 4 replicas (wall) | (CPU, one round) | CPU, median of rounds (range) | Target met |"
                  " Prefilled tokens per request, %d / 4 |\n|---|",
                  counts.back());
      for (std::size_t i = 0; i < counts.size(); ++i) std::printf("---|");
      std::printf("---|---|---|---|---|\n");
    }
    const auto at_replicas = [&](int n) {
      return std::vector<Override>{{"workload.requests", std::to_string(kRequests)},
                                   {"cluster.replicas", std::to_string(n)},
                                   {"workload.arrival_rate_per_s", std::to_string(25 * n)},
                                   {"workload.tenants", std::to_string(3 * n)}};
    };
    const auto measure = [&](const std::string& policy, int n) {
      return isolated([&] { return run_synthetic(at_replicas(n), policy, repeat); });
    };
    for (const std::string& policy : o.policies) {
      std::vector<double> cost, cpu_cost, prefilled;
      if (!o.json) std::printf("| %s |", label_of(policy).c_str());
      for (const int n : counts) {
        const Measurement m = measure(policy, n);
        if (!check(m, "replicas " + std::to_string(n) + " " + policy)) {
          all_ok = false;
          cost.push_back(NAN);
          cpu_cost.push_back(NAN);
          prefilled.push_back(NAN);
          if (!o.json) std::printf(" error |");
          continue;
        }
        if (o.json) json_line("replicas", std::to_string(n), policy, m, n);
        prefilled.push_back(m.prefill_tokens / kRequests);
        cost.push_back(m.median() / kRequests);
        cpu_cost.push_back(m.cpu_median() / kRequests);
        if (!o.json) std::printf(" %s |", time_text(cost.back()).c_str());
        std::fflush(stdout);
      }
      if (!o.json) {
        print_scaling_ratios(cost, cpu_cost, o.rounds, [&](bool large) {
          const Measurement m = measure(policy, large ? counts.back() : counts.front());
          return m.ok ? m.cpu_median() / kRequests : NAN;
        }, 2.0, all_ok);
        std::printf(" %.2fx |\n", prefilled.back() / prefilled.front());
        std::fflush(stdout);
      }
    }
  }
  return all_ok ? 0 : 1;
}

void usage() {
  std::fprintf(stderr,
               "usage: prefixroute-perf [--only reference,experiment,mooncake,batched,requests,replicas,jobs]\n"
               "                        [--policies round_robin,...] [--repeat N] [--rounds N] [--cpu N|none] [--quick]\n"
               "                        [--trace FILE] [--format md|json] [--in-process]\n"
               "                        [--only custom --set key=value ... [--custom-trace]]\n"
               "       prefixroute-perf --list-policies\n"
               "--no-all: the experiment section runs only the listed policies, not policies=all\n"
               "--in-process runs every case in this process (for profilers; peak RSS is then cumulative)\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (const auto* info : prefixroute::policy_catalogue()) o.policies.emplace_back(info->name());
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--only") {
      o.sections = split_list(value());
    } else if (arg == "--policies") {
      o.policies = split_list(value());
    } else if (arg == "--repeat") {
      o.repeat = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--rounds") {
      o.rounds = std::max(1, std::atoi(value().c_str()));
    } else if (arg == "--cpu") {
      const std::string v = value();
      if (v == "none") o.pin = false;
      else o.cpu = std::atoi(v.c_str());
    } else if (arg == "--set") {
      const std::string kv = value();
      const auto eq = kv.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "error: --set %s: expected key=value\n", kv.c_str());
        return 2;
      }
      o.custom.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (arg == "--no-all") {
      o.no_all = true;
    } else if (arg == "--custom-trace") {
      o.custom_trace = true;
    } else if (arg == "--in-process") {
      g_in_process = true;
    } else if (arg == "--quick") {
      o.quick = true;
    } else if (arg == "--trace") {
      o.trace = value();
    } else if (arg == "--format") {
      const std::string f = value();
      if (f != "md" && f != "json") {
        usage();
        return 2;
      }
      o.json = f == "json";
    } else if (arg == "--list-policies") {
      for (const auto* info : prefixroute::policy_catalogue()) std::printf("%s\n", std::string(info->name()).c_str());
      return 0;
    } else if (arg == "--help" || arg == "-h") {
      usage();
      return 0;
    } else {
      std::fprintf(stderr, "error: unknown argument %s\n", arg.c_str());
      usage();
      return 2;
    }
  }
  for (const std::string& section : o.sections)
    if (section != "reference" && section != "experiment" && section != "mooncake" && section != "requests" &&
        section != "replicas" && section != "jobs" && section != "custom" && section != "batched") {
      std::fprintf(stderr, "error: unknown section %s\n", section.c_str());
      usage();
      return 2;
    }
  for (const std::string& p : o.policies)
    if (!prefixroute::is_known_policy(p)) {
      std::fprintf(stderr, "error: unknown policy %s\n", p.c_str());
      return 2;
    }
  if (o.pin) {
    const int cpu = pin_to_one_cpu(o.cpu);
    if (cpu < 0) std::fprintf(stderr, "warning: could not pin to one CPU; timings mix the CPUs' speeds\n");
    else if (!o.json) std::printf("Pinned to CPU %d (every case and child process; `--cpu N` or `--cpu none`).\n", cpu);
  }
  return run(o);
}
