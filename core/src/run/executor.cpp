#include "run/executor.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>

#include "prefixroute/base/parallel.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/run/slo.h"
#include "prefixroute/sim/disaggregated_simulator.h"
#include "prefixroute/workload/client.h"
#include "prefixroute/workload/synthetic.h"

namespace prefixroute::engine {

void release_series(SimulationRun& run) {
  std::vector<Tick>().swap(run.ttft);
  std::vector<Tick>().swap(run.end_to_end);
  std::vector<std::uint32_t>().swap(run.replica_of);
  std::vector<std::uint32_t>().swap(run.cached_of);
  run.spilled_ttft.reset();
  run.spilled_end_to_end.reset();
  std::vector<std::uint32_t>().swap(run.in_flight_samples);
  std::vector<double>().swap(run.tpot_ns);
  std::vector<std::uint32_t>().swap(run.prompt_tokens_of);
  std::vector<std::uint32_t>().swap(run.output_tokens_of);
  std::vector<double>().swap(run.tpot_of);
  std::vector<double>().swap(run.kv_samples);
  std::vector<Tick>().swap(run.client.wait);
  std::vector<std::int16_t>().swap(run.client.stage_of);
}

void release_timeline(SimulationRun& run) {
  std::vector<std::uint32_t>().swap(run.batch_samples);
  std::vector<std::uint32_t>().swap(run.kv_block_samples);
}

namespace {

// One replicate's trace (for every point that generates the same workload),
// shared read-only by its runs: a generated workload made by the first run
// to need it (or ahead of time by a thread that would wait), hashed by its
// fingerprint task, and freed when its last selected run and that task are
// done, or the replayed trace, whose figures are known already and which
// each run opens for itself.
struct Slot {
  enum State : int { kEmpty, kPreparing, kReady, kReleased };
  std::mutex mutex;           // held while preparing; guards everything below but `state`
  std::atomic<int> state{kEmpty};
  bool prepared = false;      // requests and prompt_tokens are set (and `generated`, without a replay)
  bool fingerprint_skipped = false;  // its task found the work cancelled before the trace was made
  std::unique_ptr<RequestTrace> generated;
  std::uint64_t requests = 0, prompt_tokens = 0, fingerprint = 0;
  std::size_t remaining = 0;  // selected runs and the fingerprint task not yet finished
};

// A selected run: its point, its index within the point's run list, its slot.
struct Flat {
  std::size_t point, run, slot;
};

// A unit of work on the pool: a selected run, or a slot's fingerprint.
struct Task {
  std::size_t selected;  // index into the selected runs, or kFingerprintTask
  std::size_t slot;
};

constexpr std::size_t kComputed = static_cast<std::size_t>(-1);
constexpr std::size_t kFingerprintTask = static_cast<std::size_t>(-1);

// One execute() call. The constructor plans: which runs this shard selects,
// which workload slot each runs on, which bound runs copy an earlier run's
// record, and the task order. run() executes the tasks on the pool and
// finishes the records. Every task writes only its own record or slot, so
// task order and thread count never change a result.
class Executor {
 public:
  Executor(const std::vector<const Scenario*>& points, const ReplayedTrace* replay, const EngineOptions& options)
      : points_(points), replay_(replay), options_(options) {
    plan_slots();
    select_runs();
    share_bounds();
    plan_tasks();
  }

  EngineResult run() {
    parallel_for(tasks_.size(), options_.jobs, [&](std::size_t task) {
      if (tasks_[task].selected == kFingerprintTask) {
        fingerprint(tasks_[task].slot);
      } else {
        run_selected(selected_[tasks_[task].selected]);
      }
    });
    finish();
    result_.cancelled = cancelled_.load();
    return std::move(result_);
  }

 private:
  // One slot per (point, replicate), except that a replicate whose point
  // generates the same workload as the previous point's (the same workload
  // settings and seed: a sweep over a policy's, the cluster's or the
  // router's settings) shares that point's slot. Its workload is then made
  // and hashed once for all those points, and the records get the same
  // figures a workload of their own would have given them.
  void plan_slots() {
    slot_of_.resize(points_.size());
    for (std::size_t p = 0; p < points_.size(); ++p) {
      for (std::size_t r = 0; r < points_[p]->replicates; ++r) {
        // (Replicate r of either runs on its seed + r: equal seeds, equal replicate seeds.)
        const bool same_as_previous = replay_ == nullptr && p > 0 && r < points_[p - 1]->replicates &&
                                      points_[p]->seed == points_[p - 1]->seed &&
                                      points_[p]->workload == points_[p - 1]->workload;
        if (same_as_previous) {
          slot_of_[p].push_back(slot_of_[p - 1][r]);
          continue;
        }
        slot_of_[p].push_back(slot_point_.size());
        slot_point_.push_back(p);
        slot_replicate_.push_back(r);
      }
    }
    slots_ = std::vector<Slot>(slot_point_.size());
  }

