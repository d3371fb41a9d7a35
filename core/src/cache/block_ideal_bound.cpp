#include "prefixroute/cache/block_ideal_bound.h"

#include <algorithm>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "prefixroute/workload/block_trace.h"

namespace prefixroute {
namespace {

// A bit per id, grown on demand.
class IdBits {
 public:
  bool test(std::uint32_t id) const {
    const std::size_t word = id >> 6;
    return word < words_.size() && ((words_[word] >> (id & 63)) & 1u) != 0;
  }
  void set(std::uint32_t id) {
    const std::size_t word = id >> 6;
    if (word >= words_.size()) {
      // A quarter more at a time, not double: the sets are most of the memory.
      if (word >= words_.capacity()) words_.reserve(std::max(word + 1, words_.capacity() + words_.capacity() / 4));
      words_.resize(word + 1, 0);
    }
    words_[word] |= std::uint64_t{1} << (id & 63);
  }

 private:
  std::vector<std::uint64_t> words_;
};

// (id, value) pairs appended in increasing id order, varint-coded in chunks
// of 64 entries (an id as the difference from the previous one, a value as
// is or, `relative`, as its zigzag difference from its id), found by binary
// search over the chunks' first ids and a scan inside one chunk. Mooncake's
// entries take 2 - 4 bytes instead of 8. raise() keeps the larger value of
// an entry aside (rare: the same short last block seen longer later).
class IdList {
 public:
  explicit IdList(bool relative) : relative_(relative) {}

  /// False when `id` does not follow the last entry's.
  bool append(std::uint32_t id, std::uint32_t value) {
    if (size_ > 0 && last_id_ >= id) return false;
    if (size_ % kChunk == 0) {
      chunks_.push_back(Chunk{id, bytes_.size()});
    } else {
      put(id - last_id_);
    }
    put(code(id, value));
    last_id_ = id;
    ++size_;
    return true;
  }
  /// The value of `id`, which must have an entry.
  std::uint32_t at(std::uint32_t id) const {
    if (!raised_.empty()) {
      const auto it = raised_.find(id);
      if (it != raised_.end()) return it->second;
    }
    const auto chunk = std::upper_bound(chunks_.begin(), chunks_.end(), id,
                                        [](std::uint32_t key, const Chunk& c) { return key < c.first_id; }) -
                       1;
    std::size_t at = chunk->offset;
    std::uint32_t entry = chunk->first_id;
    for (;;) {
      const std::uint64_t coded = get(at);
      if (entry == id) return decode(id, coded);
      entry += static_cast<std::uint32_t>(get(at));
    }
  }
  /// The entry of `id` becomes max(its value, value).
  void raise(std::uint32_t id, std::uint32_t value) {
    if (value > at(id)) raised_[id] = value;
  }

 private:
  static constexpr std::uint64_t kChunk = 64;
  struct Chunk {
    std::uint32_t first_id;
    std::size_t offset;
  };

  std::uint64_t code(std::uint32_t id, std::uint32_t value) const {
    if (!relative_) return value;
    const std::int64_t d = static_cast<std::int64_t>(id) - static_cast<std::int64_t>(value);
    return d >= 0 ? static_cast<std::uint64_t>(d) << 1 : (static_cast<std::uint64_t>(-d) << 1) - 1;
  }
  std::uint32_t decode(std::uint32_t id, std::uint64_t coded) const {
    if (!relative_) return static_cast<std::uint32_t>(coded);
    const std::int64_t d = (coded & 1) != 0 ? -static_cast<std::int64_t>((coded + 1) >> 1)
                                            : static_cast<std::int64_t>(coded >> 1);
    return static_cast<std::uint32_t>(static_cast<std::int64_t>(id) - d);
  }
  void put(std::uint64_t v) {
    while (v >= 0x80) {
      bytes_.push_back(static_cast<std::uint8_t>(v | 0x80));
      v >>= 7;
    }
    bytes_.push_back(static_cast<std::uint8_t>(v));
  }
  std::uint64_t get(std::size_t& at) const {
    std::uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const std::uint8_t b = bytes_[at++];
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
  }

