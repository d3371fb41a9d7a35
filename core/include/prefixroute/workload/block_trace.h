// BlockTrace: a replayed trace whose prompts are given as chains of block ids,
// as in the Mooncake traces (512-token blocks; equal ids mean an equal,
// reusable prefix block).
//
// Each block id becomes a deterministic run of `block_size` token ids, so
// equal ids give equal tokens and the prefix structure is kept exactly: the
// first token of block b is b itself (ids are < 2^32, checked by the reader),
// so two different blocks at the same position already differ at their first
// token and a radix tree splits exactly at block boundaries. The remaining
// tokens of the run are a hash of (b, position). A request whose
// input_length is not a multiple of the block size ends with the first tokens
// of its last block's run.
//
// Cost: memory O(requests + block ids); prompt() is O(blocks), materialize
// O(prompt tokens).
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/workload/request_trace.h"

namespace prefixroute {

/// The trace and its own content: run b is block id b's run of block_size tokens.
class BlockTrace final : public RequestTrace, public Content {
 public:
  struct Entry {
    Tick arrival = 0;
    std::uint32_t input_tokens = 0;
    std::uint32_t output_tokens = 0;
    std::uint64_t first_block = 0;  ///< index into the flat block-id list
    std::uint32_t blocks = 0;
  };

  BlockTrace(std::uint32_t block_size, std::vector<Entry> entries, std::vector<std::uint32_t> block_ids);

  std::size_t size() const override { return entries_.size(); }
  Tick arrival(std::size_t i) const override { return entries_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t i) const override { return entries_[i].input_tokens; }
  std::uint64_t output_tokens(std::size_t i) const override { return entries_[i].output_tokens; }
  const Content& content() const override { return *this; }
  /// Request i's prompt: one piece per block (the last one cut to input_length).
  void prompt(std::size_t i, PromptPieces& out) const override;

  // ---- Content: tokens are computed (block_token), never stored ----
  const Token* stored(RunId) const override { return nullptr; }
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  /// FNV-1a over block size and every entry's arrival, lengths and block ids
  /// (which determine its tokens): O(block ids), not O(tokens).
  std::uint64_t fingerprint() const override;

  std::uint32_t block_size() const { return block_size_; }
  const Entry& entry(std::size_t i) const { return entries_[i]; }
  /// Block ids of request i, in prompt order.
  std::span<const std::uint32_t> blocks_of(std::size_t i) const;

  /// Token k (0 <= k < block_size) of block `id`'s run.
  static Token block_token(std::uint32_t id, std::uint32_t k);

 private:
  std::uint32_t block_size_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> block_ids_;
};

}  // namespace prefixroute