  // The flat list: (point, run within the point), point after point; the
  // shard selects by index in it.
  void select_runs() {
    std::size_t flat = 0;
    result_.points.resize(points_.size());
    for (std::size_t p = 0; p < points_.size(); ++p) {
      const std::size_t n = run_count(*points_[p]);
      result_.points[p].resize(n);
      for (std::size_t i = 0; i < n; ++i, ++flat)
        if (options_.shard.selects(flat)) selected_.push_back({p, i, slot_of_[p][run_key(*points_[p], i).replicate]});
    }
  }

  // A bound depends only on its trace, and the pooled bound also on the
  // pooled cache's size and protection: a selected bound run whose slot and
  // settings an earlier selected run shares takes that run's record instead
  // of computing it again (a sweep over a policy's or the router's settings
  // computes each bound once). Only selected runs are sources, so a shard
  // computes what it reports.
  void share_bounds() {
    bound_source_.assign(selected_.size(), kComputed);
    // (slot, phase kind, pooled tokens, protect_after_hits) -> selected index
    std::map<std::tuple<std::size_t, bool, std::uint64_t, std::uint32_t>, std::size_t> first;
    for (std::size_t k = 0; k < selected_.size(); ++k) {
      const Scenario& scenario = *points_[selected_[k].point];
      const std::size_t phase = run_key(scenario, selected_[k].run).phase;
      if (phase < scenario.policies.size()) continue;
      const bool pooled = phase > scenario.policies.size();
      const auto key = pooled ? std::make_tuple(selected_[k].slot, true,
                                                std::uint64_t{scenario.cluster.cache_tokens} * scenario.cluster.replicas,
                                                scenario.cluster.protect_after_hits)
                              : std::make_tuple(selected_[k].slot, false, std::uint64_t{0}, std::uint32_t{0});
      const auto [at, added] = first.emplace(key, k);
      if (!added) bound_source_[k] = at->second;
    }
  }

  // The tasks: every selected run that computes, and for each generated
  // workload its fingerprint (FNV-1a over every prompt token: as much CPU as
  // several runs of a small scenario). The fingerprint is a task of its own,
  // right after the first run of its workload, so that with two or more jobs
  // it runs beside the policies instead of before them.
  void plan_tasks() {
    needed_.assign(slots_.size(), false);  // fixed before any thread starts
    for (std::size_t k = 0; k < selected_.size(); ++k) {
      if (bound_source_[k] != kComputed) continue;
      ++slots_[selected_[k].slot].remaining;
      needed_[selected_[k].slot] = true;
    }
    tasks_.reserve(selected_.size() + slots_.size());
    std::vector<bool> queued(slots_.size(), replay_ != nullptr);  // a replay's fingerprint is known: no task
    for (std::size_t k = 0; k < selected_.size(); ++k) {
      if (bound_source_[k] != kComputed) continue;
      const std::size_t t = selected_[k].slot;
      tasks_.push_back({k, t});
      if (!queued[t]) {
        queued[t] = true;
        ++slots_[t].remaining;
        tasks_.push_back({kFingerprintTask, t});
      }
    }
  }

  // Makes slot t's trace and its figures other than the fingerprint (a task
  // of its own); the caller holds t's mutex. Making a workload costs as much
  // as a run of a small scenario, so it must not stall the other threads
  // (see help_ahead).
  void prepare(std::size_t t) {
    Slot& s = slots_[t];
    s.state.store(Slot::kPreparing);
    if (replay_ != nullptr) {
      const ReplayFigures& figures = replay_->figures();
      s.requests = figures.requests;
      s.prompt_tokens = figures.prompt_tokens;
      s.fingerprint = figures.fingerprint;
    } else {
      const Scenario seeded = replicate_scenario(*points_[slot_point_[t]], slot_replicate_[t]);
      // On every job: the runs of this workload wait for it (another slot's
      // runs, if any, share the cores with these draws for a moment).
      s.generated = generate_synthetic(seeded.workload, seeded.seed, options_.jobs);
      s.requests = s.generated->size();
      s.prompt_tokens = s.generated->total_prompt_tokens();
      // The fingerprint task of this slot, unless it gave up (see there).
      if (s.fingerprint_skipped) s.fingerprint = s.generated->fingerprint();
    }
    s.prepared = true;
    s.state.store(Slot::kReady);
  }

