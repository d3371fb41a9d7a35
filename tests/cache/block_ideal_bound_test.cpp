// block_ideal_bound: the ideal bound from block ids must be the radix cache's
// (ideal_bound over a TraceSource) on every block trace it accepts, and it
// must decline the traces it cannot describe exactly.
#include "prefixroute/cache/block_ideal_bound.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/workload/block_trace.h"

namespace prefixroute::block_ideal_bound_test {
namespace {

// A block trace built request by request: block ids and input lengths.
struct Crafted {
  std::uint32_t block = 4;
  std::vector<BlockTrace::Entry> entries;
  std::vector<std::uint32_t> ids;
  BlockTrace::Kind kind = BlockTrace::Kind::Mooncake;

  void add(const std::vector<std::uint32_t>& blocks, std::uint32_t input_tokens) {
    BlockTrace::Entry e;
    e.arrival = static_cast<Tick>(entries.size());
    e.input_tokens = input_tokens;
    e.output_tokens = 1;
    e.first_block = ids.size();
    e.blocks = static_cast<std::uint32_t>(blocks.size());
    e.session = entries.size();
    entries.push_back(e);
    ids.insert(ids.end(), blocks.begin(), blocks.end());
  }
  // Whole blocks, the last one `last` tokens long.
  void add_cut(const std::vector<std::uint32_t>& blocks, std::uint32_t last) {
    add(blocks, static_cast<std::uint32_t>((blocks.size() - 1) * block + last));
  }
  BlockTrace trace() const { return BlockTrace(block, entries, ids, kind); }
};

std::optional<CacheBound> from_ids(const BlockTrace& trace) {
  TraceSource source(trace);
  return block_ideal_bound(source, trace.total_prompt_tokens());
}

void expect_same(const CacheBound& a, const CacheBound& b) {
  EXPECT_EQ(a.capacity_tokens, b.capacity_tokens);
  EXPECT_EQ(a.cached_tokens, b.cached_tokens);
  EXPECT_EQ(a.prefill_tokens, b.prefill_tokens);
  EXPECT_EQ(a.hit_rate, b.hit_rate);
}

TEST(BlockIdealBound, CountsTheLeadingSeenBlocksAndTheMostTokensOfTheLast) {
  Crafted c;                // blocks of 4 tokens
  c.add_cut({0, 1, 2}, 2);  // 10 tokens, nothing cached
  c.add_cut({0, 1, 3}, 4);  // 0 and 1 seen: 8
  c.add_cut({0, 1, 2}, 4);  // 2 was seen with 2 tokens: 8 + 2
  c.add_cut({0, 1, 2}, 3);  // now 2 was seen whole: 8 + 3
  c.add_cut({0}, 3);        // 3
  c.add_cut({4}, 4);        // a new root: 0
  const BlockTrace trace = c.trace();
  const auto bound = from_ids(trace);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->cached_tokens, 8u + 10u + 11u + 3u);
  expect_same(*bound, ideal_bound(trace));
}

TEST(BlockIdealBound, KeepsTheLongestShortLastBlock) {
  Crafted c;
  c.add_cut({0, 1}, 1);  // nothing cached
  c.add_cut({0, 1}, 3);  // 4 + 1; block 1 now held to 3 tokens
  c.add_cut({0, 1}, 2);  // 4 + 2
  c.add_cut({0, 1}, 4);  // 4 + 3; now whole
  c.add_cut({0, 1}, 4);  // 8
  const BlockTrace trace = c.trace();
  const auto bound = from_ids(trace);
  ASSERT_TRUE(bound.has_value());
  EXPECT_EQ(bound->cached_tokens, 5u + 6u + 7u + 8u);
  expect_same(*bound, ideal_bound(trace));
}

// Random prefix trees, ids numbered in order of first appearance as Mooncake
// numbers them: every request continues an earlier one (or nothing) for a
// random number of blocks with fresh ids, cut to a random last block.
TEST(BlockIdealBound, EqualsTheRadixCacheOnRandomPrefixTrees) {
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    Rng rng(seed);
    Crafted c;
    c.block = 1 + static_cast<std::uint32_t>(rng.below(6));
    std::uint32_t next_id = static_cast<std::uint32_t>(rng.below(3));  // some traces do not start at 0
    std::vector<std::vector<std::uint32_t>> prompts;
    // Some long enough for the lists' chunks of 64 entries.
    const std::size_t requests = 1 + rng.below(seed % 6 == 0 ? 600 : 60);
    for (std::size_t r = 0; r < requests; ++r) {
      std::vector<std::uint32_t> blocks;
      if (!prompts.empty() && rng.below(4) != 0) {
        const auto& earlier = prompts[rng.below(prompts.size())];
        blocks.assign(earlier.begin(), earlier.begin() + static_cast<std::ptrdiff_t>(1 + rng.below(earlier.size())));
      }
      const std::size_t fresh = blocks.empty() ? 1 + rng.below(4) : rng.below(4);
      for (std::size_t k = 0; k < fresh; ++k) blocks.push_back(next_id++);
      prompts.push_back(blocks);
      c.add_cut(blocks, 1 + static_cast<std::uint32_t>(rng.below(c.block)));
    }
    const BlockTrace trace = c.trace();
    const auto bound = from_ids(trace);
    ASSERT_TRUE(bound.has_value()) << "seed " << seed;
    SCOPED_TRACE(seed);
    expect_same(*bound, ideal_bound(trace));
  }
}

