// Fnv1a64 (core/include/prefixroute/base/hashing.h), whose feed folds the
// multiplications of a value's high zero bytes into one, against FNV-1a's
// byte-wise definition: values at every byte-length boundary, and a long stream of random values of every width.
// Every results JSON's workload fingerprint is this hash.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "prefixroute/base/hashing.h"

namespace prefixroute {
namespace {

/// FNV-1a 64 as published: XOR a byte, multiply by the prime, for each of
/// the value's 8 little-endian bytes.
std::uint64_t byte_wise(std::uint64_t h, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) {
    h ^= (v >> (8 * b)) & 0xFF;
    h *= hashing::kFnvPrime;
  }
  return h;
}

TEST(Hashing, FeedEqualsTheByteWiseDefinition) {
  std::mt19937_64 gen(20261201);
  hashing::Fnv1a64 fast;
  std::uint64_t reference = hashing::kFnvOffset;
  const auto check = [&](std::uint64_t v) {
    fast.feed(v);
    reference = byte_wise(reference, v);
    ASSERT_EQ(fast.value, reference) << "after feeding " << v;
  };
  for (int bits = 0; bits <= 64; ++bits) {
    const std::uint64_t top = bits == 64 ? ~0ULL : (1ULL << bits);
    check(top);
    check(top - 1);
    check(top + 1);
  }
  for (int i = 0; i < 100000; ++i) check(gen() >> (gen() % 64));
}

}  // namespace
}  // namespace prefixroute
