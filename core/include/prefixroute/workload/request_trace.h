// RequestTrace: what the simulator replays. A sequence of requests in arrival
// order, each with an arrival time and a prompt of token ids that can be
// materialised on demand.
//
// Two kinds exist: the seeded synthetic Workload (workload.h) and a replayed
// BlockTrace read from a Mooncake-format file (block_trace.h). Keeping prompts
// implicit (materialised into a caller's buffer) keeps memory O(requests), not
// O(prompt tokens), for traces of millions of requests.
//
// Invariants: arrival(i) <= arrival(i + 1); prompt_tokens(i) equals the size
// materialize(i) writes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"

namespace prefixroute {

class RequestTrace {
 public:
  virtual ~RequestTrace() = default;

  virtual std::size_t size() const = 0;
  virtual Tick arrival(std::size_t i) const = 0;
  virtual std::uint64_t prompt_tokens(std::size_t i) const = 0;
  /// Output (decode) tokens of request i; 0 when the trace does not say.
  virtual std::uint64_t output_tokens(std::size_t i) const = 0;
  /// Writes request i's prompt into `out`, replacing its contents.
  virtual void materialize(std::size_t i, std::vector<Token>& out) const = 0;

  std::uint64_t total_prompt_tokens() const;

  /// FNV-1a over every request's arrival, prompt length and prompt tokens:
  /// equal traces give equal fingerprints on every platform. O(total tokens);
  /// a trace with a more compact exact description may hash that instead.
  virtual std::uint64_t fingerprint() const;
};

}  // namespace prefixroute
