// Small, fixed hash functions shared by the trace fingerprints and the
// policies that hash prompts (llm-d's block index, CHWBL's ring). Fixed
// constants, integer arithmetic only: equal inputs hash equally everywhere.
#pragma once

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

/// FNV-1a over the 8 little-endian bytes of each value fed.
///
/// A zero byte's XOR changes nothing, so the multiplications of a value's
/// high zero bytes fold into one by a power of the prime (exact: products
/// modulo 2^64 associate). Token ids fit in 3 bytes, so a token costs 4
/// dependent multiplications instead of 8; the hash is the byte-wise one
/// (test: Hashing.FeedEqualsTheByteWiseDefinition).
struct Fnv1a64 {
  std::uint64_t value = kFnvOffset;
  void feed(std::uint64_t v) {
    if (v >> 24 == 0) {
      feed_bytes(v, 3);
      value *= fnv_prime_power(5);
    } else {
      feed_bytes(v, 8);
    }
  }

 private:
  void feed_bytes(std::uint64_t v, int n) {
    for (int b = 0; b < n; ++b) {
      value ^= (v >> (8 * b)) & 0xFF;
      value *= kFnvPrime;
    }
  }
};

}  // namespace prefixroute::hashing
