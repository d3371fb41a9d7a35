#include "prefixroute/run/sweep.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "run/executor.h"

namespace prefixroute {
namespace {

constexpr std::size_t kMaxSweepValues = 200;

// printf's %.12g in the C locale, as an ostream with precision(12) writes it.
// (No iostreams in the core: see text.h.)
std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.12g", v);
  return text;
}

// A whole decimal number: no trailing text, no hex, inf or nan.
bool parse_double(const std::string& text, double& out) {
  if (text.empty() || text.find_first_of("xXpPnNiI") != std::string::npos) return false;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  out = std::strtod(begin, &end);
  return end == begin + text.size() && errno != ERANGE && std::isfinite(out);
}

// Splits as std::getline(stream, part, delimiter) would: an empty last part is dropped.
std::vector<std::string> split(const std::string& text, char delimiter) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t at = text.find(delimiter, start);
    if (at == std::string::npos) {
      parts.push_back(text.substr(start));
      break;
    }
    parts.push_back(text.substr(start, at - start));
    start = at + 1;
  }
  return parts;
}

}  // namespace

bool parse_sweep(std::string_view text, SweepSpec& spec, std::string& error) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    error = "expected key=v1,v2,... or key=from:to:steps, e.g. affinity_balanced.load_slack_s=0:0.2:5";
    return false;
  }
  spec.key = std::string(text.substr(0, eq));
  spec.values.clear();
  const std::string rest(text.substr(eq + 1));
  if (rest.find(':') != std::string::npos) {
    // from:to:steps; anything after a third ':' stays in steps_text and fails it.
    const std::size_t first = rest.find(':');
    const std::size_t second = rest.find(':', first + 1);
    const std::string from_text = rest.substr(0, first);
    const std::string to_text = second == std::string::npos ? rest.substr(first + 1) : rest.substr(first + 1, second - first - 1);
    const std::string steps_text = second == std::string::npos ? "" : rest.substr(second + 1);
    double from = 0, to = 0, steps = 0;
    if (!parse_double(from_text, from) || !parse_double(to_text, to) || !parse_double(steps_text, steps) ||
        steps != std::floor(steps) || steps < 2 || steps > static_cast<double>(kMaxSweepValues)) {
      error = spec.key + ": a range must be from:to:steps with numbers and 2 <= steps <= " +
              std::to_string(kMaxSweepValues) + "; got \"" + rest.substr(0, 60) + "\"";
      return false;
    }
    const auto n = static_cast<std::size_t>(steps);
    // An integer field takes the evenly spaced values rounded (half up), each
    // once: 1:4:5 gives 1, 2, 3, 4 rather than values the field refuses.
    bool integer = false;
    for (const FieldSpec& f : scenario_fields()) integer = integer || (f.key == spec.key && f.kind == FieldKind::Integer);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = from + (to - from) * static_cast<double>(i) / static_cast<double>(n - 1);
      if (!integer) {
        spec.values.push_back(format_value(v));
        continue;
      }
      char integer_text[32];
      // floor(v + 0.5) would round 2^53 - 1 up: the sum is not representable.
      double rounded = std::floor(v);
      if (v - rounded >= 0.5) rounded += 1;
      std::snprintf(integer_text, sizeof integer_text, "%.0f", rounded);
      if (spec.values.empty() || spec.values.back() != integer_text) spec.values.emplace_back(integer_text);
    }
  } else {
    spec.values = split(rest, ',');
  }
  if (spec.values.empty() || spec.values.size() > kMaxSweepValues) {
    error = spec.key + ": a sweep needs 1 to " + std::to_string(kMaxSweepValues) + " values";
    return false;
  }
  return true;
}

SweepReport plan_sweep(std::string_view scenario_json, const std::vector<Override>& overrides, const SweepSpec& spec) {
  SweepReport report;
  // Validate every value first: a bad one anywhere means nothing runs.
  for (const std::string& value : spec.values) {
    std::vector<Override> with_value = overrides;
    with_value.emplace_back(spec.key, value);
    ScenarioParse parsed = parse_scenario(scenario_json, with_value);
    if (!parsed.ok()) {
      for (FieldError& e : parsed.errors) {
        e.message += " (sweep value \"" + value.substr(0, 40) + "\")";
        report.errors.push_back(std::move(e));
      }
      continue;
    }
    report.points.push_back(SweepPoint{value, std::move(parsed.scenario), {}});
  }
  if (!report.errors.empty()) report.points.clear();
  return report;
}

SweepReport run_sweep(std::string_view scenario_json, const std::vector<Override>& overrides,
                      const SweepSpec& spec, const SweepProgress& progress, unsigned jobs) {
  return run_planned_sweep(plan_sweep(scenario_json, overrides, spec), progress, jobs);
}

SweepReport run_planned_sweep(SweepReport plan, const SweepProgress& progress, unsigned jobs, const ReplayedTrace* replay) {
  SweepReport report = std::move(plan);
  if (!report.errors.empty()) return report;
  std::vector<const Scenario*> points;
  for (const SweepPoint& p : report.points) points.push_back(&p.scenario);
  engine::EngineOptions options;
  options.jobs = jobs;
  if (progress) options.progress = progress;
  engine::EngineResult result = engine::execute(points, replay, options);
  for (std::size_t i = 0; i < report.points.size(); ++i)
    report.points[i].report = engine::assemble(report.points[i].scenario, std::move(result.points[i]), result.cancelled);
  report.cancelled = result.cancelled;
  return report;
}

}  // namespace prefixroute
