#include "prefixroute/run/capacity_search.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <utility>

#include "prefixroute/base/parallel.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/run/slo.h"
#include "prefixroute/workload/client.h"
#include "prefixroute/workload/synthetic.h"
#include "run/executor.h"

namespace prefixroute {
namespace {

// The bracket grows or shrinks the scenario's load at most 2^20-fold.
constexpr double kMaxLoadFactor = 1048576;

// A replay's arrivals at another time scale: each arrival (read at the
// scenario's scale) times `factor`, rounded to the tick. Non-decreasing
// arrivals stay non-decreasing.
class ScaledSource final : public RequestSource {
 public:
  ScaledSource(std::unique_ptr<RequestSource> inner, double factor) : inner_(std::move(inner)), factor_(factor) {}
  std::uint64_t size() const override { return inner_->size(); }
  Tick last_arrival() const override { return scale(inner_->last_arrival()); }
  const Content& content() const override { return inner_->content(); }
  bool next(SourcedRequest& out) override {
    if (!inner_->next(out)) return false;
    out.arrival = scale(out.arrival);
    return true;
  }
  bool has_sessions() const override { return inner_->has_sessions(); }
  ReactiveSource* reactive() override { return inner_->reactive(); }
  SourceRecording recording() const override { return inner_->recording(); }

 private:
  Tick scale(Tick t) const { return static_cast<Tick>(std::llround(static_cast<double>(t) * factor_)); }
  std::unique_ptr<RequestSource> inner_;
  double factor_;
};

bool varies_workload(const LoadAxis& axis) { return axis.key.rfind("workload.", 0) == 0; }

// Bracket, then bisect, the boundary of `met` on an axis: below it the SLO
// holds when `good_low` (a load), above it otherwise (replicas). `lo`..`hi`
// is the range tried; `resolution` the relative closeness of a continuous
// axis' ends. `eval` runs one value; false from `go_on` stops (cancelled).
template <class Eval>
SearchOutcome bracket_search(double base, double lo, double hi, bool integer, double resolution, bool good_low,
                             const Eval& eval) {
  SearchOutcome out;
  const auto halve = [&](double x) { return std::max(lo, integer ? std::floor(x / 2) : x / 2); };
  const auto twice = [&](double x) { return std::min(hi, x * 2); };
  const auto toward_bad = [&](double x) { return good_low ? twice(x) : halve(x); };
  const auto toward_good = [&](double x) { return good_low ? halve(x) : twice(x); };
  const auto close = [&](double good, double bad) {
    const double a = std::min(good, bad), b = std::max(good, bad);
    return integer ? b - a <= 1 : b <= a * (1 + resolution);
  };
  const auto run = [&](double x, bool& cancelled) {
    std::optional<CapacityStep> step = eval(x);
    if (!step) {
      cancelled = true;
      return false;
    }
    out.steps.push_back(*step);
    return step->met;
  };
  bool cancelled = false;
  double good = 0, bad = 0;
  if (run(base, cancelled)) {
    good = base;
    while (true) {
      const double x = toward_bad(good);
      if (x == good) {  // the end of the range still meets the SLO
        out.found = true;
        out.limited = good_low;
        out.value = good;
        return out;
      }
      if (run(x, cancelled)) {
        good = x;
      } else {
        if (cancelled) return out;
        bad = x;
        break;
      }
    }
  } else {
    if (cancelled) return out;
    bad = base;
    // A load search tries the lowest load next: when even that fails (a
    // request alone on a replica misses the bound) no load meets the SLO,
    // found in one run rather than twenty halvings.
    if (good_low && lo < base) {
      if (!run(lo, cancelled)) return out;
      if (halve(base) == lo) {
        good = lo;
      }
    }
    while (good == 0) {
      const double x = toward_good(bad);
      if (x == bad) return out;  // not met anywhere in the range
      if (good_low && x == lo) {  // met there already (above)
        good = x;
        break;
      }
      if (run(x, cancelled)) {
        good = x;
        break;
      }
      if (cancelled) return out;
      bad = x;
    }
  }
  while (!close(good, bad)) {
    const double mid = integer ? std::floor((good + bad) / 2) : (good + bad) / 2;
    if (mid == good || mid == bad) break;  // no value left between them
    if (run(mid, cancelled)) good = mid;
    else if (cancelled) return out;
    else bad = mid;
  }
  out.found = true;
  out.value = good;
  return out;
}

Interval over_seeds(const std::vector<double>& values) {
  if (values.size() == 1) return Interval{values.front(), 0};
  return t_interval(values);
}

// One run_capacity_search call: the shared base workloads and the progress.
class Search {
 public:
  Search(const Scenario& scenario, const ReplayedTrace* replay, const CapacityProgress& progress)
      : scenario_(scenario), replay_(replay), progress_(progress) {
    std::vector<FieldError> errors;
    axis_ = load_axis(scenario, errors);
    seeds_ = replay != nullptr ? 1 : scenario.replicates;
    workloads_.resize(seeds_);
    remaining_.assign(seeds_, scenario.policies.size());
  }

