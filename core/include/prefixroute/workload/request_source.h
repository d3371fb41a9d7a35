// RequestSource: requests in arrival order, one at a time, as the simulator
// consumes them. A run reads its source once, front to back, so a source need
// not hold the trace: a replayed file streams from disk (RequestSpill::open),
// and memory stays bounded by the caches, the requests in flight and the
// per-request results, whatever the file's length.
//
// Every source of one experiment must give the identical stream: the
// experiment opens a fresh source per run (per policy, per bound; a replayed
// trace through ReplayedTrace::open, replayed_trace.h).
//
// Invariants: next() returns requests with non-decreasing arrival; size() and
// last_arrival() describe the whole stream before the first next() (the
// simulator sizes its results and its sampling period from them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

#include "prefixroute/base/content.h"
#include "prefixroute/base/time.h"
#include "prefixroute/workload/request_trace.h"

namespace prefixroute {

/// One request as a source yields it.
struct SourcedRequest {
  Tick arrival = 0;
  PromptPieces prompt;  ///< pieces of the source's content()
  std::uint64_t output_tokens = 0;
  std::uint64_t session = 0;
  std::uint32_t turn = 0;
};

class ReactiveSource;

/// What a run records besides its usual results, for a source that asks
/// (a client with stages or a timeout: workload/client.h).
struct SourceRecording {
  bool request_sizes = false;  ///< per request: prompt and output tokens, TPOT (SimulationRun::requests)
  Tick kv_sample_period = 0;   ///< > 0: KV use of every replica sampled this often (SimulationRun::kv_samples)
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  /// Requests in the whole stream.
  virtual std::uint64_t size() const = 0;
  /// The last request's arrival (0 for an empty stream).
  virtual Tick last_arrival() const = 0;
  /// The content the prompts' pieces are runs of; outlives the source.
  virtual const Content& content() const = 0;
  /// The next request into `out`; false at the end (out untouched).
  virtual bool next(SourcedRequest& out) = 0;
  /// Whether requests share sessions (RequestTrace::has_sessions): the
  /// simulator then tallies per-session figures (sim/session_tally.h).
  virtual bool has_sessions() const { return false; }
  /// A source whose send times depend on what the run does (a closed-loop
  /// or staged client), else null: the simulator then asks it when to send.
  virtual ReactiveSource* reactive() { return nullptr; }
  /// What the run should record for this source.
  virtual SourceRecording recording() const { return {}; }
};

/// A source that decides when to send from the run's completions (a
/// closed-loop or staged client: workload/client.h). The simulator asks for
/// next_action(), processes its own events up to that time (stopping early
/// when it reports a completion, which may move the answer), then calls
/// act(): true when a request goes out at that time (next() yields it with
/// that arrival). size() is then an upper bound: the run may send fewer.
/// last_arrival() is unknown before the run (span_hint() estimates it).
class ReactiveSource {
 public:
  /// next_action() when only a completion can move the client.
  static constexpr Tick kWaiting = std::numeric_limits<Tick>::max();

  virtual ~ReactiveSource() = default;
  /// No request will be sent any more.
  virtual bool exhausted() const = 0;
  /// When the client acts next (a send, or its own timer), or kWaiting.
  virtual Tick next_action() const = 0;
  /// Runs the client's actions due at `now` (its next_action()); true when a
  /// request is sent at `now`.
  virtual bool act(Tick now) = 0;
  /// Request `id` completed at `now`.
  virtual void completed(std::uint64_t id, Tick now) = 0;
  /// An estimate of the last send (sampling periods are chosen from it; 0 = none).
  virtual Tick span_hint() const = 0;
};

/// A RequestTrace read front to back. Cost: O(prompt pieces) per next().
class TraceSource final : public RequestSource {
 public:
  explicit TraceSource(const RequestTrace& trace) : trace_(trace) {}
  std::uint64_t size() const override { return trace_.size(); }
  Tick last_arrival() const override { return trace_.size() == 0 ? 0 : trace_.arrival(trace_.size() - 1); }
  const Content& content() const override { return trace_.content(); }
  bool next(SourcedRequest& out) override;
  bool has_sessions() const override { return trace_.has_sessions(); }

 private:
  const RequestTrace& trace_;
  std::size_t next_ = 0;
};

}  // namespace prefixroute
