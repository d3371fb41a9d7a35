// Fnv1a64 (core/include/prefixroute/base/hashing.h), whose feed and
// feed_tokens fold the multiplications of a value's high zero bytes into one,
// against FNV-1a's byte-wise definition: values at every byte-length
// boundary, a long stream of random values of every width, and token lists
// whose largest token takes each of feed_tokens' loops.
// Every results JSON's workload fingerprint is this hash.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "prefixroute/base/hashing.h"

namespace prefixroute::hashing_test {
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

TEST(Hashing, FeedTokensEqualsFeedingEachToken) {
  // Lists whose largest token needs 1 - 4 bytes (each loop of feed_tokens),
  // with smaller tokens mixed in, and the empty list.
  std::mt19937_64 gen(7);
  for (const std::uint32_t largest : {0u, 255u, 256u, 65535u, 65536u, 16777215u, 16777216u, 4294967295u}) {
    for (const std::size_t n : {0, 1, 2, 33, 1000}) {
      std::vector<std::uint32_t> tokens(n);
      for (auto& t : tokens) t = largest == 0 ? 0 : static_cast<std::uint32_t>(gen() % (std::uint64_t{largest} + 1));
      if (n > 0) tokens[gen() % n] = largest;
      hashing::Fnv1a64 fast;
      fast.feed(n);
      fast.feed_tokens(tokens.data(), tokens.size());
      std::uint64_t reference = byte_wise(hashing::kFnvOffset, n);
      for (const std::uint32_t t : tokens) reference = byte_wise(reference, t);
      EXPECT_EQ(fast.value, reference) << "largest " << largest << ", " << n << " tokens";
    }
  }
}

}  // namespace
}  // namespace prefixroute::hashing_test
