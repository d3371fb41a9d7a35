// The run list: an experiment as an ordered list of independent runs.
//
// A scenario with P policies and N replicates is N x (P + 2) runs, in this
// order (run index = replicate x (P + 2) + phase):
//
//   replicate 0 (seed)         policy 0 .. policy P-1, ideal bound, pooled bound
//   replicate 1 (seed + 1)     policy 0 .. policy P-1, ideal bound, pooled bound
//   ...
//
// With one replicate the run index is the phase index the progress callback
// has always reported (0 .. P-1 the policies, P and P+1 the bounds). A sweep
// lists its points' runs one point after another, each point's as above.
//
// Runs share only read-only inputs (the replicate's trace, the scenario, the
// policy catalogue), so they may run in any order and on any thread: the
// report is assembled in run order, and the results are the same bytes for
// any number of jobs or shards. A replicate's run equals the run of the same
// scenario with seed + r and one replicate (replicate_scenario), byte for byte.
//
// A shard K/N is the runs i with i mod N == K - 1 (K is 1-based: 1/3, 2/3,
// 3/3), so every shard gets a share of the policies and of the bounds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// Which runs one machine executes: every `count`-th, starting at run
/// `index` - 1. The whole list is {1, 1}. Invariant: 1 <= index <= count.
struct Shard {
  std::size_t index = 1;  ///< 1-based: 1 .. count
  std::size_t count = 1;
  bool selects(std::size_t run) const { return run % count == index - 1; }
  bool whole() const { return count == 1; }
};

/// Most shards a list may be split into.
inline constexpr std::size_t kMaxShards = 100000;

/// Parses "K/N" (1 <= K <= N <= kMaxShards). Returns false with a message
/// showing the expected form.
bool parse_shard(std::string_view text, Shard& out, std::string& error);

/// One run of the list.
struct RunKey {
  std::size_t replicate = 0;  ///< runs on seed + replicate
  std::size_t phase = 0;      ///< 0 .. P-1: the policy of that index; P: the ideal bound; P+1: the pooled bound
};

/// Runs of one scenario: replicates x (policies + 2). O(1).
std::size_t run_count(const Scenario& scenario);

/// The replicate and phase of run `index` (< run_count). O(1).
RunKey run_key(const Scenario& scenario, std::size_t index);

/// The scenario replicate `r` runs: seed + r, one replicate, all else equal.
Scenario replicate_scenario(const Scenario& scenario, std::size_t r);

}  // namespace prefixroute
