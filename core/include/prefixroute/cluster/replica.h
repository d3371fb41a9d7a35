// Replica: one serving engine, and what a router can know about it.
//
// Engine truth. A prefix cache and a single FIFO prefill queue, represented by
// the time its queued work drains (busy_until): a request admitted at `now`
// starts at max(now, busy_until) and occupies the queue for its prefill time.
// Requests are admitted in arrival order, so the cache is matched and updated
// at admission; with one FIFO queue this is the state its predecessors leave
// behind. With decode on, a request then decodes for output x TPOT without
// blocking the prefill queue, and its prompt path stays pinned (and its output
// tokens reserved) in the cache until it completes.
//
// Router's view. What real routers see is not the engine's state but signals:
// a router-local in-flight counter (dispatched, not completed), engine metrics
// scraped periodically (stale between scrapes), and a "precise" view of the
// cache that may lag the engine's (KV events travel with a delay). The
// simulator maintains these; policies read them through the accessors below.
//
// Invariants: busy_until never decreases; counters only grow; in_flight equals
// dispatched minus completed (by the router instance routing now).
// Cost: admit() is one cache insert; the accessors are O(1).
#pragma once

#include <cstdint>
#include <memory>

#include "prefixroute/cluster/prefill_model.h"
#include "prefixroute/cluster/step_model.h"
#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/base/ring_queue.h"
#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"

namespace prefixroute {

/// Engine metrics as last scraped by the router.
struct EngineMetrics {
  Tick scraped_at = -1;           ///< -1 before the first scrape
  std::uint32_t queue_length = 0; ///< admitted, prefill not started
  std::uint32_t running = 0;      ///< in prefill or decoding
  double kv_usage = 0;            ///< cache used() / capacity (may exceed 1 when pins overcommit)
};

class Replica {
 public:
  /// What happened to one admitted request.
  struct Admission {
    std::uint64_t cached_tokens = 0;
    std::uint64_t prefill_tokens = 0;
    Tick start = 0;         ///< prefill starts (after the queue ahead drains)
    Tick first_token = 0;   ///< prefill ends: the first output token
    Tick completion = 0;    ///< decoding ends (== first_token when decode is off)
    RadixCache::PathHandle path = 0;  ///< pinned until completion when decode is on

    /// Whether it decodes after its first token (and so pins its path).
    bool decodes() const { return completion > first_token; }
  };

  explicit Replica(RadixCache cache) : cache_(std::move(cache)) {}

  // ---- engine truth ----
  RadixCache& cache() { return cache_; }
  const RadixCache& cache() const { return cache_; }

  /// Time at which all admitted prefill work is done.
  Tick busy_until() const { return busy_until_; }

  /// Outstanding prefill work a request arriving at `now` would wait behind.
  Tick projected_wait(Tick now) const { return busy_until_ > now ? busy_until_ - now : 0; }

  /// Queues a request arriving at `now`: matches and inserts its prompt, charges
  /// prefill for the uncached tokens only. No decode: completes at first token.
  Admission admit(const Prompt& prompt, Tick now, const PrefillModel& prefill);
  /// admit() of tokens (a cache built without a content: see RadixCache).
  Admission admit(TokenSpan tokens, Tick now, const PrefillModel& prefill);

  /// As admit(), then decodes `output_tokens` at `tick_per_output_token`; when
  /// that is > 0 the prompt path is pinned and the outputs reserved until
  /// complete() is called with the returned admission.
  /// `known_cached` as RadixCache::insert's: a cached-prefix length the
  /// caller has just matched against this replica's cache (0: none known).
  Admission admit_with_decode(const Prompt& prompt, Tick now, const PrefillModel& prefill,
                              std::uint64_t output_tokens, Tick tick_per_output_token,
                              std::size_t known_cached = 0);
  /// As above, the prefill timed by a step model (prefill_ticks(uncached, cached)).
  Admission admit_with_decode(const Prompt& prompt, Tick now, const StepModel& step, std::uint64_t output_tokens,
                              Tick tick_per_output_token, std::size_t known_cached = 0);

  /// Ends a decoding request: unpins its path and releases its outputs.
  void complete(const Admission& admission, std::uint64_t output_tokens);

  std::uint64_t requests() const { return requests_; }
  std::uint64_t prefill_tokens() const { return prefill_tokens_; }
  std::uint64_t cached_tokens() const { return cached_tokens_; }
  /// Sum of prefill times (fifo) or step times (batched): how long this
  /// replica's engine was busy.
  Tick busy_ticks() const { return busy_ticks_; }

  // ---- what an engine other than the built-in FIFO queue updates ----
  /// Sets the engine's estimate of when its admitted prefill work drains.
  void set_busy_until(Tick t) { busy_until_ = t; }
  /// Counts a request matched against the cache for the first time.
  void count_admission(std::uint64_t cached_tokens, std::uint64_t prefill_tokens) {
    ++requests_;
    cached_tokens_ += cached_tokens;
    prefill_tokens_ += prefill_tokens;
  }
  void add_busy(Tick ticks) { busy_ticks_ += ticks; }
  /// Sets the router's sample of the engine metrics (an engine's own scrape).
  void set_scraped(const EngineMetrics& metrics) { scraped_ = metrics; }

  // ---- the router's view (maintained by the simulator) ----
  /// Requests dispatched here and not yet completed, counted by the router
  /// (with several router instances: by the instance routing now; see
  /// sim/router_instances.h).
  std::uint32_t in_flight() const { return in_flight_; }
  /// Engine metrics as of the last scrape.
  const EngineMetrics& scraped() const { return scraped_; }
  /// The cache as the router's KV-event stream shows it: the engine's cache
  /// itself, or a mirror that lags it when the scenario sets an event lag.
  const RadixCache& precise_view() const { return lagged_ ? *lagged_ : cache_; }

  void router_dispatched() { ++in_flight_; }
  void router_completed() { --in_flight_; }
  /// Shows another router instance's count (RouterInstances::enter).
  void set_router_in_flight(std::uint32_t count) { in_flight_ = count; }
  /// Samples the engine's metrics at `now` (queue and running from admission
  /// times, usage from the cache).
  void scrape(Tick now, std::uint32_t decoding);
  /// Installs (or replaces) the lagged mirror the router sees.
  void set_lagged_view(RadixCache* mirror) { lagged_ = mirror; }

 private:
  RadixCache cache_;
  Tick busy_until_ = 0;
  std::uint64_t requests_ = 0;
  std::uint64_t prefill_tokens_ = 0;
  std::uint64_t cached_tokens_ = 0;
  Tick busy_ticks_ = 0;
  RingQueue<Tick> starts_;  // prefill start times of admitted requests, ascending (FIFO)
  std::uint32_t in_flight_ = 0;
  EngineMetrics scraped_;
  RadixCache* lagged_ = nullptr;  // not owned
};

}  // namespace prefixroute
