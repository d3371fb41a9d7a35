// TraceProfile: what a stream of requests is, in the figures a person reads
// before replaying it: how many requests over how long, how long their
// prompts and outputs are, how many sessions they form, and how much of the
// prompt tokens sit in prefixes that more than one request begins with.
//
// Read once, front to back, from a RequestSource (a replayed trace's open():
// the same stream every run replays, so the figures describe what runs, with
// trace.time_scale and the window applied).
//
//   duration_s          last arrival - first arrival, in seconds
//   request_rate_per_s  requests / duration_s (0 when every request arrives
//                       at the same instant)
//   prompt/output       total, mean, nearest-rank p50 and p99, max (the rank
//                       of percentile p among n sorted values is
//                       ceil(p x n / 100), as the results' TTFT percentiles)
//   sessions            distinct sessions and those of more than one request
//                       (has_sessions: a Bailian or openai trace; a Mooncake
//                       trace has none)
//   shared prefix       prompt tokens that some other request of the stream
//                       (earlier or later) also has at the same place of the
//                       same prefix: every request's prompt is walked down a
//                       tree of its pieces (run, offset), and a request's
//                       piece counts min(its length, the longest other
//                       request's piece at that node) tokens when another
//                       request reaches the node. For a block trace (one
//                       piece a block, every block but a prompt's last whole:
//                       block_trace.h) this is exact token for token. The
//                       ideal hit rate (cache_bounds.h) counts only what an
//                       earlier request holds: of two requests with one
//                       prefix, both share it, the second hits it.
//
// Cost: O(prompt pieces) time plus sorting two lengths per request; memory a
// node (about 100 bytes with its hash entry) per distinct (prefix, piece)
// and 8 bytes per request.
#pragma once

#include <cstdint>

#include "prefixroute/workload/request_source.h"

namespace prefixroute {

/// Lengths of a stream's prompts or outputs, in tokens.
struct LengthFigures {
  std::uint64_t total = 0;
  double mean = 0;  ///< total / requests
  std::uint64_t p50 = 0;
  std::uint64_t p99 = 0;
  std::uint64_t max = 0;
};

/// The figures of a request stream (see above).
struct TraceProfile {
  std::uint64_t requests = 0;
  double duration_s = 0;
  double request_rate_per_s = 0;
  LengthFigures prompt_tokens;
  LengthFigures output_tokens;
  bool has_sessions = false;
  std::uint64_t sessions = 0;                ///< distinct sessions (0 without sessions)
  std::uint64_t multi_request_sessions = 0;  ///< sessions of two or more requests
  std::uint64_t shared_prefix_tokens = 0;
  double shared_prefix_share = 0;            ///< shared_prefix_tokens / prompt_tokens.total (0 without prompts)
};

/// Reads `source` to its end and returns its figures.
TraceProfile profile_requests(RequestSource& source);

}  // namespace prefixroute
