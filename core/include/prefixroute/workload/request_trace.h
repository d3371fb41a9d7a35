// RequestTrace: what the simulator replays. A sequence of requests in arrival
// order, each with an arrival time and a prompt given as pieces of runs of the
// trace's Content (base/content.h): a tenant's prefix and a turn, a trace's
// blocks. Prompts are never expanded to tokens unless someone asks
// (materialize), so memory is O(requests + distinct runs), not O(prompt
// tokens), and the caches that keep the pieces share the runs.
//
// Two kinds exist: the seeded synthetic Workload (workload.h) and a replayed
// BlockTrace read from a Mooncake-format file (block_trace.h).
//
// Invariants: arrival(i) <= arrival(i + 1); prompt_tokens(i) equals the
// length of prompt(i); content() outlives the trace's use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/content.h"
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
  /// The session (conversation, agent run) request i belongs to; by default
  /// every request is a session of its own.
  virtual std::uint64_t session(std::size_t i) const { return i; }
  /// Request i's index within its session (0 = its first request).
  virtual std::uint32_t turn(std::size_t /*i*/) const { return 0; }
  /// The content every prompt's pieces are runs of.
  virtual const Content& content() const = 0;
  /// Request i's prompt as pieces of content(), into `out` (replacing it).
  virtual void prompt(std::size_t i, PromptPieces& out) const = 0;
  /// Request i's prompt tokens, into `out` (replacing its contents).
  void materialize(std::size_t i, std::vector<Token>& out) const;

  std::uint64_t total_prompt_tokens() const;

  /// FNV-1a over every request's arrival, prompt length and prompt tokens:
  /// equal traces give equal fingerprints on every platform. O(total tokens);
  /// a trace with a more compact exact description may hash that instead.
  virtual std::uint64_t fingerprint() const;
};

}  // namespace prefixroute
