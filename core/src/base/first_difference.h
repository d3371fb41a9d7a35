// The inner loop of every radix walk: how far two token runs agree.
//
// RadixCache, PrefixIndex and ApproxRadixTree compare a prompt against an
// edge token by token. Compared one at a time that loop costs ~3.5
// instructions per token and is the largest share of match and insert on
// long shared prefixes (docs/performance.md, "near the memory-bandwidth
// limit"). This compares eight tokens per step as four 64-bit words, on every
// target (x86-64, WebAssembly), and finds the first differing token of a
// differing word from the XOR. The result is the same index the one-token
// loop returns, so every match, split and eviction is unchanged.
//
// Cost: O(result) token reads, ~2.3 instructions per token on long runs
// (about 18 per step of eight).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "prefixroute/base/token.h"

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
  const auto load = [](const Token* p) {
    std::uint64_t w;  // memcpy: an unaligned load, no aliasing assumptions
    std::memcpy(&w, p, 8);
    return w;
  };
  // Eight tokens per step on long runs: one branch per 32 bytes.
  for (; i + 8 <= limit; i += 8) {
    const std::uint64_t d0 = load(a + i) ^ load(b + i), d1 = load(a + i + 2) ^ load(b + i + 2);
    const std::uint64_t d2 = load(a + i + 4) ^ load(b + i + 4), d3 = load(a + i + 6) ^ load(b + i + 6);
    if ((d0 | d1 | d2 | d3) != 0) {
      if (d0 != 0) return i + first_of_word(d0);
      if (d1 != 0) return i + 2 + first_of_word(d1);
      if (d2 != 0) return i + 4 + first_of_word(d2);
      return i + 6 + first_of_word(d3);
    }
  }
  for (; i + 2 <= limit; i += 2) {
    const std::uint64_t d = load(a + i) ^ load(b + i);
    if (d != 0) return i + first_of_word(d);
  }
  while (i < limit && a[i] == b[i]) ++i;
  return i;
}

}  // namespace prefixroute
