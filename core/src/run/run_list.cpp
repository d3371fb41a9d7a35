#include "prefixroute/run/run_list.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/parallel.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/workload/synthetic.h"
#include "run/executor.h"

namespace prefixroute {

bool parse_shard(std::string_view text, Shard& out, std::string& error) {
  const auto fail = [&] {
    error = "expected K/N with 1 <= K <= N <= " + std::to_string(kMaxShards) + " (e.g. 2/3: the second of three "
            "shards); got \"" + std::string(text.substr(0, 40)) + "\"";
    return false;
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return fail();
  const auto read = [](std::string_view digits, std::size_t& value) {
    if (digits.empty() || digits.size() > 6) return false;
    value = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') return false;
      value = value * 10 + static_cast<std::size_t>(c - '0');
    }
    return true;
  };
  Shard s;
  if (!read(text.substr(0, slash), s.index) || !read(text.substr(slash + 1), s.count)) return fail();
  if (s.index < 1 || s.count < 1 || s.index > s.count || s.count > kMaxShards) return fail();
  out = s;
  return true;
}

std::size_t run_count(const Scenario& scenario) {
  return static_cast<std::size_t>(scenario.replicates) * (scenario.policies.size() + 2);
}

RunKey run_key(const Scenario& scenario, std::size_t index) {
  const std::size_t per_replicate = scenario.policies.size() + 2;
  return RunKey{index / per_replicate, index % per_replicate};
}

Scenario replicate_scenario(const Scenario& scenario, std::size_t r) {
  Scenario s = scenario;
  s.seed += r;
  s.replicates = 1;
  return s;
}

namespace engine {

void release_series(SimulationRun& run) {
  std::vector<Tick>().swap(run.ttft);
  std::vector<Tick>().swap(run.end_to_end);
  std::vector<std::uint32_t>().swap(run.replica_of);
  std::vector<std::uint32_t>().swap(run.cached_of);
  run.spilled_ttft.reset();
  run.spilled_end_to_end.reset();
  std::vector<std::uint32_t>().swap(run.in_flight_samples);
  std::vector<double>().swap(run.tpot_ns);
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

}  // namespace

EngineResult execute(const std::vector<const Scenario*>& points, const ReplayedTrace* replay,
                     const EngineOptions& options) {
  EngineResult result;
  // The flat list: (point, run within the point), point after point.
  struct Flat {
    std::size_t point, run, slot;
  };
  std::vector<Flat> selected;
  // One slot per (point, replicate), except that a replicate whose point
  // generates the same workload as the previous point's (the same workload
  // settings and seed: a sweep over a policy's, the cluster's or the
  // router's settings) shares that point's slot. Its workload is then made
  // and hashed once for all those points, and the records get the same
  // figures a workload of their own would have given them.
  std::vector<std::vector<std::size_t>> slot_of(points.size());
  std::vector<std::size_t> slot_point, slot_replicate;
  for (std::size_t p = 0; p < points.size(); ++p) {
    for (std::size_t r = 0; r < points[p]->replicates; ++r) {
      // (Replicate r of either runs on its seed + r: equal seeds, equal replicate seeds.)
      const bool same_as_previous = replay == nullptr && p > 0 && r < points[p - 1]->replicates &&
                                    points[p]->seed == points[p - 1]->seed &&
                                    points[p]->workload == points[p - 1]->workload;
      if (same_as_previous) {
        slot_of[p].push_back(slot_of[p - 1][r]);
        continue;
      }
      slot_of[p].push_back(slot_point.size());
      slot_point.push_back(p);
      slot_replicate.push_back(r);
    }
  }
  const std::size_t slots = slot_point.size();
  std::size_t flat = 0;
  result.points.resize(points.size());
  for (std::size_t p = 0; p < points.size(); ++p) {
    const std::size_t n = run_count(*points[p]);
    result.points[p].resize(n);
    for (std::size_t i = 0; i < n; ++i, ++flat)
      if (options.shard.selects(flat)) selected.push_back({p, i, slot_of[p][run_key(*points[p], i).replicate]});
  }
  // A bound depends only on its trace, and the pooled bound also on the
  // pooled cache's size and protection: a selected bound run whose slot and
  // settings an earlier selected run shares takes that run's record instead
  // of computing it again (a sweep over a policy's or the router's settings
  // computes each bound once). Only selected runs are sources, so a shard
  // computes what it reports.
  constexpr std::size_t kComputed = static_cast<std::size_t>(-1);
  std::vector<std::size_t> bound_source(selected.size(), kComputed);
  {
    // (slot, phase kind, pooled tokens, protect_after_hits) -> selected index
    std::map<std::tuple<std::size_t, bool, std::uint64_t, std::uint32_t>, std::size_t> first;
    for (std::size_t k = 0; k < selected.size(); ++k) {
      const Scenario& scenario = *points[selected[k].point];
      const std::size_t phase = run_key(scenario, selected[k].run).phase;
      if (phase < scenario.policies.size()) continue;
      const bool pooled = phase > scenario.policies.size();
      const auto key = pooled ? std::make_tuple(selected[k].slot, true,
                                                std::uint64_t{scenario.cluster.cache_tokens} * scenario.cluster.replicas,
                                                scenario.cluster.protect_after_hits)
                              : std::make_tuple(selected[k].slot, false, std::uint64_t{0}, std::uint32_t{0});
      const auto [at, added] = first.emplace(key, k);
      if (!added) bound_source[k] = at->second;
    }
  }
  std::vector<Slot> slot(slots);
  std::vector<bool> needed(slots, false);  // fixed before any thread starts
  for (std::size_t k = 0; k < selected.size(); ++k) {
    if (bound_source[k] != kComputed) continue;
    ++slot[selected[k].slot].remaining;
    needed[selected[k].slot] = true;
  }
  // The tasks: every selected run, and for each generated workload its
  // fingerprint (FNV-1a over every prompt token: as much CPU as several runs
  // of a small scenario). The fingerprint is a task of its own, right after
  // the first run of its workload, so that with two or more jobs it runs
  // beside the policies instead of before them. Task order never changes
  // results: each writes only its own record or slot.
  constexpr std::size_t kFingerprintTask = static_cast<std::size_t>(-1);
  struct Task {
    std::size_t selected;  // index into `selected`, or kFingerprintTask
    std::size_t slot;
  };
  std::vector<Task> tasks;
  tasks.reserve(selected.size() + slots);
  {
    std::vector<bool> queued(slots, replay != nullptr);  // a replay's fingerprint is known: no task
    for (std::size_t k = 0; k < selected.size(); ++k) {
      if (bound_source[k] != kComputed) continue;
      const std::size_t t = selected[k].slot;
      tasks.push_back({k, t});
      if (!queued[t]) {
        queued[t] = true;
        ++slot[t].remaining;
        tasks.push_back({kFingerprintTask, t});
      }
    }
  }
  // Makes slot t's trace and its figures other than the fingerprint (a task
  // of its own); the caller holds t's mutex. Making a workload costs as much
  // as a run of a small scenario, so it must not stall the other threads
  // (see help_ahead).
  const auto prepare = [&](std::size_t t) {
    Slot& s = slot[t];
    s.state.store(Slot::kPreparing);
    if (replay != nullptr) {
      const ReplayFigures& figures = replay->figures();
      s.requests = figures.requests;
      s.prompt_tokens = figures.prompt_tokens;
      s.fingerprint = figures.fingerprint;
    } else {
      const Scenario seeded = replicate_scenario(*points[slot_point[t]], slot_replicate[t]);
      // On every job: the runs of this workload wait for it (another slot's
      // runs, if any, share the cores with these draws for a moment).
      s.generated = generate_synthetic(seeded.workload, seeded.seed, options.jobs);
      s.requests = s.generated->size();
      s.prompt_tokens = s.generated->total_prompt_tokens();
      // The fingerprint task of this slot, unless it gave up (see there).
      if (s.fingerprint_skipped) {
        s.fingerprint = s.generated->fingerprint();
      }
    }
    s.prepared = true;
    s.state.store(Slot::kReady);
  };
  // A thread whose slot another thread is still preparing prepares the next
  // needed slot instead of waiting (at most `jobs` slots ahead, which bounds
  // the workloads alive at once to about twice the jobs).
  const std::size_t ahead = std::max<std::size_t>(1, options.jobs);
  const auto help_ahead = [&](std::size_t from) {
    for (std::size_t t = from + 1; t < slots && t <= from + ahead; ++t) {
      if (!needed[t]) continue;
      int empty = Slot::kEmpty;
      if (!slot[t].state.compare_exchange_strong(empty, Slot::kPreparing)) continue;
      const std::lock_guard<std::mutex> lock(slot[t].mutex);
      // A run of t may have locked first and prepared it (or even finished).
      if (!slot[t].prepared && slot[t].remaining > 0) prepare(t);
      return;
    }
  };

  std::atomic<bool> cancelled{false};
  std::mutex progress_mutex;
  // Serialised progress; false (from the caller, now or earlier) cancels.
  const auto report = [&](std::size_t point, std::size_t run, std::uint64_t done, std::uint64_t total) {
    if (cancelled.load()) return false;
    if (!options.progress) return true;
    const std::lock_guard<std::mutex> lock(progress_mutex);
    if (cancelled.load()) return false;
    if (!options.progress(point, run, done, total)) {
      cancelled.store(true);
      return false;
    }
    return true;
  };

  parallel_for(tasks.size(), options.jobs, [&](std::size_t task) {
    Slot& s = slot[tasks[task].slot];
    const auto release = [&] {
      const std::lock_guard<std::mutex> lock(s.mutex);
      if (--s.remaining == 0) {
        s.generated.reset();
        s.state.store(Slot::kReleased);
      }
    };
    if (tasks[task].selected == kFingerprintTask) {
      const RequestTrace* trace = nullptr;
      {
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.prepared && cancelled.load()) {
          // Nothing to hash yet and nothing more to run; a run that still
          // makes the trace hashes it itself (prepare).
          s.fingerprint_skipped = true;
        } else {
          if (!s.prepared) prepare(tasks[task].slot);
          trace = s.generated.get();  // alive until this task's release()
        }
      }
      if (trace != nullptr) {
        const std::uint64_t fingerprint = trace->fingerprint();  // outside the lock: the runs read the trace meanwhile
        const std::lock_guard<std::mutex> lock(s.mutex);
        s.fingerprint = fingerprint;
      }
      return release();
    }
    const Flat& f = selected[tasks[task].selected];
    if (cancelled.load()) return release();
    const Scenario& scenario = *points[f.point];
    const RunKey key = run_key(scenario, f.run);
    const Scenario seeded = replicate_scenario(scenario, key.replicate);
    RunRecord& record = result.points[f.point][f.run];
    if (options.jobs > 1 && s.state.load() == Slot::kPreparing) help_ahead(f.slot);
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
    if (!report(f.point, f.run, 0, record.requests)) return release();
    // (The ideal bound of a replay whose block ids described it needs none.)
    const bool ideal_known = replay != nullptr && key.phase == policies && replay->figures().ideal.has_value();
    if (!source && !ideal_known) source = replay->open();
    if (key.phase < policies) {
      // One policy per router instance; a valid scenario names known policies.
      const auto instances = make_router_instances(scenario.policies[key.phase], seeded.policy_params, policy_context(seeded));
      std::vector<RoutingPolicy*> routers;
      for (const auto& instance : instances) routers.push_back(instance.get());
      ProgressCallback per_run;
      if (options.progress)
        per_run = [&](std::uint64_t done) { return report(f.point, f.run, done, record.requests); };
      record.outcome.policy = scenario.policies[key.phase];
      record.outcome.run = simulate(*source, scenario.cluster, std::span<RoutingPolicy* const>(routers), per_run, 4096,
                                    scenario.router,
                                    options.timeline && key.replicate == 0,
                                    options.keep_series && key.replicate == 0 ? kKeepResults
                                                                              : options.spill_results_above);
      if (record.outcome.run.cancelled) {
        record.outcome = PolicyOutcome{};
        return release();
      }
      record.outcome.summary = summarize(record.outcome.run);
      if (!(options.keep_series && key.replicate == 0)) release_series(record.outcome.run);
      // The batched engine's timeline (kInFlightSamples per replica at most)
      // is replicate 0's in the results JSON, series kept or not (shards).
      if (key.replicate != 0) release_timeline(record.outcome.run);
    } else if (key.phase == policies) {
      if (replay != nullptr) {
        // A replay's block ids were tried as it was read: their bound, or
        // the radix cache where they did not describe the stream.
        const std::optional<CacheBound>& ideal = replay->figures().ideal;
        record.bound = ideal ? *ideal : ideal_bound(*source, record.prompt_tokens);
      } else {
        // A first reader is already open; a second only if the block ids
        // cannot describe the stream (ideal_bound, cache_bounds.h).
        const auto open = [&]() -> std::unique_ptr<RequestSource> {
          if (source) return std::move(source);
          const std::lock_guard<std::mutex> lock(s.mutex);
          return std::make_unique<TraceSource>(*s.generated);
        };
        record.bound = ideal_bound(open, record.prompt_tokens);
      }
    } else {
      record.bound = single_cache_bound(*source, scenario.cluster.cache_tokens * scenario.cluster.replicas,
                                        scenario.cluster.protect_after_hits);
    }
    record.done = true;
    release();
  });
  // Every task is done: the shared bounds are copied, and each record that
  // reached its trace takes the trace's fingerprint (a task of its own for a
  // generated workload).
  for (std::size_t k = 0; k < selected.size(); ++k) {
    if (bound_source[k] == kComputed) continue;
    const Flat& from = selected[bound_source[k]];
    const RunRecord& source = result.points[from.point][from.run];
    RunRecord& record = result.points[selected[k].point][selected[k].run];
    record.has_workload = source.has_workload;
    record.requests = source.requests;
    record.prompt_tokens = source.prompt_tokens;
    record.bound = source.bound;
    record.done = source.done;
  }
  for (const Flat& f : selected) {
    RunRecord& record = result.points[f.point][f.run];
    if (record.has_workload) record.fingerprint = slot[f.slot].fingerprint;
  }
  result.cancelled = cancelled.load();
  return result;
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

}  // namespace engine
}  // namespace prefixroute
