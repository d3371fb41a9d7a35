// Engine: how a run's replicas serve the requests routed to them.
//
// The simulator (simulator.h) owns the replicas, routes each arrival and
// keeps the router's view (scrapes, lagged KV events, in-flight counts); an
// Engine is the replicas' scheduler, behind one interface:
//
//   admit(replica, request, now)   a routed request reaches its replica
//   next_event()                   the engine's next event, by (time, seq)
//   handle_next_event()            runs it, reporting first tokens,
//                                  completions and cache operations
//   scrape(replica, now)           fills the replica's scraped() metrics
//
// Two engines:
//   fifo     (fifo_engine.h)    the seed's model: one FIFO prefill queue per
//            replica, a request's prompt matched and inserted at admission,
//            decode beside the queue at a fixed time per token.
//   batched  (batched_engine.h) iteration-level scheduling as vLLM and SGLang
//            do it: steps that mix decodes with chunks of prompts under a
//            token budget, paged KV shared with the prefix cache, preemption
//            by recompute.
//
// Event order. Events are ordered by (time, seq). An engine's events at a
// tick come before the arrivals of that tick, except those whose seq is at
// least kAfterArrivals, which come after them (the batched engine forms its
// next step then, so a request arriving as a step ends can join the next).
// The simulator processes, at one tick: engine events below kAfterArrivals,
// lagged KV events, the scrape, arrivals, then the engine's later events.
//
// Determinism: engines keep integer ticks and order ties by seq, never by
// container iteration order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/base/time.h"
#include "prefixroute/cluster/cluster_config.h"
#include "prefixroute/cluster/replica.h"

namespace prefixroute {

struct SimulationRun;

/// When an engine event happens: by time, then seq.
struct EventKey {
  Tick time;
  std::uint64_t seq;

  bool operator<(const EventKey& other) const {
    return time != other.time ? time < other.time : seq < other.seq;
  }
  bool operator==(const EventKey&) const = default;
};

inline constexpr EventKey kNoEvent{std::numeric_limits<Tick>::max(), std::numeric_limits<std::uint64_t>::max()};
/// Events with seq >= this come after the arrivals of their tick.
inline constexpr std::uint64_t kAfterArrivals = std::uint64_t{1} << 63;

/// A routed request as its engine receives it.
struct EngineRequest {
  std::uint64_t id = 0;             ///< index in the trace
  Tick arrival = 0;
  const PromptPieces* prompt = nullptr;  ///< valid during admit() only (engines copy what they keep)
  std::uint32_t output_tokens = 0;  ///< tokens to generate (0: no decode)
};

/// One change an engine makes to a replica's cache, as a KV-event stream
/// reports it (the simulator replays these on the router's lagged mirror).
struct CacheOp {
  enum class Kind : std::uint8_t {
    Insert,   ///< insert prompt[0, length); with pin, pin its path and unpin the request's previous one
    Unpin,    ///< unpin the request's path
    Reserve,  ///< reserve `tokens`
    Release,  ///< release `tokens`
  };
  Kind kind = Kind::Insert;
  std::uint32_t replica = 0;
  std::uint64_t request = 0;
  const PromptPieces* prompt = nullptr;  ///< Insert only; valid during the call
  std::size_t length = 0;                ///< Insert only
  bool pin = false;                      ///< Insert only
  std::size_t tokens = 0;                ///< Reserve, Release
};

/// What an engine reports to the simulator, as it happens.
class EngineEvents {
 public:
  virtual ~EngineEvents() = default;
  /// Request `id` was matched against its replica's cache for the first time.
  virtual void admitted(std::uint64_t id, std::uint32_t replica, std::uint64_t cached_tokens) = 0;
  virtual void first_token(std::uint64_t id, std::uint32_t replica, Tick arrival, Tick now) = 0;
  /// `decode_tokens`: the tokens it generated after its first (their
  /// time is the request's time per output token).
  virtual void completed(std::uint64_t id, std::uint32_t replica, Tick arrival, Tick now,
                         std::uint64_t decode_tokens) = 0;
  /// Called only when the engine was made with record_cache_ops.
  virtual void cache_op(const CacheOp& op, Tick now) = 0;
};

/// A replica's load as its engine sees it (for scrapes and time series).
struct ReplicaLoad {
  std::uint32_t waiting = 0;       ///< admitted, nothing computed yet (or preempted)
  std::uint32_t running = 0;       ///< holding KV: prefilling or decoding
  std::uint64_t held_tokens = 0;   ///< KV held by running requests (pinned + reserved)
};

class Engine {
 public:
  virtual ~Engine() = default;

  /// Request `request`, routed to `replica`, arrives at `now`. `known_cached`
  /// as RadixCache::insert's (a match of the engine's cache the router has
  /// just made; 0 = none known). Updates the replica's busy_until().
  virtual void admit(std::uint32_t replica, const EngineRequest& request, Tick now, std::size_t known_cached,
                     EngineEvents& events) = 0;
  /// The next event; kNoEvent when there is none.
  virtual EventKey next_event() const = 0;
  /// Runs the event next_event() names. Returns the replica it concerned
  /// (whose busy_until() may have changed).
  virtual std::uint32_t handle_next_event(EngineEvents& events) = 0;
  /// Samples `replica`'s engine metrics into its scraped() view at `now`.
  virtual void scrape(std::uint32_t replica, Tick now) = 0;
  virtual ReplicaLoad load(std::uint32_t replica) const = 0;
  /// Adds the engine's own totals to the run when it ends.
  virtual void finish(SimulationRun& run) const = 0;
};

/// The engine `cluster.engine` names, over `replicas` (which it mutates:
/// caches, counters, busy_until). `decode`: requests generate their output
/// tokens (fifo: cluster.decode_ms_per_token > 0; batched: always).
/// `record_cache_ops`: report every cache change through cache_op().
std::unique_ptr<Engine> make_engine(const ClusterConfig& cluster, std::vector<Replica>& replicas,
                                    bool record_cache_ops);

}  // namespace prefixroute