  // A thread whose slot another thread is still preparing prepares the next
  // needed slot instead of waiting (at most `jobs` slots ahead, which bounds
  // the workloads alive at once to about twice the jobs).
  void help_ahead(std::size_t from) {
    const std::size_t ahead = std::max<std::size_t>(1, options_.jobs);
    for (std::size_t t = from + 1; t < slots_.size() && t <= from + ahead; ++t) {
      if (!needed_[t]) continue;
      int empty = Slot::kEmpty;
      if (!slots_[t].state.compare_exchange_strong(empty, Slot::kPreparing)) continue;
      const std::lock_guard<std::mutex> lock(slots_[t].mutex);
      // A run of t may have locked first and prepared it (or even finished).
      if (!slots_[t].prepared && slots_[t].remaining > 0) prepare(t);
      return;
    }
  }

  // Serialised progress; false (from the caller, now or earlier) cancels.
  bool report(std::size_t point, std::size_t run, std::uint64_t done, std::uint64_t total) {
    if (cancelled_.load()) return false;
    if (!options_.progress) return true;
    const std::lock_guard<std::mutex> lock(progress_mutex_);
    if (cancelled_.load()) return false;
    if (!options_.progress(point, run, done, total)) {
      cancelled_.store(true);
      return false;
    }
    return true;
  }

  // A task of slot t is done; the last frees its generated workload.
  void release(std::size_t t) {
    Slot& s = slots_[t];
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (--s.remaining == 0) {
      s.generated.reset();
      s.state.store(Slot::kReleased);
    }
  }

  void fingerprint(std::size_t t) {
    Slot& s = slots_[t];
    const RequestTrace* trace = nullptr;
    {
      const std::lock_guard<std::mutex> lock(s.mutex);
      if (!s.prepared && cancelled_.load()) {
        // Nothing to hash yet and nothing more to run; a run that still
        // makes the trace hashes it itself (prepare).
        s.fingerprint_skipped = true;
      } else {
        if (!s.prepared) prepare(t);
        trace = s.generated.get();  // alive until this task's release()
      }
    }
    if (trace != nullptr) {
      const std::uint64_t fingerprint = trace->fingerprint();  // outside the lock: the runs read the trace meanwhile
      const std::lock_guard<std::mutex> lock(s.mutex);
      s.fingerprint = fingerprint;
    }
    release(t);
  }

  void run_selected(const Flat& f) {
    if (cancelled_.load()) return release(f.slot);
    Slot& s = slots_[f.slot];
    const Scenario& scenario = *points_[f.point];
    const RunKey key = run_key(scenario, f.run);
    RunRecord& record = result_.points[f.point][f.run];
    if (options_.jobs > 1 && s.state.load() == Slot::kPreparing) help_ahead(f.slot);
    // This run's own reader of the trace: a generated workload (alive until
    // this run's release()) read in memory, or the replay opened afresh, so
    // runs on several threads never share a reader.
    std::unique_ptr<RequestSource> source;
    {
      const std::lock_guard<std::mutex> lock(s.mutex);
      if (!s.prepared) prepare(f.slot);
      record.has_workload = true;
      record.requests = s.requests;
      record.prompt_tokens = s.prompt_tokens;
      if (s.generated) source = std::make_unique<TraceSource>(*s.generated);
    }
    const std::size_t policies = scenario.policies.size();
    if (!report(f.point, f.run, 0, record.requests)) return release(f.slot);
    // (The ideal bound of a replay whose block ids described it needs none.)
    const bool ideal_known = replay_ != nullptr && key.phase == policies && replay_->figures().ideal.has_value();
    if (!source && !ideal_known) source = replay_->open();
    if (key.phase < policies) {
      if (!run_policy(f, key, std::move(source), record)) return release(f.slot);
    } else if (key.phase == policies) {
      record.bound = ideal(f.slot, std::move(source), record.prompt_tokens);
    } else {
      record.bound = single_cache_bound(*source, scenario.cluster.cache_tokens * scenario.cluster.replicas,
                                        scenario.cluster.protect_after_hits);
    }
    record.done = true;
    release(f.slot);
  }

