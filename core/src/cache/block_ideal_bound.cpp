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
      // A quarter more at a time, not double.
      if (word >= words_.capacity()) words_.reserve(std::max(word + 1, words_.capacity() + words_.capacity() / 4));
      words_.resize(word + 1, 0);
    }
    words_[word] |= std::uint64_t{1} << (id & 63);
  }
  std::size_t bytes() const { return words_.capacity() * sizeof(std::uint64_t); }

 private:
  std::vector<std::uint64_t> words_;
};

// The ids seen: a range [lo, hi) while every new id is hi, then also a bit
// per id (the range stays as it was).
class SeenIds {
 public:
  bool test(std::uint32_t id) const { return (lo_ <= id && id < hi_) || (scattered_ && bits_.test(id)); }
  // `id` is not seen yet. False when the bits would outgrow `budget` bytes.
  bool set(std::uint32_t id, std::uint64_t budget) {
    if (!scattered_) {
      if (lo_ == hi_) {
        lo_ = id;
        hi_ = id + 1;
        return true;
      }
      if (id == hi_) {
        ++hi_;
        return true;
      }
      scattered_ = true;
    }
    if (static_cast<std::uint64_t>(id) / 8 + 8 > budget) return false;
    bits_.set(id);
    return true;
  }
  std::size_t bytes() const { return bits_.bytes(); }

 private:
  std::uint32_t lo_ = 0, hi_ = 0;
  bool scattered_ = false;
  IdBits bits_;
};

// (id, value) pairs appended in increasing id order, varint-coded in chunks
// of 64 entries (an id as the difference from the previous one, a value as
// is or, `relative`, as its zigzag difference from its id), found by binary
// search over the chunks' first ids and a scan inside one chunk. Mooncake's
// entries take 2 - 4 bytes instead of 8. raise() keeps the larger value of
// an entry aside (rare: the same short last block seen longer later).
class IdList {
 public:
  struct Entry {
    std::uint32_t id;
    std::uint32_t value;
  };

  // The entries from the first with an id >= `from`, in order.
  class Walk {
   public:
    Walk(const IdList& list, std::uint32_t from) : list_(list) {
      if (list.size_ == 0) return;
      auto chunk = std::upper_bound(list.chunks_.begin(), list.chunks_.end(), from,
                                    [](std::uint32_t key, const Chunk& c) { return key < c.first_id; });
      if (chunk != list.chunks_.begin()) --chunk;
      index_ = static_cast<std::uint64_t>(chunk - list.chunks_.begin()) * kChunk;
      at_ = chunk->offset;
      id_ = chunk->first_id;
      coded_ = list.get(at_);
      while (!done() && id_ < from) advance();
    }
    bool done() const { return index_ >= list_.size_; }
    Entry entry() const { return {id_, list_.value_of(id_, coded_)}; }
    void advance() {
      if (++index_ >= list_.size_) return;
      if (index_ % kChunk == 0) {
        const Chunk& c = list_.chunks_[index_ / kChunk];
        at_ = c.offset;
        id_ = c.first_id;
      } else {
        id_ += static_cast<std::uint32_t>(list_.get(at_));
      }
      coded_ = list_.get(at_);
    }

   private:
    const IdList& list_;
    std::uint64_t index_ = ~std::uint64_t{0} >> 1;  // done until placed
    std::size_t at_ = 0;                             // the byte after this entry
    std::uint32_t id_ = 0;
    std::uint64_t coded_ = 0;
  };

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
  /// The value of `id`, if it has an entry.
  std::optional<std::uint32_t> find(std::uint32_t id) const {
    const Walk walk(*this, id);
    if (walk.done()) return std::nullopt;
    const Entry e = walk.entry();
    if (e.id != id) return std::nullopt;
    return e.value;
  }
  /// The entry of `id` (which must have one) becomes max(its value, value).
  void raise(std::uint32_t id, std::uint32_t value) {
    const auto now = find(id);
    if (now && value > *now) raised_[id] = value;
  }
  std::size_t bytes() const {
    return bytes_.size() + chunks_.capacity() * sizeof(Chunk) + raised_.size() * 48;
  }

 private:
  static constexpr std::uint64_t kChunk = 64;
  struct Chunk {
    std::uint32_t first_id;
    std::size_t offset;
  };

  std::uint32_t value_of(std::uint32_t id, std::uint64_t coded) const {
    if (!raised_.empty()) {
      const auto it = raised_.find(id);
      if (it != raised_.end()) return it->second;
    }
    return decode(id, coded);
  }
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

// Ids must leave room for "id + 1" in 32 bits.
constexpr RunId kNoId = 0xFFFFFFFFu;
std::uint32_t id_of(const Piece& p) { return static_cast<std::uint32_t>(p.run); }

}  // namespace

