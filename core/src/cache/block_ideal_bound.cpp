#include "prefixroute/cache/block_ideal_bound.h"

#include <algorithm>
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
    if (word >= words_.size()) words_.resize(word + 1, 0);
    words_[word] |= std::uint64_t{1} << (id & 63);
  }

 private:
  std::vector<std::uint64_t> words_;
};

// (id, value) pairs appended in increasing id order; found by binary search.
class IdList {
 public:
  /// False when `id` does not follow the last entry's.
  bool append(std::uint32_t id, std::uint32_t value) {
    if (!entries_.empty() && entries_.back().first >= id) return false;
    entries_.emplace_back(id, value);
    return true;
  }
  /// The entry of `id`, which must exist.
  std::uint32_t& at(std::uint32_t id) {
    const auto it = std::lower_bound(entries_.begin(), entries_.end(), id,
                                     [](const std::pair<std::uint32_t, std::uint32_t>& e, std::uint32_t key) {
                                       return e.first < key;
                                     });
    return it->second;
  }

 private:
  std::vector<std::pair<std::uint32_t, std::uint32_t>> entries_;
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
          std::uint32_t& most = most_tokens_.at(id);
          most = std::max(most, pieces[i].length);
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
  IdList before_;      // for odd_before_ ids: the id before plus 1, 0 for none
  IdList most_tokens_; // for ids seen only as a shorter last block: the most tokens seen
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