  // Runs the searches `shard` selects; `done` marks those that finished.
  std::vector<SeedCapacity> run(unsigned jobs, const Shard& shard, std::vector<char>& done) {
    const std::size_t policies = scenario_.policies.size();
    std::vector<SeedCapacity> results(seeds_ * policies);
    done.assign(results.size(), 0);  // one byte a search: written by its own thread
    std::vector<std::size_t> selected;
    for (std::size_t t = 0; t < results.size(); ++t) {
      if (shard.selects(t)) selected.push_back(t);
      else release(t / policies);
    }
    selected_ = selected.size();
    // Seed after seed, so a seed's base workload is freed once its policies are done.
    parallel_for(selected.size(), jobs, [&](std::size_t k) {
      const std::size_t task = selected[k];
      const std::size_t r = task / policies, p = task % policies;
      if (!cancelled_.load()) {
        results[task] = search(p, r);
        done[task] = cancelled_.load() ? 0 : 1;
      }
      release(r);
      if (done[task] != 0) note(0, 1);
    });
    return results;
  }

  bool cancelled() const { return cancelled_.load(); }

 private:
  SeedCapacity search(std::size_t policy, std::size_t r) {
    SeedCapacity out;
    out.seed = scenario_.seed + r;
    const double base_load = axis_.base;
    const std::uint32_t base_replicas = scenario_.cluster.replicas;
    // The scenario's own run is the first step of both searches: run once.
    std::optional<CapacityStep> own;
    const auto at = [&](double load, std::uint32_t replicas) -> std::optional<CapacityStep> {
      if (load == base_load && replicas == base_replicas && own) return own;
      return evaluate(policy, r, load, replicas);
    };
    own = at(base_load, base_replicas);
    if (!own) return out;
    out.load = bracket_search(base_load, axis_.min, axis_.max, axis_.integer, scenario_.capacity.resolution, true,
                              [&](double load) {
                                std::optional<CapacityStep> step = at(load, base_replicas);
                                if (step) step->value = load;
                                return step;
                              });
    if (cancelled_.load()) return out;
    out.replicas = bracket_search(base_replicas, 1, std::max<double>(scenario_.capacity.max_replicas, 1), true, 0,
                                  false, [&](double replicas) {
                                    std::optional<CapacityStep> step =
                                        at(base_load, static_cast<std::uint32_t>(replicas));
                                    if (step) step->value = replicas;
                                    return step;
                                  });
    return out;
  }

