// Runs whose tokens are a function of a seed and a position: the generated
// messages of the session and gsp workloads. Token k of the run seeded `seed`
// is computed on demand in O(1) (no stream to replay, nothing stored), so a
// message is 12 bytes (its seed and length) however long it is, and reading
// its tokens from any offset costs only the tokens read.
//
// The token is fmix64 (MurmurHash3's finaliser) of seed + (k + 1) x the golden
// ratio constant, scaled to [0, vocab) by the high half of a 64 x 64-bit
// product (Rng::multiply_wide: the same bits natively and in WebAssembly).
// Any well-spread function would do; what matters is that equal (seed, k)
// give equal tokens everywhere and different seeds differ at once (two runs
// share their first token with probability 1/vocab).
#pragma once

#include <cstdint>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/random.h"
#include "prefixroute/base/token.h"

namespace prefixroute {

/// Token `k` of the run seeded `seed`, uniform in [0, vocab) (vocab >= 1).
inline Token seeded_token(std::uint64_t seed, std::uint64_t k, std::uint32_t vocab) {
  const std::uint64_t h = hashing::fmix64(seed + (k + 1) * 0x9E3779B97F4A7C15ULL);
  std::uint64_t low = 0;
  return static_cast<Token>(Rng::multiply_wide(h, vocab, low));
}

/// Tokens [offset, offset + n) of the run seeded `seed`, into `out`.
inline void seeded_tokens(std::uint64_t seed, std::uint32_t offset, std::uint32_t n, std::uint32_t vocab, Token* out) {
  for (std::uint32_t k = 0; k < n; ++k) out[k] = seeded_token(seed, std::uint64_t{offset} + k, vocab);
}

}  // namespace prefixroute
