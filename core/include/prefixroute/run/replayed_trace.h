// ReplayedTrace: a recorded trace that an experiment replays instead of a
// generated workload, as the run list (run_list.h) needs it: the trace's
// figures, known before any run starts, and a fresh reader of its requests
// for each run.
//
//   InMemoryReplay  a RequestTrace held in memory (the module's TraceLoader:
//                   the browser has no temporary files; tests; the fuzzer).
//                   Each run reads it through a TraceSource.
//   SpilledTrace    (replay.h) a trace file read once into a RequestSpill
//                   (the command line's --trace). Each run streams it back
//                   from disk through a reader of its own, so a trace of any
//                   length costs disk, not memory.
//
// For the same file and reading settings both give the identical request
// stream and figures, so a replay's results are the same bytes whichever
// way the trace was held (tests/run/replayed_trace_test.cpp).
//
// Thread safety: figures() and open() may be called from several threads at
// once (an experiment's runs go on `jobs` threads); each source open()
// returns is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/workload/request_source.h"
#include "prefixroute/workload/request_trace.h"

namespace prefixroute {

/// The size of a replayed trace, as estimated_peak_bytes needs it.
struct ReplaySize {
  double requests = 0;
  double prompt_tokens = 0;      ///< summed over the requests
  double max_prompt_tokens = 0;  ///< of the longest prompt
  double pieces = 0;             ///< prompt pieces, summed over the requests
  double output_tokens = 0;      ///< summed over the requests
  double max_output_tokens = 0;  ///< of the longest output
  bool sessions = false;         ///< requests share sessions (a Bailian or openai trace): runs tally them
  /// The ideal bound was computed from the block ids as the trace was read
  /// (ReplayFigures::ideal): its run holds no cache. False: it serves every
  /// prompt from a never-evicting RadixCache.
  bool ideal_from_block_ids = false;
};

/// The size of `trace`. O(requests + prompt pieces).
ReplaySize replay_size(const RequestTrace& trace);

/// What is known of a replayed trace as a whole, computed once when it is
/// read (never by another pass over its requests).
struct ReplayFigures {
  std::uint64_t requests = 0;
  std::uint64_t prompt_tokens = 0;  ///< summed over the requests (the ideal bound's capacity)
  std::uint64_t fingerprint = 0;    ///< RequestTrace::fingerprint() of the same requests
  ReplaySize size;                  ///< for estimated_peak_bytes and check_replay
  /// The ideal bound, when the block ids describe the trace (BlockIdealBound,
  /// cache/block_ideal_bound.h): computed as the trace is read, so its
  /// memory is freed before any run starts and the ideal bound's run only
  /// copies it. Empty: that run serves the trace from a radix cache.
  std::optional<CacheBound> ideal;
};

class ReplayedTrace {
 public:
  virtual ~ReplayedTrace() = default;
  virtual const ReplayFigures& figures() const = 0;
  /// A fresh source of every request, from the first: one per run. Never
  /// null. A trace kept in a file throws std::runtime_error when the file
  /// cannot be reopened (its sources throw too when it cannot be read to
  /// the end), so a run never sees a stream cut short.
  virtual std::unique_ptr<RequestSource> open() const = 0;
};

/// A RequestTrace in memory, replayed. The trace must outlive this.
/// Construction computes the figures: O(requests + prompt pieces) plus the
/// trace's fingerprint() and one pass of BlockIdealBound (whose lists live
/// only during construction); open() is O(1).
class InMemoryReplay final : public ReplayedTrace {
 public:
  explicit InMemoryReplay(const RequestTrace& trace);
  const ReplayFigures& figures() const override { return figures_; }
  std::unique_ptr<RequestSource> open() const override;
  const RequestTrace& trace() const { return trace_; }

 private:
  const RequestTrace& trace_;
  ReplayFigures figures_;
};

}  // namespace prefixroute
