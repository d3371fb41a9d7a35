// SessionTally: a run's per-session figures, for workloads whose requests
// share sessions (conversations, agent runs: the sessions and agentic kinds,
// Bailian and openai traces). Most reuse there is within a session, and a
// router that moves a session to another replica loses its history:
//   later-call hit rate: cached prompt tokens / prompt tokens over the calls
//     after the first of their session (the first call cannot hit its own
//     history; later ones should);
//   one-replica share: of the sessions with more than one call, the share
//     whose calls all went to one replica.
// A session's first call is the first request of that session id the run
// sees (arrival order), whatever its turn field says.
//
// Cost: O(1) per request (a hash-map lookup), memory O(sessions) plus one bit
// per request. The map is only looked up, never iterated, so its order
// cannot reach a result.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

namespace prefixroute {

struct SessionFigures {
  bool tallied = false;                       ///< the workload has sessions (the tally ran)
  std::uint64_t sessions = 0;                 ///< distinct sessions
  std::uint64_t multi_call_sessions = 0;      ///< sessions of more than one call
  std::uint64_t one_replica_sessions = 0;     ///< of those, the ones whose calls all went to one replica
  std::uint64_t later_calls = 0;              ///< calls after the first of their session
  std::uint64_t later_prompt_tokens = 0;
  std::uint64_t later_cached_tokens = 0;
  /// Whether results show the figures: a tallied run with some session of
  /// more than one call.
  bool present() const { return tallied && multi_call_sessions > 0; }
};

class SessionTally {
 public:
  /// An upper estimate of the tally's heap per request: a hash-map node and
  /// its bucket per session (at most one session per request) and a bit.
  static constexpr double kEstimatedBytesPerRequest = 64 + 0.125;

  /// Request `request` (numbered from 0 in arrival order) of `session`, of
  /// `prompt_tokens` tokens, went to `replica`.
  void routed(std::uint64_t request, std::uint64_t session, std::uint32_t replica, std::uint64_t prompt_tokens);
  /// The figures, given every request's cached prompt tokens.
  SessionFigures figures(std::span<const std::uint32_t> cached_of) const;

 private:
  struct Session {
    std::uint32_t first_replica = 0;
    bool repeated = false;  ///< has had a second call
    bool moved = false;     ///< some call went elsewhere than the first
  };
  std::unordered_map<std::uint64_t, Session> sessions_;
  std::vector<bool> later_;  ///< per request: a call after its session's first
  std::uint64_t multi_call_sessions_ = 0;
  std::uint64_t moved_sessions_ = 0;
  std::uint64_t later_calls_ = 0;
  std::uint64_t later_prompt_tokens_ = 0;
};

}  // namespace prefixroute
