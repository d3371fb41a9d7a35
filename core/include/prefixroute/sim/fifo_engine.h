// FifoEngine: the seed's engine, one FIFO prefill queue per replica.
//
// A request arriving at `now` is matched and inserted into its replica's
// cache at once (Replica::admit_with_decode: the cache its predecessors in
// the queue leave behind), starts at max(now, busy_until) and prefills its
// uncached tokens in one go, taking StepModel::prefill_ticks(uncached,
// cached) (the seed's uncached / rate unless step costs are set). With
// decode on (cluster.decode_ms_per_token > 0) it then decodes output x
// decode_ms_per_token beside the queue, its prompt path pinned and its
// outputs reserved until it completes.
//
// Events: a replica's first tokens come in its admission order, so they wait
// in one queue per replica and a TournamentTree over the queues' heads finds
// the next; only decoding requests' completions wait in one heap. A request's
// first token has seq 2 x id and its completion 2 x id + 1, so at equal
// times a completion follows its own first token and precedes later
// admissions' events.
//
// Cost: admit is one cache insert; an event O(log replicas) (plus O(log D)
// per completion with D requests decoding).
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "prefixroute/base/ring_queue.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/sim/engine.h"

namespace prefixroute {

class FifoEngine final : public Engine {
 public:
  FifoEngine(const ClusterConfig& cluster, std::vector<Replica>& replicas, bool record_cache_ops);

  void admit(std::uint32_t replica, const EngineRequest& request, Tick now, std::size_t known_cached,
             EngineEvents& events) override;
  EventKey next_event() const override;
  std::uint32_t handle_next_event(EngineEvents& events) override;
  void scrape(std::uint32_t replica, Tick now) override;
  ReplicaLoad load(std::uint32_t replica) const override;
  void finish(SimulationRun&) const override {}

 private:
  // What an event needs to know about its request, kept while it is in flight.
  struct InFlight {
    std::uint64_t request;
    Tick arrival;
    Replica::Admission admission;
    std::uint32_t replica;
    std::uint32_t output_tokens;
  };
  // A decoding request's completion; its record is in `slot`.
  struct Completion {
    EventKey key;
    std::uint32_t slot;
    bool operator>(const Completion& other) const { return other.key < key; }
  };

  static EventKey first_token_key(const InFlight& f) { return EventKey{f.admission.first_token, 2 * f.request}; }
  static EventKey completion_key(const InFlight& f) { return EventKey{f.admission.completion, 2 * f.request + 1}; }

  void handle_first_token(std::size_t replica, Tick now, EngineEvents& events);
  void complete(const InFlight& f, Tick now, EngineEvents& events);

  std::vector<Replica>& replicas_;
  StepModel step_;
  Tick tick_per_output_token_ = 0;
  bool record_cache_ops_ = false;
  std::vector<std::uint32_t> decoding_;
  // Per replica, the admitted requests whose first token is still ahead, in
  // admission order (sorted by first token: one FIFO queue).
  std::vector<RingQueue<InFlight>> prefilling_;
  TournamentTree<EventKey> next_first_tokens_;  // per replica: its queue's head
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::vector<InFlight> in_flight_;  // records of decoding requests, by slot
  std::vector<std::uint32_t> free_slots_;
};

}  // namespace prefixroute