  // One run; nullopt when cancelled.
  std::optional<CapacityStep> evaluate(std::size_t policy, std::size_t r, double load, std::uint32_t replicas) {
    if (cancelled_.load()) return std::nullopt;
    const Scenario step = capacity_step(scenario_, axis_, policy, r, load, replicas);
    CapacityStep result;
    result.value = load;
    if (!validate(step).empty()) {
      // A value the scenario cannot take (a limit that depends on it): as
      // if the SLO failed there.
      note(1, 0);
      return result;
    }
    std::unique_ptr<RequestTrace> own_workload;
    std::unique_ptr<RequestSource> source;
    if (replay_ != nullptr) {
      source = replay_->open();
      if (load != axis_.base) source = std::make_unique<ScaledSource>(std::move(source), axis_.base / load);
    } else if (varies_workload(axis_) && load != axis_.base) {
      own_workload = generate_synthetic(step.workload, step.seed, 1);
      source = std::make_unique<TraceSource>(*own_workload);
    } else {
      source = std::make_unique<TraceSource>(base_workload(r));
    }
    SloFigures figures;
    const PolicyOutcome outcome = engine::simulate_policy(
        step, 0, std::move(source), [&](std::uint64_t) { return !cancelled_.load(); }, false, kKeepResults, &figures);
    if (outcome.run.cancelled) return std::nullopt;
    result.met = outcome.summary.slo_met != 0;
    result.slo_attainment = outcome.summary.slo_attainment;
    result.goodput_per_s = outcome.summary.goodput_per_s;
    result.ttft_ms = figures.ttft_ms;
    result.tpot_ms = figures.tpot_ms;
    if (!note(1, 0)) return std::nullopt;
    return result;
  }

  // Seed r's workload at the scenario's own load, made by the first run to need it.
  const RequestTrace& base_workload(std::size_t r) {
    const std::lock_guard<std::mutex> lock(workload_mutex_);
    if (!workloads_[r]) {
      const Scenario seeded = replicate_scenario(scenario_, r);
      workloads_[r] = generate_synthetic(seeded.workload, seeded.seed, 1);
    }
    return *workloads_[r];
  }

  void release(std::size_t r) {
    const std::lock_guard<std::mutex> lock(workload_mutex_);
    if (--remaining_[r] == 0) workloads_[r].reset();
  }

  // Counts finished runs and searches and reports them; false once cancelled.
  bool note(std::size_t runs, std::size_t searches) {
    const std::lock_guard<std::mutex> lock(progress_mutex_);
    runs_ += runs;
    searches_ += searches;
    if (cancelled_.load()) return false;
    if (progress_ && !progress_(runs_, searches_, selected_)) cancelled_.store(true);
    return !cancelled_.load();
  }

