// The scenario's synthetic workload, whatever its kind (workload_config.h):
// the generator to run, and the size bounds from which the scenario's limits
// (scenario.cpp, check_cross_fields) and the run's memory estimate
// (experiment.cpp, estimated_peak_bytes) are computed before anything is
// allocated.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "prefixroute/workload/request_trace.h"
#include "prefixroute/workload/workload_config.h"

namespace prefixroute {

/// The trace of `config` (validated) for `seed`: a Workload (tenants), a
/// SessionWorkload (sessions, agentic), a GspWorkload (gsp), a
/// SharedPrefixWorkload (shared_prefix, prefix_repetition) or a
/// CumulativeWorkload (cumulative). A Workload's turns are drawn on up to
/// `jobs` threads (the same trace for any number).
std::unique_ptr<RequestTrace> generate_synthetic(const WorkloadConfig& config, std::uint64_t seed,
                                                 unsigned jobs = 1);

/// Upper bounds on a synthetic trace's size, all O(1) from the config.
struct SyntheticBounds {
  double requests = 0;           ///< requests in the trace (exact)
  double max_prompt_tokens = 0;  ///< no prompt is longer
  /// Tokens that may sit on every replica (tenant prefixes, gsp system
  /// prompts; every session token, since a session's calls may go anywhere)
  /// and tokens each held by one request's replica only (the tenants kind's
  /// turns, gsp questions). Together: every distinct token.
  double shared_tokens = 0;
  double unique_tokens = 0;
  /// Every prompt's pieces, summed over the requests.
  double prompt_pieces = 0;
  /// Pieces one radix tree over the trace can hold: every prompt's pieces
  /// plus one per request (an insert stores at most its prompt's pieces and
  /// one split piece), and for the session kinds at most every run plus two
  /// per request (a run sits at one place of a tree, cut at most at its
  /// nodes). Trees on several replicas together hold at most prompt_pieces
  /// plus one per request.
  double tree_pieces = 0;
  double workload_bytes = 0;     ///< the generated trace's heap
};

SyntheticBounds synthetic_bounds(const WorkloadConfig& config);

/// Whether `kind` uses SessionWorkload.
inline bool is_session_kind(const std::string& kind) { return kind == "sessions" || kind == "agentic"; }

/// Whether `kind` uses SharedPrefixWorkload.
inline bool is_pool_kind(const std::string& kind) { return kind == "shared_prefix" || kind == "prefix_repetition"; }

/// Whether the trace of `config` has requests that share sessions
/// (RequestTrace::has_sessions): the session kinds, and multi-turn
/// shared_prefix. O(1).
inline bool synthetic_has_sessions(const WorkloadConfig& config) {
  return is_session_kind(config.kind) || (config.kind == "shared_prefix" && config.shared_prefix.multi_turn);
}

}  // namespace prefixroute