class BlockIdealBound::State {
 public:
  // False: the stream is not one this describes (block_ideal_bound.h).
  bool serve(const Prompt& prompt, std::uint64_t& cached) {
    if (prompt.content != &BlockContent::instance()) return false;
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
      const std::uint32_t held = most_tokens_.find(last).value_or(block_);
      cached = static_cast<std::uint64_t>(k - 1) * block_ + std::min(pieces[k - 1].length, held);
    }
    // Those ids, a run of consecutive ids at a time.
    for (std::size_t s = 0; s < k;) {
      std::size_t e = s + 1;
      while (e < k && id_of(pieces[e]) == id_of(pieces[e - 1]) + 1) ++e;
      if (!serve_seen_run(pieces, s, e)) return false;
      s = e;
    }
    // The rest: new ids, or (only in a stream this declines) ids this very
    // prompt has just added.
    for (std::size_t i = k; i < n; ++i) {
      const std::uint32_t id = id_of(pieces[i]);
      const std::uint32_t before = before_of(pieces, i);
      const bool whole = is_whole(pieces, i);
      if (seen_.test(id)) {
        if (before_.find(id).value_or(id) != before) return false;
        most_tokens_.raise(id, whole ? block_ : pieces[i].length);
        continue;
      }
      if (!seen_.set(id, (std::uint64_t{1} << 20) + 4 * blocks_read_)) return false;
      if (before != id && !before_.append(id, before)) return false;
      if (!whole && !most_tokens_.append(id, pieces[i].length)) return false;
    }
    return true;
  }

  std::size_t bytes() const { return seen_.bytes() + before_.bytes() + most_tokens_.bytes(); }

 private:
  // The id before piece i, plus 1 (0: none, the prompt's first block).
  static std::uint32_t before_of(std::span<const Piece> pieces, std::size_t i) {
    return i == 0 ? 0 : id_of(pieces[i - 1]) + 1;
  }
  bool is_whole(std::span<const Piece> pieces, std::size_t i) const {
    return i + 1 < pieces.size() || (block_ != 0 && pieces[i].length == block_);
  }

  // Pieces [s, e) hold seen ids a, a + 1, ..., b: each must follow the id
  // the stream has always put before it, and a short block among them is
  // raised to what this prompt holds of it.
  bool serve_seen_run(std::span<const Piece> pieces, std::size_t s, std::size_t e) {
    const std::uint32_t a = id_of(pieces[s]);
    const std::uint32_t b = id_of(pieces[e - 1]);
    const std::uint32_t before = before_of(pieces, s);
    IdList::Walk odd(before_, a);
    if (!odd.done() && odd.entry().id == a) {
      if (odd.entry().value != before) return false;
      odd.advance();
    } else if (before != a) {
      return false;
    }
    // a + 1 .. b follow their id - 1 here: none may have an entry.
    if (!odd.done() && odd.entry().id <= b) return false;
    for (IdList::Walk shorter(most_tokens_, a); !shorter.done() && shorter.entry().id <= b; shorter.advance()) {
      const std::uint32_t id = shorter.entry().id;
      const std::size_t i = s + (id - a);
      most_tokens_.raise(id, is_whole(pieces, i) ? block_ : pieces[i].length);
    }
    return true;
  }

  std::uint32_t block_ = 0;         // the length of every non-last block (0: none seen yet)
  std::uint32_t longest_last_ = 0;  // the longest last block, checked against block_
  std::uint64_t blocks_read_ = 0;
  SeenIds seen_;
  IdList before_{true};        // ids not preceded by id - 1: the id before plus 1, 0 for none
  IdList most_tokens_{false};  // ids first seen as a shorter last block: the most tokens seen
};

BlockIdealBound::BlockIdealBound() : state_(std::make_unique<State>()) {}
BlockIdealBound::~BlockIdealBound() = default;

bool BlockIdealBound::add(const Prompt& prompt) {
  if (!state_) return false;
  std::uint64_t cached = 0;
  if (!state_->serve(prompt, cached)) {
    state_.reset();
    return false;
  }
  cached_ += cached;
  prefill_ += prompt.length - cached;
  return true;
}

std::optional<CacheBound> BlockIdealBound::bound(std::uint64_t total_prompt_tokens) const {
  if (!state_) return std::nullopt;
  CacheBound bound;
  bound.capacity_tokens = total_prompt_tokens;
  bound.cached_tokens = cached_;
  bound.prefill_tokens = prefill_;
  const std::uint64_t total = cached_ + prefill_;
  bound.hit_rate = total == 0 ? 0.0 : static_cast<double>(cached_) / static_cast<double>(total);
  return bound;
}

std::size_t BlockIdealBound::bytes() const { return state_ ? state_->bytes() : 0; }

std::optional<CacheBound> block_ideal_bound(RequestSource& source, std::uint64_t total_prompt_tokens) {
  if (&source.content() != &BlockContent::instance()) return std::nullopt;
  BlockIdealBound ideal;
  SourcedRequest request;
  while (source.next(request))
    if (!ideal.add(request.prompt.view())) return std::nullopt;
  return ideal.bound(total_prompt_tokens);
}

}  // namespace prefixroute
