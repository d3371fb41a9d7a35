#include "prefixroute/workload/block_trace.h"

#include <algorithm>

#include "prefixroute/base/hashing.h"

namespace prefixroute {

BlockTrace::BlockTrace(std::uint32_t block_size, std::vector<Entry> entries,
                       std::vector<std::uint32_t> block_ids, Kind kind)
    : block_size_(block_size), kind_(kind), entries_(std::move(entries)), block_ids_(std::move(block_ids)) {}

Token BlockTrace::block_token(std::uint32_t id, std::uint32_t k) {
  if (k == 0) return id;
  // A 32-bit mix of (id, k) (the murmur3 finaliser): any fixed, well-spread
  // function works; only "same id and k give the same token" matters.
  std::uint32_t h = id * 0x9E3779B1u ^ (k * 0x85EBCA77u);
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

std::span<const std::uint32_t> BlockTrace::blocks_of(std::size_t i) const {
  const Entry& e = entries_[i];
  return {block_ids_.data() + e.first_block, e.blocks};
}

void BlockTrace::prompt(std::size_t i, PromptPieces& out) const {
  prompt_of(blocks_of(i), block_size_, entries_[i].input_tokens, out, kind_);
}

void BlockTrace::prompt_of(std::span<const std::uint32_t> blocks, std::uint32_t block_size,
                           std::uint64_t input_tokens, PromptPieces& out, Kind kind) {
  out.clear();
  out.content = &BlockContent::instance();
  std::uint64_t pos = 0;
  for (const std::uint32_t id : blocks) {
    const auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(block_size, input_tokens - pos));
    const bool own = kind == Kind::Sessions && n < block_size;
    out.push(Piece{own ? kPartialRun | id : RunId{id}, 0, n});
    pos += n;
  }
}

void BlockContent::copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const {
  const auto id = static_cast<std::uint32_t>(run);
  for (std::uint32_t k = 0; k < n; ++k) out[k] = BlockTrace::block_token(id, offset + k);
  if ((run & BlockTrace::kPartialRun) != 0 && offset == 0 && n > 0) out[0] = id | 0x80000000u;
}

const BlockContent& BlockContent::instance() {
  static const BlockContent content;
  return content;
}

BlockTraceFingerprint::BlockTraceFingerprint(std::uint32_t block_size) { hash_.feed(block_size); }

void BlockTraceFingerprint::add(Tick arrival, std::uint32_t input_tokens, std::uint32_t output_tokens,
                                std::span<const std::uint32_t> blocks) {
  hash_.feed(static_cast<std::uint64_t>(arrival));
  hash_.feed(input_tokens);
  hash_.feed(output_tokens);
  for (const std::uint32_t id : blocks) hash_.feed(id);
}

void BlockTraceFingerprint::add_session(std::uint64_t session, std::uint32_t turn) {
  hash_.feed(session);
  hash_.feed(turn);
}

std::uint64_t BlockTrace::fingerprint() const {
  BlockTraceFingerprint f(block_size_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    f.add(entries_[i].arrival, entries_[i].input_tokens, entries_[i].output_tokens, blocks_of(i));
    if (kind_ == Kind::Sessions) f.add_session(entries_[i].session, entries_[i].turn);
  }
  return f.value();
}

}  // namespace prefixroute
