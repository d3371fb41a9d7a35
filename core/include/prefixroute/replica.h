// Replica: one serving engine as the router sees it: a prefix cache and a
// single FIFO prefill queue.
//
// The queue is represented by the time its queued work drains (busy_until):
// a request admitted at `now` starts at max(now, busy_until) and occupies the
// replica for its prefill time. Requests are admitted in arrival order, so the
// cache is matched and updated at admission; with one FIFO queue this is the
// state its predecessors leave behind (they are all ahead of it in the queue).
//
// Invariants: busy_until never decreases; counters only grow.
// Cost: admit() is one cache insert; projected_wait() is O(1).
#pragma once

#include <cstdint>

#include "prefixroute/prefill_model.h"
#include "prefixroute/radix_cache.h"
#include "prefixroute/time.h"
#include "prefixroute/token.h"

namespace prefixroute {

class Replica {
 public:
  /// What happened to one admitted request.
  struct Admission {
    std::uint64_t cached_tokens = 0;
    std::uint64_t prefill_tokens = 0;
    Tick start = 0;         ///< prefill starts (after the queue ahead drains)
    Tick first_token = 0;   ///< prefill ends: the first output token
  };

  explicit Replica(RadixCache cache) : cache_(std::move(cache)) {}

  RadixCache& cache() { return cache_; }
  const RadixCache& cache() const { return cache_; }

  /// Time at which all admitted work is done.
  Tick busy_until() const { return busy_until_; }

  /// Outstanding work a request arriving at `now` would wait behind.
  Tick projected_wait(Tick now) const { return busy_until_ > now ? busy_until_ - now : 0; }

  /// Queues a request arriving at `now`: matches and inserts its prompt, charges
  /// prefill for the uncached tokens only.
  Admission admit(TokenSpan tokens, Tick now, const PrefillModel& prefill);

  std::uint64_t requests() const { return requests_; }
  std::uint64_t prefill_tokens() const { return prefill_tokens_; }
  std::uint64_t cached_tokens() const { return cached_tokens_; }
  /// Sum of prefill times: how long this replica was busy.
  Tick busy_ticks() const { return busy_ticks_; }

 private:
  RadixCache cache_;
  Tick busy_until_ = 0;
  std::uint64_t requests_ = 0;
  std::uint64_t prefill_tokens_ = 0;
  std::uint64_t cached_tokens_ = 0;
  Tick busy_ticks_ = 0;
};

}  // namespace prefixroute
