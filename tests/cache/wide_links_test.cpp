// WideLinks' hash: the table picks a bucket from the hash's low bits, and a
// key's low half is the token, so the links of one first token under many
// parents (a popular continuation under every replica's copy of a prefix)
// must still spread over the buckets.
#include "prefixroute/cache/wide_links.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

namespace prefixroute::wide_links_test {
namespace {

TEST(WideLinkHash, OneTokenUnderManyParentsSpreadsOverTheLowBits) {
  constexpr std::uint64_t kParents = 4096;
  constexpr std::uint64_t kToken = 7;
  std::set<std::size_t> buckets;
  for (std::uint64_t parent = 0; parent < kParents; ++parent)
    buckets.insert(WideLinkHash{}((parent << 32) | kToken) & (kParents - 1));
  // A uniform hash fills about 1 - 1/e of 4096 buckets (~2,589); the
  // identity (std::hash) fills one.
  EXPECT_GT(buckets.size(), 2400u);
}

TEST(WideLinks, FindsWhatWasInsertedUntilErased) {
  WideLinks<std::uint32_t> links;
  for (std::uint32_t parent = 0; parent < 300; ++parent)
    for (std::uint32_t token = 0; token < 3; ++token) links.emplace((std::uint64_t{parent} << 32) | token, parent + token);
  for (std::uint32_t parent = 0; parent < 300; parent += 2) links.erase(std::uint64_t{parent} << 32);
  for (std::uint32_t parent = 0; parent < 300; ++parent) {
    for (std::uint32_t token = 0; token < 3; ++token) {
      const auto it = links.find((std::uint64_t{parent} << 32) | token);
      if (token == 0 && parent % 2 == 0) {
        EXPECT_EQ(it, links.end());
      } else {
        ASSERT_NE(it, links.end());
        EXPECT_EQ(it->second, parent + token);
      }
    }
  }
}

}  // namespace
}  // namespace prefixroute::wide_links_test