  // A policy's run: one policy instance per router (a valid scenario names
  // known policies), simulated on `source` as the scenario's client sends
  // it (workload/client.h; the workload's own timing needs none). The cache
  // bounds read the workload itself: the client changes when requests are
  // sent, not which or in what order. False when cancelled.
  bool run_policy(const Flat& f, const RunKey& key, std::unique_ptr<RequestSource> source, RunRecord& record) {
    const Scenario& scenario = *points_[f.point];
    const Scenario seeded = replicate_scenario(scenario, key.replicate);
    ProgressCallback per_run;
    if (options_.progress)
      per_run = [&](std::uint64_t done) { return report(f.point, f.run, done, record.requests); };
    const bool first = key.replicate == 0;
    record.outcome = simulate_policy(seeded, key.phase, std::move(source), per_run, options_.timeline && first,
                                     options_.keep_series && first ? kKeepResults : options_.spill_results_above);
    if (record.outcome.run.cancelled) {
      record.outcome = PolicyOutcome{};
      return false;
    }
    if (!(options_.keep_series && first)) release_series(record.outcome.run);
    // The batched engine's timeline (kInFlightSamples per replica at most)
    // is replicate 0's in the results JSON, series kept or not (shards).
    if (!first) release_timeline(record.outcome.run);
    return true;
  }

  // The ideal bound of slot t's trace; `source` is this run's reader of it
  // (null for a replay whose block ids gave the bound as it was read).
  CacheBound ideal(std::size_t t, std::unique_ptr<RequestSource> source, std::uint64_t prompt_tokens) {
    if (replay_ != nullptr) {
      // A replay's block ids were tried as it was read: their bound, or
      // the radix cache where they did not describe the stream.
      const std::optional<CacheBound>& known = replay_->figures().ideal;
      return known ? *known : ideal_bound(*source, prompt_tokens);
    }
    // A first reader is already open; a second only if the block ids
    // cannot describe the stream (ideal_bound, cache_bounds.h).
    const auto open = [&]() -> std::unique_ptr<RequestSource> {
      if (source) return std::move(source);
      const std::lock_guard<std::mutex> lock(slots_[t].mutex);
      return std::make_unique<TraceSource>(*slots_[t].generated);
    };
    return ideal_bound(open, prompt_tokens);
  }

  // Every task is done: the shared bounds are copied, and each record that
  // reached its trace takes the trace's fingerprint (a task of its own for a
  // generated workload).
  void finish() {
    for (std::size_t k = 0; k < selected_.size(); ++k) {
      if (bound_source_[k] == kComputed) continue;
      const Flat& from = selected_[bound_source_[k]];
      const RunRecord& source = result_.points[from.point][from.run];
      RunRecord& record = result_.points[selected_[k].point][selected_[k].run];
      record.has_workload = source.has_workload;
      record.requests = source.requests;
      record.prompt_tokens = source.prompt_tokens;
      record.bound = source.bound;
      record.done = source.done;
    }
    for (const Flat& f : selected_) {
      RunRecord& record = result_.points[f.point][f.run];
      if (record.has_workload) record.fingerprint = slots_[f.slot].fingerprint;
    }
  }

