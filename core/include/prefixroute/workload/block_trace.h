// BlockTrace: a replayed trace whose prompts are given as chains of block ids,
// as in the Mooncake traces (512-token blocks; equal ids mean an equal,
// reusable prefix block), the Qwen-Bailian ones (16-token blocks, with
// sessions) and openai-format logs once tokenized (16-token blocks of
// interned ids, with sessions; trace_reader.h).
//
// Each block id becomes a deterministic run of `block_size` token ids, so
// equal ids give equal tokens and the prefix structure is kept exactly: the
// first token of block b is b itself (ids are < 2^32, checked by the reader),
// so two different blocks at the same position already differ at their first
// token and a radix tree splits exactly at block boundaries. The remaining
// tokens of the run are a hash of (b, position). A request whose
// input_length is not a multiple of the block size ends with the first tokens
// of its last block's run (Kind::Mooncake).
//
// Kind::Sessions (Bailian and openai traces): a partial last block's hash
// covers only its own tokens, so
// it is its own content: its piece is of the run id + 2^32 (bit 32 set),
// whose first token is id + 2^31 (the ids are < 2^31, checked by the
// reader, so no full block's first token is ever one) and whose other tokens
// are the full run's. A partial block thus shares no token with a full block
// of the same id, and shares its tokens with an equal partial block. A
// Sessions trace's requests also carry their session and turn.
//
// Cost: memory O(requests + block ids); prompt() is O(blocks), materialize
// O(prompt tokens).
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/base/hashing.h"
#include "prefixroute/workload/request_trace.h"

namespace prefixroute {

/// The runs of block ids: run b is block id b's run of tokens, computed
/// (block_token), never stored, so it costs nothing and any number of traces
/// and readers may share one.
class BlockContent final : public Content {
 public:
  const Token* stored(RunId) const override { return nullptr; }
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  /// The one instance every block trace uses.
  static const BlockContent& instance();
};

/// A block trace's fingerprint, fed request by request (what
/// BlockTrace::fingerprint() computes of a whole trace): FNV-1a over the block
/// size and every request's arrival, lengths and block ids.
class BlockTraceFingerprint {
 public:
  explicit BlockTraceFingerprint(std::uint32_t block_size);
  void add(Tick arrival, std::uint32_t input_tokens, std::uint32_t output_tokens,
           std::span<const std::uint32_t> blocks);
  /// A Sessions-kind request's session and turn, after its add() (Mooncake's
  /// fingerprint never feeds them, so it is unchanged).
  void add_session(std::uint64_t session, std::uint32_t turn);
  std::uint64_t value() const { return hash_.value; }

 private:
  hashing::Fnv1a64 hash_;
};

/// A trace kept in memory (block ids, 4 bytes per block), whose prompts are
/// pieces of BlockContent's runs.
class BlockTrace final : public RequestTrace {
 public:
  enum class Kind { Mooncake, Sessions };
  struct Entry {
    Tick arrival = 0;
    std::uint32_t input_tokens = 0;
    std::uint32_t output_tokens = 0;
    std::uint64_t first_block = 0;  ///< index into the flat block-id list
    std::uint32_t blocks = 0;
    std::uint32_t turn = 0;         ///< Sessions: the request's index in its session
    std::uint64_t session = 0;      ///< Sessions: its session (Bailian: the root chat_id)
  };

  BlockTrace(std::uint32_t block_size, std::vector<Entry> entries, std::vector<std::uint32_t> block_ids,
             Kind kind = Kind::Mooncake);

  std::size_t size() const override { return entries_.size(); }
  Tick arrival(std::size_t i) const override { return entries_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t i) const override { return entries_[i].input_tokens; }
  std::uint64_t output_tokens(std::size_t i) const override { return entries_[i].output_tokens; }
  std::uint64_t session(std::size_t i) const override {
    return kind_ == Kind::Sessions ? entries_[i].session : RequestTrace::session(i);
  }
  std::uint32_t turn(std::size_t i) const override { return kind_ == Kind::Sessions ? entries_[i].turn : 0; }
  bool has_sessions() const override { return kind_ == Kind::Sessions; }
  const Content& content() const override { return BlockContent::instance(); }
  /// Request i's prompt: one piece per block (the last one cut to input_length).
  void prompt(std::size_t i, PromptPieces& out) const override;
  /// The prompt of a request of `input_tokens` tokens over `blocks`, as prompt() makes it.
  static void prompt_of(std::span<const std::uint32_t> blocks, std::uint32_t block_size, std::uint64_t input_tokens,
                        PromptPieces& out, Kind kind = Kind::Mooncake);
  /// A Sessions-kind partial last block's run (see above).
  static constexpr RunId kPartialRun = RunId{1} << 32;
  /// FNV-1a over block size and every entry's arrival, lengths and block ids
  /// (which determine its tokens): O(block ids), not O(tokens).
  std::uint64_t fingerprint() const override;

  std::uint32_t block_size() const { return block_size_; }
  Kind kind() const { return kind_; }
  const Entry& entry(std::size_t i) const { return entries_[i]; }
  /// Block ids of request i, in prompt order.
  std::span<const std::uint32_t> blocks_of(std::size_t i) const;

  /// Token k (0 <= k < block_size) of block `id`'s run.
  static Token block_token(std::uint32_t id, std::uint32_t k);

 private:
  std::uint32_t block_size_;
  Kind kind_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> block_ids_;
};

}  // namespace prefixroute
