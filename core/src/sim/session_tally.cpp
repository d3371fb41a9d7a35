#include "prefixroute/sim/session_tally.h"

namespace prefixroute {

void SessionTally::routed(std::uint64_t request, std::uint64_t session, std::uint32_t replica,
                          std::uint64_t prompt_tokens) {
  const auto at = static_cast<std::size_t>(request);
  if (later_.size() <= at) later_.resize(at + 1, false);
  const auto [it, first] = sessions_.try_emplace(session, Session{replica, false, false});
  if (first) return;
  later_[at] = true;
  ++later_calls_;
  later_prompt_tokens_ += prompt_tokens;
  Session& s = it->second;
  if (!s.repeated) {
    s.repeated = true;
    ++multi_call_sessions_;
  }
  if (!s.moved && s.first_replica != replica) {
    s.moved = true;
    ++moved_sessions_;
  }
}

SessionFigures SessionTally::figures(std::span<const std::uint32_t> cached_of) const {
  SessionFigures f;
  f.tallied = true;
  f.sessions = sessions_.size();
  f.multi_call_sessions = multi_call_sessions_;
  f.one_replica_sessions = multi_call_sessions_ - moved_sessions_;  // a moved session has two calls or more
  f.later_calls = later_calls_;
  f.later_prompt_tokens = later_prompt_tokens_;
  for (std::size_t i = 0; i < later_.size() && i < cached_of.size(); ++i)
    if (later_[i]) f.later_cached_tokens += cached_of[i];
  return f;
}

}  // namespace prefixroute