  const std::vector<const Scenario*>& points_;
  const ReplayedTrace* replay_;
  const EngineOptions& options_;
  EngineResult result_;
  std::vector<std::vector<std::size_t>> slot_of_;  // per point, per replicate
  std::vector<std::size_t> slot_point_, slot_replicate_;
  std::vector<Slot> slots_;
  std::vector<bool> needed_;        // a slot some computing run reads
  std::vector<Flat> selected_;
  std::vector<std::size_t> bound_source_;  // per selected run: kComputed, or the run whose record it copies
  std::vector<Task> tasks_;
  std::atomic<bool> cancelled_{false};
  std::mutex progress_mutex_;
};

}  // namespace

PolicyOutcome simulate_policy(const Scenario& seeded, std::size_t policy, std::unique_ptr<RequestSource> source,
                              const ProgressCallback& progress, bool timeline, std::uint64_t spill_results_above,
                              SloFigures* slo) {
  ClientSource* client = nullptr;
  if (!seeded.client.is_workload_timing()) {
    auto wrapped = std::make_unique<ClientSource>(std::move(source), seeded.client, seeded.seed);
    client = wrapped.get();
    source = std::move(wrapped);
  }
  // SLO figures read every request's times (and TPOT): they stay in memory.
  // A run whose source records sizes for itself also reports its client's
  // stages; one that records them only for the SLO must not.
  const bool with_slo = seeded.slo.any();
  const bool own_sizes = source->recording().request_sizes;
  if (with_slo) source = record_request_sizes(std::move(source));
  // A disaggregated run's policy chooses among the prefill pool: it is
  // built for that pool's cluster (its replica count, cache and speed).
  const bool disaggregated = seeded.topology.disaggregated();
  const PoolClustersResult pools = disaggregated ? pool_clusters(seeded) : PoolClustersResult{};  // valid: checked
  PolicyContext context = policy_context(seeded);
  if (disaggregated) context.cluster = pools.pools.prefill;
  const auto instances = make_router_instances(seeded.policies[policy], seeded.policy_params, context);
  std::vector<RoutingPolicy*> routers;
  for (const auto& instance : instances) routers.push_back(instance.get());
  PolicyOutcome outcome;
  outcome.policy = seeded.policies[policy];
  if (disaggregated) {
    outcome.run = simulate_disaggregated(*source, pools.pools, seeded.topology, *routers.front(), seeded.seed,
                                         progress, 4096, seeded.router);
  } else {
    outcome.run = simulate(*source, seeded.cluster, std::span<RoutingPolicy* const>(routers), progress, 4096,
                           seeded.router, timeline, spill_results_above);
  }
  if (outcome.run.cancelled) return outcome;
  if (client != nullptr) outcome.run.client = client->record();
  outcome.summary = summarize(outcome.run);
  if (with_slo) {
    if (!own_sizes) outcome.summary.stages.clear();
    const SloFigures figures = apply_slo(seeded.slo, outcome.run, outcome.summary);
    if (slo != nullptr) *slo = figures;
  }
  return outcome;
}

EngineResult execute(const std::vector<const Scenario*>& points, const ReplayedTrace* replay,
                     const EngineOptions& options) {
  return Executor(points, replay, options).run();
}

ExperimentReport assemble(const Scenario& scenario, std::vector<RunRecord>&& records, bool cancelled) {
  ExperimentReport report;
  const std::size_t policies = scenario.policies.size();
  const std::size_t per_replicate = policies + 2;
  // Replicate 0's trace figures, from any of its runs that reached its trace.
  for (std::size_t i = 0; i < per_replicate && i < records.size(); ++i)
    if (records[i].has_workload) {
      report.requests = records[i].requests;
      report.prompt_tokens = records[i].prompt_tokens;
      report.fingerprint = records[i].fingerprint;
      break;
    }
  bool complete = !cancelled;
  for (const RunRecord& r : records) complete = complete && r.done;
  if (!complete) {
    report.cancelled = true;
    for (std::size_t p = 0; p < policies && records[p].done; ++p) report.outcomes.push_back(std::move(records[p].outcome));
    return report;
  }
  for (std::size_t p = 0; p < policies; ++p) report.outcomes.push_back(std::move(records[p].outcome));
  report.ideal = records[policies].bound;
  report.pooled = records[policies + 1].bound;
  if (scenario.replicates > 1) {
    report.seeds.resize(scenario.replicates);
    for (std::size_t r = 0; r < scenario.replicates; ++r) {
      SeedReport& seed = report.seeds[r];
      const std::size_t base = r * per_replicate;
      seed.seed = scenario.seed + r;
      seed.requests = records[base].requests;
      seed.prompt_tokens = records[base].prompt_tokens;
      seed.fingerprint = records[base].fingerprint;
      for (std::size_t p = 0; p < policies; ++p) {
        if (r == 0) {
          // Replicate 0's outcomes moved into report.outcomes: a copy without the series.
          PolicyOutcome copy;
          copy.policy = report.outcomes[p].policy;
          copy.summary = report.outcomes[p].summary;
          copy.run.replicas = report.outcomes[p].run.replicas;
          copy.run.decode = report.outcomes[p].run.decode;
          copy.run.batched = report.outcomes[p].run.batched;
          copy.run.in_flight_period = report.outcomes[p].run.in_flight_period;
          seed.outcomes.push_back(std::move(copy));
        } else {
          seed.outcomes.push_back(std::move(records[base + p].outcome));
        }
      }
      seed.ideal = records[base + policies].bound;
      seed.pooled = records[base + policies + 1].bound;
    }
  }
  return report;
}

}  // namespace prefixroute::engine
