#include "prefixroute/run/shard.h"

#include "run/executor.h"

namespace prefixroute {
namespace {

ShardReport collect(const std::vector<const Scenario*>& points, engine::EngineResult&& result, const Shard& shard) {
  ShardReport report;
  report.shard = shard;
  report.cancelled = result.cancelled;
  std::size_t flat = 0;
  for (std::size_t p = 0; p < points.size(); ++p) {
    std::vector<engine::RunRecord>& records = result.points[p];
    for (std::size_t i = 0; i < records.size(); ++i, ++flat) {
      if (!shard.selects(flat) || !records[i].done) continue;
      engine::RunRecord& r = records[i];
      ShardRun run;
      run.run = flat;
      run.point = p;
      run.key = run_key(*points[p], i);
      run.requests = r.requests;
      run.prompt_tokens = r.prompt_tokens;
      run.fingerprint = r.fingerprint;
      run.outcome = std::move(r.outcome);
      run.bound = r.bound;
      report.runs.push_back(std::move(run));
    }
  }
  report.total_runs = flat;
  return report;
}

}  // namespace

ShardReport run_experiment_shard(const Scenario& scenario, const Shard& shard, const ExperimentProgress& progress,
                                 const ReplayedTrace* replay, unsigned jobs, bool keep_series) {
  engine::EngineOptions options;
  options.jobs = jobs;
  options.shard = shard;
  options.keep_series = keep_series;
  options.timeline = keep_series;
  if (progress)
    options.progress = [&](std::size_t, std::size_t run, std::uint64_t done, std::uint64_t total) {
      return progress(run, done, total);
    };
  const std::vector<const Scenario*> points = {&scenario};
  return collect(points, engine::execute(points, replay, options), shard);
}

ShardReport run_sweep_shard(const SweepReport& plan, const Shard& shard, const SweepProgress& progress, unsigned jobs,
                            const ReplayedTrace* replay) {
  std::vector<const Scenario*> points;
  for (const SweepPoint& p : plan.points) points.push_back(&p.scenario);
  engine::EngineOptions options;
  options.jobs = jobs;
  options.shard = shard;
  if (progress) options.progress = progress;
  return collect(points, engine::execute(points, replay, options), shard);
}

}  // namespace prefixroute
