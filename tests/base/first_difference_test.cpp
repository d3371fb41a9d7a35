// first_difference (core/src/base/first_difference.h), the word-at-a-time compare
// under every radix walk, against the one-token-at-a-time loop it replaced:
// every run length 0..40, every start, every position of the first
// difference (in the low or high half of a word, in the tail), and runs at
// unaligned addresses.
#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "../../core/src/base/first_difference.h"

namespace prefixroute::first_difference_test {
namespace {

std::size_t one_at_a_time(const Token* a, const Token* b, std::size_t from, std::size_t limit) {
  std::size_t i = from;
  while (i < limit && a[i] == b[i]) ++i;
  return i;
}

TEST(FirstDifference, AgreesWithTheTokenLoopAtEveryPositionAndAlignment) {
  // One spare token in front so that `a + 1` starts off an 8-byte boundary.
  std::vector<Token> a_store(48), b_store(48);
  for (std::size_t offset = 0; offset < 2; ++offset) {
    Token* a = a_store.data() + offset;
    Token* b = b_store.data() + offset;
    for (std::size_t limit = 0; limit <= 40; ++limit) {
      for (std::size_t from = 0; from <= limit; ++from) {
        // `diff` == limit: no difference inside the range.
        for (std::size_t diff = from; diff <= limit; ++diff) {
          for (std::size_t k = 0; k < 44; ++k) a[k] = b[k] = static_cast<Token>(1000 + k);
          if (diff < limit) b[diff] ^= 0x80000001u;  // differs in both the low and the high byte
          EXPECT_EQ(first_difference(a, b, from, limit), one_at_a_time(a, b, from, limit))
              << "offset " << offset << " from " << from << " limit " << limit << " diff " << diff;
          EXPECT_EQ(first_difference(a, b, from, limit), diff);
        }
      }
    }
  }
}

TEST(FirstDifference, FindsTheFirstOfSeveralDifferences) {
  std::vector<Token> a(16, 7), b(16, 7);
  b[5] = 8;
  b[6] = 9;
  b[13] = 1;
  EXPECT_EQ(first_difference(a.data(), b.data(), 0, 16), 5u);
  EXPECT_EQ(first_difference(a.data(), b.data(), 5, 16), 5u);  // both tokens of a 64-bit word differ
  EXPECT_EQ(first_difference(a.data(), b.data(), 6, 16), 6u);
  EXPECT_EQ(first_difference(a.data(), b.data(), 7, 16), 13u);
  EXPECT_EQ(first_difference(a.data(), b.data(), 14, 16), 16u);
}

}  // namespace
}  // namespace prefixroute::first_difference_test
