// The inner loop of every radix walk: how far two token runs agree.
//
// RadixCache, PrefixIndex and ApproxRadixTree compare a prompt against an
// edge token by token. Compared one at a time that loop costs ~3.5
// instructions per token and is the largest share of match and insert on
// long shared prefixes (docs/PERFORMANCE.md, "near the memory-bandwidth
// limit"). This compares four tokens per step as two 64-bit words, on every
// target (x86-64, WebAssembly), and finds the first differing token of a
// differing word from the XOR. The result is the same index the one-token
// loop returns, so every match, split and eviction is unchanged.
//
// Cost: O(result) token reads, ~1 instruction per token on long runs.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "prefixroute/token.h"

namespace prefixroute {

/// The first index i in [from, limit) with a[i] != b[i], or `limit` when the
/// runs agree on the whole range. `a` and `b` must be readable on [from, limit).
inline std::size_t first_difference(const Token* a, const Token* b, std::size_t from, std::size_t limit) {
  static_assert(sizeof(Token) == 4, "two tokens per 64-bit word");
  // Which token of a differing word comes first in memory: the low half on a
  // little-endian target, the high half on a big-endian one.
  const auto first_of_word = [](std::uint64_t diff) -> std::size_t {
    if constexpr (std::endian::native == std::endian::little) return (diff & 0xffffffffULL) != 0 ? 0 : 1;
    else return (diff >> 32) != 0 ? 0 : 1;
  };
  std::size_t i = from;
  for (; i + 4 <= limit; i += 4) {
    std::uint64_t x0, x1, y0, y1;  // memcpy: an unaligned load, no aliasing assumptions
    std::memcpy(&x0, a + i, 8);
    std::memcpy(&y0, b + i, 8);
    std::memcpy(&x1, a + i + 2, 8);
    std::memcpy(&y1, b + i + 2, 8);
    if (((x0 ^ y0) | (x1 ^ y1)) != 0) {
      if (x0 != y0) return i + first_of_word(x0 ^ y0);
      return i + 2 + first_of_word(x1 ^ y1);
    }
  }
  while (i < limit && a[i] == b[i]) ++i;
  return i;
}

}  // namespace prefixroute
