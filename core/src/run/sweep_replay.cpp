#include "prefixroute/run/sweep_replay.h"

#include <string>

#include "prefixroute/run/replay.h"

namespace prefixroute {

std::vector<FieldError> sweep_replay_key_errors(const SweepSpec& spec) {
  const auto starts = [&](std::string_view prefix) { return spec.key.compare(0, prefix.size(), prefix) == 0; };
  if (starts("trace."))
    return {{"(sweep)", spec.key + " is a reading setting of the replayed trace, read once for the whole sweep: "
                                   "sweep a cluster, router or policy key, or give each value its own --trace run"}};
  if (starts("workload."))
    return {{"(sweep)", spec.key + " sets the synthetic workload, which the replayed trace replaces: every point "
                                   "would replay the same requests; sweep a cluster, router or policy key"}};
  return {};
}

std::vector<FieldError> record_sweep_replay(SweepReport& plan, const SweepSpec& spec, const TraceReadOptions& read_with,
                                            std::string_view file_name, const TraceReadResult& read,
                                            const ReplaySize& size) {
  std::vector<FieldError> errors = sweep_replay_key_errors(spec);
  if (!errors.empty()) return errors;
  std::vector<Scenario> recorded;
  recorded.reserve(plan.points.size());
  for (const SweepPoint& point : plan.points) {
    Scenario scenario = point.scenario;
    std::vector<FieldError> point_errors = differing_read_settings(scenario.trace, read_with);
    if (point_errors.empty()) point_errors = record_replay(scenario, file_name, read, size);
    for (FieldError& e : point_errors) {
      e.message += " (sweep value \"" + point.value.substr(0, 40) + "\")";
      errors.push_back(std::move(e));
    }
    recorded.push_back(std::move(scenario));
  }
  if (!errors.empty()) return errors;
  for (std::size_t i = 0; i < plan.points.size(); ++i) plan.points[i].scenario = std::move(recorded[i]);
  return errors;
}

}  // namespace prefixroute
