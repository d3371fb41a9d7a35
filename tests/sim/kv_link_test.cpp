// KvLink: a transfer's time alone, and equal sharing among concurrent ones,
// against figures computed by hand.
#include "prefixroute/sim/kv_link.h"

#include <gtest/gtest.h>

namespace prefixroute::kv_link_test {
namespace {

// 20 GB/s (roce_200g); 1000 tokens x 131072 B (Llama-3.1-8B BF16) = 131,072,000 B.
constexpr double kBw = 20e9;
constexpr double kBytes = 131'072'000;
constexpr Tick kAlone = 6'553'600;  // 131,072,000 / 20e9 s = 6.5536 ms

TEST(KvLink, ATransferAloneTakesBytesOverBandwidth) {
  KvLink link(kBw);
  EXPECT_EQ(link.next_finish(), KvLink::kNever);
  link.join(7, kBytes, 1000);
  EXPECT_EQ(link.next_finish(), 1000 + kAlone);
  EXPECT_EQ(link.finish_next(), 7u);
  EXPECT_EQ(link.next_finish(), KvLink::kNever);
}

TEST(KvLink, TwoEqualConcurrentTransfersEachTakeTwiceAsLong) {
  KvLink link(kBw);
  link.join(1, kBytes, 0);
  link.join(2, kBytes, 0);
  EXPECT_EQ(link.next_finish(), 2 * kAlone);
  EXPECT_EQ(link.finish_next(), 1u);  // equal tags: in the order they joined
  EXPECT_EQ(link.next_finish(), 2 * kAlone);
  EXPECT_EQ(link.finish_next(), 2u);
}

TEST(KvLink, TheShorterOfTwoFinishesFirstAndTheOtherGetsTheWholeLinkAfter) {
  // B and 2B at once: B finishes at 2B/bw (half the link), the other's
  // remaining B then goes at the full rate: 3B/bw.
  KvLink link(kBw);
  link.join(1, 2 * kBytes, 0);
  link.join(2, kBytes, 0);
  EXPECT_EQ(link.next_finish(), 2 * kAlone);
  EXPECT_EQ(link.finish_next(), 2u);
  EXPECT_EQ(link.next_finish(), 3 * kAlone);
  EXPECT_EQ(link.finish_next(), 1u);
}

TEST(KvLink, ALateJoinerSlowsTheFirstFromItsJoiningOn) {
  // A (B bytes) alone until B/(2bw), half done; then C (B bytes) shares: A's
  // remaining B/2 at bw/2 ends at 1.5 B/bw; C, then B/2 done, ends alone at 2 B/bw.
  KvLink link(kBw);
  link.join(1, kBytes, 0);
  link.join(2, kBytes, kAlone / 2);
  EXPECT_EQ(link.next_finish(), kAlone * 3 / 2);
  EXPECT_EQ(link.finish_next(), 1u);
  EXPECT_EQ(link.next_finish(), 2 * kAlone);
  EXPECT_EQ(link.finish_next(), 2u);
}

TEST(KvLink, AnEmptyTransferFinishesWhenItJoins) {
  KvLink link(kBw);
  link.join(3, 0, 500);
  EXPECT_EQ(link.next_finish(), 500);
}

}  // namespace
}  // namespace prefixroute::kv_link_test
