#include "capacity_table.h"

#include <cstdio>

#include "table_printer.h"

namespace prefixroute {
namespace {

std::string printf_string(const char* format, auto... args) {
  const int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return "";
  std::string out(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.resize(static_cast<std::size_t>(n));
  return out;
}

// "12.5", or "12.5 ± 0.8" with replicates.
std::string figure(const Interval& v, bool replicated, const char* format) {
  std::string out = printf_string(format, v.mean);
  if (replicated) out += " ± " + printf_string(format, v.half_width);
  return out;
}

}  // namespace

std::string format_capacity_table(const Scenario& scenario, const CapacityReport& report) {
  const bool replicated = scenario.replicates > 1 && !scenario.replays_trace();
  const double tp = scenario.hardware.tp;
  const double price = scenario.capacity.gpu_hour_price;
  const LoadAxis& axis = report.axis;
  std::string out = printf_string(
      "capacity at SLO %s: max load varies %s (scenario: %g %s; resolution %g%%), replicas at the scenario's "
      "load (scenario: %u; %g GPUs each)%s\n",
      slo_text(scenario.slo).c_str(), axis.key.c_str(), axis.base, axis.unit.c_str(),
      scenario.capacity.resolution * 100, report.base_replicas, tp,
      replicated ? printf_string("; %u seeds, mean ± half-width of the 95%% interval", scenario.replicates).c_str()
                 : "");
  const char* load_format = axis.integer ? "%.0f" : "%.4g";
  out += printf_string("%-20s %24s %16s %16s%s\n", "policy", ("max load (" + axis.unit + ")").c_str(), "replicas",
                       "GPUs", price > 0 ? "      cost/month" : "");
  for (const PolicyCapacity& p : report.policies) {
    bool limited = false;
    for (const SeedCapacity& s : p.seeds) limited = limited || s.load.limited;
    const std::string load = p.max_load ? (limited ? ">= " : "") + figure(*p.max_load, replicated, load_format)
                                        : std::string("not met");
    const std::string replicas =
        p.replicas ? figure(*p.replicas, replicated, replicated ? "%.1f" : "%.0f")
                   : printf_string("> %u", scenario.capacity.max_replicas);
    const std::string gpus = p.replicas ? figure(Interval{p.replicas->mean * tp, p.replicas->half_width * tp},
                                                 replicated, replicated ? "%.1f" : "%.0f")
                                        : "-";
    std::string cost;
    if (price > 0)
      cost = p.replicas ? printf_string(" %15.0f", p.replicas->mean * tp * price * kHoursPerMonth)
                        : printf_string(" %15s", "-");
    out += printf_string("%-20s %24s %16s %16s%s\n", p.policy.c_str(), load.c_str(), replicas.c_str(), gpus.c_str(),
                         cost.c_str());
  }
  if (report.cancelled) out += "(cancelled: the policies above finished)\n";
  return out;
}

}  // namespace prefixroute
