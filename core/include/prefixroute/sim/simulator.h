// The discrete-event simulator: one policy, one cluster, one trace.
//
// Requests are processed in arrival order (the trace is sorted; equal arrival
// times keep trace order). Between arrivals the simulator processes, in time
// order, the events that change what a router can see: the engine's events
// (first tokens, completions, steps: sim/engine.h), engine-metric scrapes,
// and the arrival of lagged KV events at the router's precise cache view.
// Events at the same time go in the order: the engine's (fifo: a request's
// first token, then its completion, then the next admitted request's), KV
// events, then the scrape, then arrivals, then the engine's events that come
// after arrivals (the batched engine forming its next step).
//
// At each arrival the policy sees the replicas as of that instant and picks
// one; the chosen replica's engine admits the request. Under the fifo engine
// (the default) the replica matches and inserts the prompt at admission and
// queues its prefill behind earlier work; because each replica's prefill
// queue serves in admission order, the cache state at admission equals the
// state its predecessors leave behind:
//
//   TTFT = queue wait + uncached tokens / prefill rate
//   end-to-end = TTFT + output tokens x time per output token (decode on)
//
// Router queue and router instances. A policy with a router queue
// (RoutingPolicy::router_queue(); dynamo_kv.router_queue) may hold an
// arriving request at the router; it is routed later, at the time one of its
// router's first tokens or completions lets the policy release it
// (sim/router_queue.h), and its TTFT and end-to-end times still count from
// its arrival, so the time held counts. With several router instances
// (router.instances; sim/router_instances.h) request i is routed by instance
// i mod N, each instance a policy object of its own with its own in-flight
// counts and queue.
//
// With decode off (the baseline model) a request completes at its first token
// and pins nothing, and the baseline policies' results are exactly those of a
// one-pass model that admits each request in arrival order. The batched
// engine (sim/batched_engine.h) instead schedules steps of batched work.
//
// Cost: O(N * (policy cost + L log F + log R)) for N requests of L tokens on R
// replicas plus the engine's events (fifo: O(log R) each, O(log D) per
// completion with D requests decoding; batched: O(running) per step), plus
// one pass over the replicas per scrape period that contains an event, up to
// the first scrape after the last arrival (later ones could change nothing:
// no policy reads them and usage only falls; see ReplicaTotals::peak_kv_usage).
// With N > 1 router instances, O(R) more per request (RouterInstances::enter);
// a router queue adds O(log H) per held request for H held.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "prefixroute/cluster/cluster_config.h"
#include "prefixroute/sim/engine.h"
#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/sim/pool_totals.h"
#include "prefixroute/sim/session_tally.h"
#include "prefixroute/sim/tick_spill.h"
#include "prefixroute/sim/timeline.h"
#include "prefixroute/workload/client.h"
#include "prefixroute/workload/request_source.h"
#include "prefixroute/workload/request_trace.h"
#include "prefixroute/policies/routing_policy.h"
#include "prefixroute/base/time.h"

namespace prefixroute {

/// Per-replica totals of one run.
struct ReplicaTotals {
  std::uint64_t requests = 0;
  std::uint64_t prefill_tokens = 0;
  std::uint64_t cached_tokens = 0;
  Tick busy_ticks = 0;
  std::uint32_t peak_in_flight = 0;  ///< most requests dispatched and not completed at once
  /// Highest scraped cache usage (used / capacity). Scrapes stop after the
  /// first one past the last arrival (and past the last release from a
  /// router queue): from then on caches only unpin and release, so usage
  /// cannot rise again. (Batched engine: the highest KV
  /// held by running requests / capacity, at any step, not only at scrapes.)
  double peak_kv_usage = 0;
  // The batched engine's step totals (0 under fifo).
  std::uint64_t steps = 0;
  double mean_batch = 0;              ///< sequences per step, weighted by step time
  std::uint32_t peak_batch = 0;       ///< most sequences in one step
  std::uint64_t peak_held_tokens = 0; ///< most KV held by running requests
  std::uint64_t preemptions = 0;      ///< requests preempted (recompute)
  std::uint64_t recomputed_tokens = 0;
  std::uint64_t output_tokens = 0;    ///< tokens generated, first tokens included
  std::uint64_t overcommits = 0;      ///< steps where a lone request held more than the capacity
};

/// Everything one run produced, per request (arrival order) and per replica.
/// Memory: kBytesPerRequest per request (plus kBatchedBytesPerRequest under
/// the batched engine) plus the samples.
struct SimulationRun {
  static constexpr double kBytesPerRequest = 2 * sizeof(Tick) + 2 * sizeof(std::uint32_t);
  static constexpr double kBatchedBytesPerRequest = sizeof(double);