  const Scenario& scenario_;
  const ReplayedTrace* replay_;
  const CapacityProgress& progress_;
  LoadAxis axis_;
  std::size_t seeds_ = 1;
  std::mutex workload_mutex_;
  std::vector<std::unique_ptr<RequestTrace>> workloads_;
  std::vector<std::size_t> remaining_;
  std::mutex progress_mutex_;
  std::size_t runs_ = 0, searches_ = 0, selected_ = 0;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

LoadAxis load_axis(const Scenario& s, std::vector<FieldError>& errors) {
  LoadAxis axis;
  const ClientKind kind = client_kind(s.client.kind);
  if (kind == ClientKind::Burst) {
    errors.push_back({"client.kind", "a burst client sends every request at t = 0: it has no load for a capacity "
                                     "search to vary (use poisson, constant or closed)"});
    return axis;
  }
  if (!s.client.stages.empty() || !s.client.warmup.empty()) {
    errors.push_back({"client.stages", "a capacity search varies one load: leave client.stages and client.warmup "
                                       "empty (it sets client.concurrency or client.rate_per_s itself)"});
    return axis;
  }
  double field_min = 1e-3, field_max = 1e7;
  if (kind == ClientKind::Closed) {
    axis = {"client.concurrency", "requests outstanding", static_cast<double>(s.client.concurrency), 1, 1e6, true};
    return axis;
  }
  if (s.client.rate_per_s > 0) {
    axis = {"client.rate_per_s", "requests/s", s.client.rate_per_s, 0, 0, false};
  } else if (s.replays_trace()) {
    axis = {"trace.time_scale", "x trace rate", 1 / s.trace.time_scale, 0, 0, false};
    field_min = 1e-6;
    field_max = 1e6;
  } else if (is_session_kind(s.workload.kind)) {
    axis = {"workload.session_rate_per_s", "sessions/s", s.workload.sessions.session_rate_per_s, 0, 0, false};
  } else {
    axis = {"workload.arrival_rate_per_s", "requests/s", s.workload.arrival_rate_per_s, 0, 0, false};
  }
  axis.min = std::max(field_min, axis.base / kMaxLoadFactor);
  axis.max = std::min(field_max, axis.base * kMaxLoadFactor);
  return axis;
}

std::vector<FieldError> check_capacity(const Scenario& scenario) {
  std::vector<FieldError> errors;
  if (!scenario.slo.any())
    errors.push_back({"slo.ttft_ms", "a capacity search needs an SLO: set slo.ttft_ms or slo.tpot_ms (> 0)"});
  load_axis(scenario, errors);
  return errors;
}

Scenario capacity_step(const Scenario& scenario, const LoadAxis& axis, std::size_t policy, std::size_t replicate,
                       double load, std::uint32_t replicas) {
  Scenario s = replicate_scenario(scenario, replicate);
  s.policies = {scenario.policies[policy]};
  // (The scenario's own load keeps its own value: 1 / (1 / x) may differ from x.)
  if (load != axis.base) {
    if (axis.key == "trace.time_scale") s.trace.time_scale = 1 / load;
    else set_number(s, axis.key, load);
  }
  s.cluster.replicas = replicas;
  return s;
}

std::size_t capacity_search_count(const Scenario& scenario) {
  return (scenario.replays_trace() ? 1 : scenario.replicates) * scenario.policies.size();
}

CapacityReport assemble_capacity(const Scenario& scenario, std::vector<SeedCapacity>&& searches) {
  std::vector<FieldError> errors;
  CapacityReport report;
  report.axis = load_axis(scenario, errors);
  report.base_replicas = scenario.cluster.replicas;
  const std::size_t policies = scenario.policies.size();
  const std::size_t seeds = policies == 0 ? 0 : searches.size() / policies;
  for (std::size_t p = 0; p < policies; ++p) {
    PolicyCapacity pc;
    pc.policy = scenario.policies[p];
    bool loads = true, replicas = true;
    std::vector<double> load_values, replica_values;
    for (std::size_t r = 0; r < seeds; ++r) {
      SeedCapacity& seed = searches[r * policies + p];
      loads = loads && seed.load.found;
      replicas = replicas && seed.replicas.found;
      load_values.push_back(seed.load.value);
      replica_values.push_back(seed.replicas.value);
      pc.seeds.push_back(std::move(seed));
    }
    if (loads && seeds > 0) pc.max_load = over_seeds(load_values);
    if (replicas && seeds > 0) pc.replicas = over_seeds(replica_values);
    report.policies.push_back(std::move(pc));
  }
  return report;
}

CapacityReport run_capacity_search(const Scenario& scenario, const ReplayedTrace* replay, unsigned jobs,
                                   const CapacityProgress& progress) {
  Search search(scenario, replay, progress);
  std::vector<char> done;
  std::vector<SeedCapacity> results = search.run(jobs, Shard{}, done);
  if (!search.cancelled()) return assemble_capacity(scenario, std::move(results));
  // Cancelled: the policies whose every seed finished, up to the first that did not.
  const std::size_t policies = scenario.policies.size();
  Scenario finished = scenario;
  finished.policies.clear();
  std::vector<SeedCapacity> kept;
  std::size_t p = 0;
  for (; p < policies; ++p) {
    bool complete = true;
    for (std::size_t t = p; t < done.size(); t += policies) complete = complete && done[t] != 0;
    if (!complete) break;
    finished.policies.push_back(scenario.policies[p]);
  }
  for (std::size_t t = 0; t < results.size(); ++t)
    if (t % policies < p) kept.push_back(std::move(results[t]));
  CapacityReport report = assemble_capacity(finished, std::move(kept));
  report.cancelled = true;
  return report;
}

CapacityShardReport run_capacity_shard(const Scenario& scenario, const Shard& shard, const ReplayedTrace* replay,
                                       unsigned jobs, const CapacityProgress& progress) {
  Search search(scenario, replay, progress);
  std::vector<char> done;
  std::vector<SeedCapacity> results = search.run(jobs, shard, done);
  CapacityShardReport report;
  report.shard = shard;
  report.total = results.size();
  report.cancelled = search.cancelled();
  for (std::size_t t = 0; t < results.size(); ++t)
    if (shard.selects(t)) report.searches.push_back({t, std::move(results[t])});
  return report;
}

}  // namespace prefixroute
