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
// What it keeps (the id space is dense in Mooncake traces, which number
// their blocks in order of first appearance):
//   - three bit sets over ids: seen, seen whole (not only as a shorter last
//     block), and "preceded by an id other than id - 1" (the first block of a
//     prompt is "preceded" by nothing, which is id - 1 only for id 0);
//   - for the ids of that last bit, the id before them; for ids never seen
//     whole, the most tokens seen: two lists sorted by id, appended as ids
//     first appear, varint-coded (2 - 4 bytes an entry in Mooncake, about
//     one entry per request in each).
//
// It declines (std::nullopt; the caller builds the cache instead) when the
// stream is not one this describes exactly: another content than
// BlockContent's, a piece that does not start its block or is a Sessions
// kind's partial block (run id >= 2^32), a non-last block shorter than the
// others or a last one longer, an id preceded by two different ids, ids
// first seen out of increasing order where a list needs an entry, or ids so
// sparse that the bit sets would outgrow the blocks read (more than
// 1 MiB + 4 bytes per block).
//
// Cost: O(blocks) bit operations plus O(log E + 64) per list look-up (at
// most two per request and one per block whose predecessor is not id - 1);
// memory 3 bits per id up to the largest + a few bytes per list entry.
#pragma once

#include <cstdint>
#include <optional>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

/// The ideal bound of `source` (read front to back), identical to
/// ideal_bound(source, total_prompt_tokens) when it returns a value; nullopt
/// when the stream is not a block trace it describes exactly (the source is
/// then partly read: the caller opens a fresh one).
std::optional<CacheBound> block_ideal_bound(RequestSource& source, std::uint64_t total_prompt_tokens);

}  // namespace prefixroute