  std::vector<Tick> ttft;                 ///< per request
  std::vector<Tick> end_to_end;           ///< per request: completion - arrival
  std::vector<std::uint32_t> replica_of;  ///< per request: where it was served
  std::vector<std::uint32_t> cached_of;   ///< per request: cached prompt tokens
  std::vector<ReplicaTotals> replicas;
  /// Router's in-flight count per replica, sampled every in_flight_period
  /// ticks from 0: in_flight_samples[sample * replicas + replica].
  std::vector<std::uint32_t> in_flight_samples;
  Tick in_flight_period = 0;
  /// Batched engine, at the same samples: sequences running and KV held (in
  /// blocks of cluster.kv_block_tokens) per replica.
  std::vector<std::uint32_t> batch_samples;
  std::vector<std::uint32_t> kv_block_samples;
  /// The policy's own prediction of cached tokens, summed over the requests
  /// it predicted for (-1 predictions excluded), and those requests' prompt tokens.
  std::uint64_t predicted_cached_tokens = 0;
  std::uint64_t predicted_actual_cached_tokens = 0;
  std::uint64_t predicted_prompt_tokens = 0;
  bool decode = false;   ///< whether decode was modelled
  bool batched = false;  ///< the batched engine ran
  /// Batched engine: time per output token after the first, in ns, of every
  /// request that generated more than one token (completion order).
  std::vector<double> tpot_ns;
  Tick first_arrival = 0;
  Tick last_completion = 0;
  bool cancelled = false;
  /// Per-session figures (tallied when the source has sessions).
  SessionFigures sessions;
  /// The run over time (sim/timeline.h); windows == 0 unless simulate() was
  /// asked to record it.
  Timeline timeline;
  /// A run spilled (simulate's spill_results_above): the TTFT and end-to-end
  /// times, in completion order, are here and ttft, end_to_end, replica_of
  /// and cached_of stay empty; summarize() reads them (tick_spill.h).
  std::shared_ptr<const TickSpill> spilled_ttft;
  std::shared_ptr<const TickSpill> spilled_end_to_end;
  /// Per request, when the source asks (SourceRecording::request_sizes): its
  /// prompt and output tokens, and its TPOT in ns (batched engine, -1 when it
  /// generated at most one token).
  std::vector<std::uint32_t> prompt_tokens_of;
  std::vector<std::uint32_t> output_tokens_of;
  std::vector<double> tpot_of;
  /// KV use of every replica (held / capacity), every kv_sample_period from
  /// 0 until the last send, when the source asks: kv_samples[sample x replicas + r].
  /// The period doubles (every other sample kept) whenever kKvSamples fill.
  std::vector<double> kv_samples;
  Tick kv_sample_period = 0;
  /// What the benchmark client did (workload/client.h), when the run had one
  /// that records: set by whoever ran it (the run list), not by simulate().
  ClientRecord client;
  /// A disaggregated run's pools, prefill then decode (empty when aggregated).
  std::vector<PoolTotals> pools;
};

/// simulate()'s spill_results_above when every result stays in memory.
inline constexpr std::uint64_t kKeepResults = std::numeric_limits<std::uint64_t>::max();

/// Called every `progress_every` requests with the number done so far;
/// returning false cancels the run (the result has cancelled = true).
using ProgressCallback = std::function<bool(std::uint64_t done)>;

/// Number of in-flight samples a run takes over its arrival span.
inline constexpr std::uint32_t kInFlightSamples = 256;

/// Most KV-use samples a run keeps per replica (SimulationRun::kv_samples).
inline constexpr std::size_t kKvSamples = 4096;

/// Runs `policy` on the requests of `source`, read once front to back.
/// `record_timeline`: also fill SimulationRun::timeline (timeline.h), at
/// 18 bytes per request and O(windows x replicas) more.
SimulationRun simulate(RequestSource& source, const ClusterConfig& cluster, RoutingPolicy& policy,
                       const ProgressCallback& progress = {}, std::uint64_t progress_every = 4096,
                       const RouterConfig& router = {}, bool record_timeline = false);

/// As above, with one router instance per policy of `routers` (at least one,
/// all of the same policy): request i is routed by routers[i mod size].
/// (router.instances is read from `routers`' size, not from `router`.)
/// A source of more than `spill_results_above` requests keeps its TTFT and
/// end-to-end times in TickSpills (SimulationRun::spilled_ttft), not per
/// request, when nothing needs them per request: the fifo engine, no
/// sessions, no timeline (the batched engine's TPOT mean sums the sorted
/// values, and sessions and the timeline read results by request).
SimulationRun simulate(RequestSource& source, const ClusterConfig& cluster, std::span<RoutingPolicy* const> routers,
                       const ProgressCallback& progress = {}, std::uint64_t progress_every = 4096,
                       const RouterConfig& router = {}, bool record_timeline = false,
                       std::uint64_t spill_results_above = kKeepResults);

/// simulate() on the requests of `trace`, in order.
SimulationRun simulate(const RequestTrace& trace, const ClusterConfig& cluster,
                       RoutingPolicy& policy, const ProgressCallback& progress = {},
                       std::uint64_t progress_every = 4096, const RouterConfig& router = {},
                       bool record_timeline = false);

}  // namespace prefixroute
