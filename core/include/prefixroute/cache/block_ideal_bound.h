// The ideal bound of a block trace, from its block ids instead of a cache.
//
// ideal_bound (cache_bounds.h) serves every request from one never-evicting
// RadixCache: its memory grows with every distinct prompt of the trace. On a
// Mooncake-kind block trace (block_trace.h) whose ids name prefixes, the same
// number follows from per-block facts alone. A request's cached tokens are its
// longest common prefix with any earlier prompt; two prompts' blocks differ at
// their first token unless their ids are equal, and every block but a prompt's
// last is whole, so that prefix is
//
//   (k - 1) x block + min(length of the request's block k - 1, the most tokens
//                         of that block any earlier prompt held)
//
// for the k leading block ids of the request already seen (0 when k = 0):
// when every id is always preceded by the same id (or always comes first),
// an earlier prompt holding id b holds the very chain of ids before it.
//
// What it keeps:
//   - the ids seen: a range [lo, hi) while ids first appear as lo, lo + 1,
//     ... (Mooncake numbers its blocks in order of first appearance, so a
//     Mooncake trace, or a window of one, never needs more), else a bit per
//     id from then on;
//   - two lists sorted by id, appended as ids first appear, varint-coded
//     (2 - 4 bytes an entry in Mooncake, about one entry per request in
//     each): for the ids preceded by something other than id - 1 (the first
//     block of a prompt is "preceded" by nothing, which is id - 1 only for
//     id 0), the id before them; for ids first seen as a shorter last block,
//     the most tokens seen (raised to the block length once seen whole).
// An id absent from the first list follows id - 1; absent from the second,
// it was seen whole. A request's leading seen ids are checked a run of
// consecutive ids at a time: one look-up in each list per run (an entry
// inside the run breaks the chain or marks a short block), not per block.
//
// It declines (the caller builds the cache instead) when the stream is not
// one this describes exactly: another content than BlockContent's, a piece
// that does not start its block or is a Sessions kind's partial block (run id
// >= 2^32), a non-last block shorter than the others or a last one longer, an
// id preceded by two different ids, ids first seen out of increasing order
// where a list needs an entry, or, once ids stop appearing in order, ids so
// sparse that the bit set would outgrow the blocks read (more than 1 MiB + 4
// bytes per block).
//
// Cost: O(blocks) plus O(log E + 64) per list look-up (two per run of
// consecutive ids in a request's seen blocks, one per request for its held
// tokens); memory a few bytes per list entry (plus a bit per id up to the
// largest when ids stop appearing in order). At 100 copies of the Mooncake
// conversation trace (1.2 M requests, 18.3 M ids): about 7.7 MB.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "prefixroute/base/content.h"
#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

/// The ideal bound of a stream of block-trace prompts, fed one request at a
/// time (a trace's reader computes it as it reads: spill_trace). Once a
/// prompt is one it cannot describe it declines for good and frees what it
/// holds.
class BlockIdealBound {
 public:
  BlockIdealBound();
  ~BlockIdealBound();
  BlockIdealBound(const BlockIdealBound&) = delete;
  BlockIdealBound& operator=(const BlockIdealBound&) = delete;

  /// Serves the next request's prompt (its tokens as cached or prefilled);
  /// false once the stream is one this does not describe.
  bool add(const Prompt& prompt);
  bool declined() const { return state_ == nullptr; }
  /// The bound of the prompts added, identical to ideal_bound over the same
  /// requests with `total_prompt_tokens` of capacity; nullopt once declined.
  std::optional<CacheBound> bound(std::uint64_t total_prompt_tokens) const;
  /// Heap bytes its lists and bits hold now.
  std::size_t bytes() const;

 private:
  class State;
  std::unique_ptr<State> state_;
  std::uint64_t cached_ = 0;
  std::uint64_t prefill_ = 0;
};

/// The ideal bound of `source` (read front to back), identical to
/// ideal_bound(source, total_prompt_tokens) when it returns a value; nullopt
/// when the stream is not a block trace it describes exactly (the source is
/// then partly read: the caller opens a fresh one).
std::optional<CacheBound> block_ideal_bound(RequestSource& source, std::uint64_t total_prompt_tokens);

}  // namespace prefixroute