// Ids drawn from a small pool break every rule at random: whenever the ids
// still describe the trace the answer must be the cache's, and ideal_bound
// from a reader gives the cache's figure whether they do or not.
TEST(BlockIdealBound, IsTheRadixCacheOrDeclinesOnRandomIds) {
  std::size_t accepted = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Rng rng(seed);
    Crafted c;
    c.block = 1 + static_cast<std::uint32_t>(rng.below(4));
    const std::size_t requests = 1 + rng.below(8);
    for (std::size_t r = 0; r < requests; ++r) {
      std::vector<std::uint32_t> blocks(1 + rng.below(4));
      for (auto& id : blocks) id = static_cast<std::uint32_t>(rng.below(5));
      c.add_cut(blocks, 1 + static_cast<std::uint32_t>(rng.below(c.block)));
    }
    const BlockTrace trace = c.trace();
    const CacheBound cache = ideal_bound(trace);
    SCOPED_TRACE(seed);
    if (const auto bound = from_ids(trace)) {
      ++accepted;
      expect_same(*bound, cache);
    }
    const auto open = [&]() -> std::unique_ptr<RequestSource> { return std::make_unique<TraceSource>(trace); };
    expect_same(ideal_bound(open, trace.total_prompt_tokens()), cache);
  }
  EXPECT_GT(accepted, 10u);  // the small traces that happen to name prefixes
  EXPECT_LT(accepted, 190u);
}

// 10,000 requests, each continuing the previous one for 8 blocks (a fresh
// start every 50) with `fresh` new ids in order, as Mooncake numbers them.
Crafted in_order(std::uint32_t fresh) {
  Crafted c;
  c.block = 16;
  std::uint32_t next_id = 0;
  std::vector<std::uint32_t> previous;
  for (int r = 0; r < 10000; ++r) {
    std::vector<std::uint32_t> blocks(previous.begin(), previous.begin() + std::min<std::size_t>(8, previous.size()));
    for (std::uint32_t k = 0; k < fresh; ++k) blocks.push_back(next_id++);
    c.add_cut(blocks, 1 + static_cast<std::uint32_t>(r % 15));
    previous = r % 50 == 0 ? std::vector<std::uint32_t>{} : blocks;
  }
  return c;
}

// Ids first seen in order cost nothing per id: what stays is about one list
// entry per request in each list, a few bytes each, whether requests bring
// 12 new ids or 60 (bit sets over ids would grow fivefold).
TEST(BlockIdealBound, KeepsAFewBytesPerRequestWhenIdsComeInOrder) {
  std::size_t bytes[2] = {};
  int at = 0;
  for (const std::uint32_t fresh : {12u, 60u}) {
    const BlockTrace trace = in_order(fresh).trace();
    TraceSource source(trace);
    BlockIdealBound ideal;
    SourcedRequest request;
    while (source.next(request)) ASSERT_TRUE(ideal.add(request.prompt.view()));
    bytes[at++] = ideal.bytes();
    const auto bound = ideal.bound(trace.total_prompt_tokens());
    ASSERT_TRUE(bound.has_value());
    expect_same(*bound, ideal_bound(trace));
  }
  EXPECT_LT(bytes[0], 10000u * 8);
  EXPECT_LT(bytes[1], bytes[0] + 10000u);
}

TEST(BlockIdealBound, HoldsNothingOnceItDeclines) {
  Crafted odd;
  odd.add_cut({1, 2}, 4);
  odd.add_cut({3, 2}, 4);  // 2 after 1, then after 3
  const BlockTrace trace = odd.trace();
  TraceSource source(trace);
  BlockIdealBound ideal;
  SourcedRequest request;
  ASSERT_TRUE(source.next(request));
  EXPECT_TRUE(ideal.add(request.prompt.view()));
  EXPECT_GT(ideal.bytes(), 0u);
  ASSERT_TRUE(source.next(request));
  EXPECT_FALSE(ideal.add(request.prompt.view()));
  EXPECT_TRUE(ideal.declined());
  EXPECT_EQ(ideal.bytes(), 0u);
  EXPECT_FALSE(ideal.add(request.prompt.view()));
  EXPECT_FALSE(ideal.bound(1).has_value());
}

TEST(BlockIdealBound, DeclinesWhatItCannotDescribe) {
  {
    Crafted c;  // 2 after 1, then after 3: ids that do not name prefixes
    c.add_cut({1, 2}, 4);
    c.add_cut({3, 2}, 4);
    EXPECT_FALSE(from_ids(c.trace()).has_value());
  }
  {
    Crafted c;  // an id first seen after a larger one, where a list needs its entry
    c.add_cut({5, 6}, 2);
    c.add_cut({3}, 2);
    EXPECT_FALSE(from_ids(c.trace()).has_value());
  }
  {
    Crafted c;  // a Sessions trace's partial last block is content of its own
    c.kind = BlockTrace::Kind::Sessions;
    c.add_cut({0, 1}, 2);
    EXPECT_FALSE(from_ids(c.trace()).has_value());
  }
  {
    Crafted c;  // ids far sparser than the blocks read
    c.add_cut({0}, 4);
    c.add_cut({0, 4000000000u}, 4);
    EXPECT_FALSE(from_ids(c.trace()).has_value());
  }
  {
    // Another content than block ids'.
    TokenStore store;
    struct OneRequest final : RequestSource {
      explicit OneRequest(TokenStore& s) : store(s) {}
      TokenStore& store;
      bool done = false;
      std::uint64_t size() const override { return 1; }
      Tick last_arrival() const override { return 0; }
      const Content& content() const override { return store; }
      bool next(SourcedRequest& out) override {
        if (done) return false;
        done = true;
        const Token tokens[] = {1, 2, 3};
        out.prompt = store.prompt(tokens);
        return true;
      }
    } source(store);
    EXPECT_FALSE(block_ideal_bound(source, 3).has_value());
  }
}

}  // namespace
}  // namespace prefixroute::block_ideal_bound_test
