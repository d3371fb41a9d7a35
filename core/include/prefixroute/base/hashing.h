// Small, fixed hash functions shared by the trace fingerprints and the
// policies that hash prompts (llm-d's block index, CHWBL's ring). Fixed
// constants, integer arithmetic only: equal inputs hash equally everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace prefixroute::hashing {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

/// A 64-bit hash as the results JSON, scenarios and links write it: 16
/// lower-case hex digits (workload fingerprints, trace content hashes).
inline std::string to_hex16(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

/// MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit
/// (used after FNV-1a, whose high bits mix weakly).
constexpr std::uint64_t fmix64(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

/// kFnvPrime to the power n, modulo 2^64.
constexpr std::uint64_t fnv_prime_power(int n) {
  std::uint64_t p = 1;
  for (int i = 0; i < n; ++i) p *= kFnvPrime;
  return p;
}

/// Calls `f.template operator()<Bytes>()` with the fewest low bytes (2, 3
/// or 4) that hold every one of the `n` tokens: how many bytes of each token
/// FNV-1a must feed one by one before the zero bytes' multiplications fold
/// into one. One vectorisable pass for the largest token.
template <typename F>
void with_token_bytes(const std::uint32_t* tokens, std::size_t n, F&& f) {
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < n; ++i) largest = tokens[i] > largest ? tokens[i] : largest;
  if (largest >> 16 == 0) {
    f.template operator()<2>();
  } else if (largest >> 24 == 0) {
    f.template operator()<3>();
  } else {
    f.template operator()<4>();
  }
}

/// FNV-1a over the 8 little-endian bytes of each value fed.
///
/// A zero byte's XOR changes nothing, so the multiplications of a value's
/// high zero bytes fold into one by a power of the prime (exact: products
/// modulo 2^64 associate). feed_tokens() picks the byte count once for a
/// whole list (from its largest token), so its loop has no per-token branch:
/// token ids under 2^16 cost 3 dependent multiplications instead of 8. The
/// hash is the byte-wise one (test: Hashing.FeedEqualsTheByteWiseDefinition).
/// Cost: O(1) a value; feed_tokens a vectorisable pass for the maximum, then
/// 2 - 8 multiplications a token.
struct Fnv1a64 {
  std::uint64_t value = kFnvOffset;
  void feed(std::uint64_t v) {
    if (v >> 24 == 0) {
      feed_low_bytes<3>(v);
    } else {
      feed_low_bytes<8>(v);
    }
  }
  /// feed() of each of `n` tokens, in order.
  void feed_tokens(const std::uint32_t* tokens, std::size_t n) {
    with_token_bytes(tokens, n, [&]<int Bytes>() {
      std::uint64_t h = value;  // a local: the loop's chain stays in a register
      for (std::size_t i = 0; i < n; ++i) h = fed_low_bytes<Bytes>(h, tokens[i]);
      value = h;
    });
  }
  /// State h after feeding v, for a v whose bytes from the Bytes-th on are zero.
  template <int Bytes>
  static std::uint64_t fed_low_bytes(std::uint64_t h, std::uint64_t v) {
    for (int b = 0; b < Bytes; ++b) {
      h ^= (v >> (8 * b)) & 0xFF;
      h *= kFnvPrime;
    }
    if constexpr (Bytes < 8) h *= fnv_prime_power(8 - Bytes);
    return h;
  }

 private:
  template <int Bytes>
  void feed_low_bytes(std::uint64_t v) {
    value = fed_low_bytes<Bytes>(value, v);
  }
};

}  // namespace prefixroute::hashing