  bool relative_;
  std::deque<std::uint8_t> bytes_;  // a deque: growing never copies (nor doubles) the bytes
  std::vector<Chunk> chunks_;
  std::uint64_t size_ = 0;
  std::uint32_t last_id_ = 0;
  std::map<std::uint32_t, std::uint32_t> raised_;
};

class BlockIdealBound {
 public:
  // False: the stream is not one this describes (block_ideal_bound.h).
  bool serve(const Prompt& prompt, std::uint64_t& cached) {
    const std::span<const Piece> pieces = prompt.pieces;
    const std::size_t n = pieces.size();
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const Piece& p = pieces[i];
      if (p.offset != 0 || p.run >= kNoId) return false;
      sum += p.length;
      if (i + 1 < n) {
        if (block_ == 0) {
          if (longest_last_ > p.length) return false;
          block_ = p.length;
        } else if (p.length != block_) {
          return false;
        }
      } else if (block_ != 0 ? p.length > block_ : false) {
        return false;
      } else {
        longest_last_ = std::max(longest_last_, p.length);
      }
    }
    if (sum != prompt.length) return false;
    blocks_read_ += n;

    // The leading ids already seen: an earlier prompt holds their chain.
    std::size_t k = 0;
    while (k < n && seen_.test(id_of(pieces[k]))) ++k;
    cached = 0;
    if (k > 0) {
      const std::uint32_t last = id_of(pieces[k - 1]);
      const std::uint32_t held = whole_.test(last) ? block_ : most_tokens_.at(last);
      cached = static_cast<std::uint64_t>(k - 1) * block_ + std::min(pieces[k - 1].length, held);
    }

    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t id = id_of(pieces[i]);
      // The id before this one, plus 1 (0: none, the prompt's first block).
      const std::uint32_t before = i == 0 ? 0 : id_of(pieces[i - 1]) + 1;
      const bool whole = i + 1 < n || (block_ != 0 && pieces[i].length == block_);
      if (seen_.test(id)) {
        const std::uint32_t expected = odd_before_.test(id) ? before_.at(id) : id;
        if (expected != before) return false;
        if (whole) {
          whole_.set(id);
        } else if (!whole_.test(id)) {
          most_tokens_.raise(id, pieces[i].length);
        }
        continue;
      }
      // Three bit sets up to this id, against the blocks read so far.
      if (3 * (static_cast<std::uint64_t>(id) / 8 + 8) > (std::uint64_t{1} << 20) + 4 * blocks_read_) return false;
      seen_.set(id);
      if (before != id) {
        odd_before_.set(id);
        if (!before_.append(id, before)) return false;
      }
      if (whole) {
        whole_.set(id);
      } else if (!most_tokens_.append(id, pieces[i].length)) {
        return false;
      }
    }
    return true;
  }

 private:
  // Ids must leave room for "id + 1" in 32 bits.
  static constexpr RunId kNoId = 0xFFFFFFFFu;
  static std::uint32_t id_of(const Piece& p) { return static_cast<std::uint32_t>(p.run); }

  std::uint32_t block_ = 0;         // the length of every non-last block (0: none seen yet)
  std::uint32_t longest_last_ = 0;  // the longest last block, checked against block_
  std::uint64_t blocks_read_ = 0;
  IdBits seen_;
  IdBits whole_;       // seen as a whole block
  IdBits odd_before_;  // preceded by something other than id - 1 (or, for id 0, nothing)
  IdList before_{true};        // for odd_before_ ids: the id before plus 1, 0 for none
  IdList most_tokens_{false};  // for ids seen only as a shorter last block: the most tokens seen
};

}  // namespace

std::optional<CacheBound> block_ideal_bound(RequestSource& source, std::uint64_t total_prompt_tokens) {
  if (&source.content() != &BlockContent::instance()) return std::nullopt;
  BlockIdealBound ideal;
  CacheBound bound;
  bound.capacity_tokens = total_prompt_tokens;
  SourcedRequest request;
  while (source.next(request)) {
    std::uint64_t cached = 0;
    if (!ideal.serve(request.prompt.view(), cached)) return std::nullopt;
    bound.cached_tokens += cached;
    bound.prefill_tokens += request.prompt.length - cached;
  }
  const std::uint64_t total = bound.cached_tokens + bound.prefill_tokens;
  bound.hit_rate = total == 0 ? 0.0 : static_cast<double>(bound.cached_tokens) / static_cast<double>(total);
  return bound;
}

}  // namespace prefixroute
