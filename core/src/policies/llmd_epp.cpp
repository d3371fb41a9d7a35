#include "prefixroute/policies/llmd_epp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "prefixroute/base/block_lru.h"
#include "prefixroute/base/flat_map.h"
#include "prefixroute/base/hashing.h"
#include <bit>
#include <utility>

namespace prefixroute {

double llmd_epp_state_bytes(const LlmdEppParams& p, const PolicyContext& context, const RoutedSize& size) {
  // Each held block: an LRU slot (16 bytes) and its per-replica and
  // holder map entries (open addressing at load <= 1/2: ~64 bytes).
  // At most the index's capacity, at most the blocks routed.
  const double capacity = static_cast<double>(p.lru_blocks_per_replica) * context.cluster.replicas;
  const double routed = std::min(size.requests * p.max_prefix_blocks, size.prompt_tokens / p.block_size);
  // With the session scorer, a cookie per session (at most one per
  // request: an unordered_map node and bucket, ~64 bytes).
  const double cookies = p.session_weight > 0 ? size.requests * 64.0 : 0.0;
  // The hash memo: its slots, and the pieces they keep (4 bytes a token,
  // 8 a block), at most one considered prompt's worth each and at most
  // what was routed.
  const double slots = static_cast<double>(std::bit_ceil(std::max<std::size_t>(64, 8 * context.cluster.replicas)));
  const double piece = std::min<double>(LlmdEpp::kMemoPieceTokens,
                                        static_cast<double>(p.max_prefix_blocks) * std::max<std::uint32_t>(1, p.block_size));
  const double memo = slots * 96.0 + std::min(slots * piece, size.prompt_tokens) *
                                         (4.0 + 8.0 / std::max<std::uint32_t>(1, p.block_size));
  // A held block's holder record has one 64-bit word per 64 replicas;
  // the 96 bytes above include the first. Its array grows by doubling:
  // twice the words at worst.
  const double extra_words = std::ceil(static_cast<double>(context.cluster.replicas) / 64.0) - 1.0;
  return std::min(capacity, routed) * (96.0 + 16.0 * extra_words) + cookies + memo;
}

const PolicySpec& llmd_epp_policy_spec() {
  static const PolicySpec spec = policy_spec<LlmdEppParams>(
      {"llmd_epp", "llm-d EPP", "llm-d endpoint picker: weighted prefix, queue and KV-usage scorers.",
       {"#a16207", "#facc15"}},
      {param<&LlmdEppParams::block_size>("block_size", "Block size", 1, 65536, "tokens", "Prefix index block size."),
       param<&LlmdEppParams::max_prefix_blocks>("max_prefix_blocks", "Prefix blocks considered", 1, 1e6, "blocks",
                                                "Prompt blocks the prefix scorer considers."),
       param<&LlmdEppParams::lru_blocks_per_replica>(
           "lru_blocks_per_replica", "Index blocks per replica", 1, 1e9, "blocks",
           "Capacity of the approximate per-replica block index (LRU)."),
       param<&LlmdEppParams::prefix_weight>("prefix_weight", "Prefix scorer weight", 0, 1e6, "",
                                            "Weight of the prefix scorer."),
       param<&LlmdEppParams::queue_weight>("queue_weight", "Queue scorer weight", 0, 1e6, "",
                                           "Weight of the queue scorer."),
       param<&LlmdEppParams::kv_weight>("kv_weight", "KV scorer weight", 0, 1e6, "", "Weight of the KV-usage scorer."),
       param<&LlmdEppParams::session_weight>(
           "session_weight", "Session scorer weight", 0, 1e6, "",
           "Weight of the session-affinity scorer: 1 for the replica that served the session's last response; "
           "0 = off.")},
      [](const LlmdEppParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<LlmdEpp>(p, context.seed);
      },
      &llmd_epp_state_bytes);
  return spec;
}
namespace {

// Salt of the policy's random stream ("llmd" in ASCII).
constexpr std::uint64_t kLlmdEppStreamSalt = 0x6c6c6d64ULL;

using hashing::fmix64;
using hashing::kFnvOffset;
using hashing::kFnvPrime;

}  // namespace

// Per-replica LRU sets, and for every hash held anywhere the set of replicas
// holding it, as 64-bit masks (group g: replicas 64g .. 64g + 63), found with
// one lookup per hash whatever the number of replicas: with one group the map
// holds the mask itself; with G > 1 groups it holds a record number, and the
// record's G masks lie together in `masks` (one cache line for up to 512
// replicas). Invariant: bit r % 64 of group r / 64 of hash h is set iff
// lru[r] holds h; a hash no replica holds has no entry (nor record).
struct LlmdEpp::Index {
  std::uint64_t capacity;
  std::vector<BlockLru> lru;
  FlatMap<std::uint64_t> holders;  // hash -> its mask (groups == 1) or its record (groups > 1)
  std::size_t groups = 1;
  std::vector<std::uint64_t> masks;        // groups > 1: record k's masks at [k x groups, (k + 1) x groups)
  std::vector<std::uint64_t> free_records; // records to reuse

  explicit Index(std::uint64_t cap) : capacity(cap) {}

  void ensure_replicas(std::size_t n) {
    while (lru.size() < n) lru.emplace_back(capacity);
    const std::size_t wanted = std::max(groups, (n + 63) / 64);
    if (wanted == groups) return;
    // More groups: masks move into records (from one group) or records widen.
    // Which record a hash gets does not matter to any result.
    if (groups == 1) {
      holders.update_values([&](std::uint64_t& value) {
        const std::size_t record = masks.size() / wanted;
        masks.resize(masks.size() + wanted, 0);
        masks[record * wanted] = value;
        value = record;
      });
    } else {
      std::vector<std::uint64_t> wider(masks.size() / groups * wanted, 0);
      for (std::size_t k = 0; k < masks.size() / groups; ++k)
        std::copy_n(masks.begin() + static_cast<std::ptrdiff_t>(k * groups), groups,
                    wider.begin() + static_cast<std::ptrdiff_t>(k * wanted));
      masks.swap(wider);
    }
    groups = wanted;
  }

  /// The masks of `hash`'s holders (groups() words), or nullptr when no
  /// replica holds it.
  const std::uint64_t* holder_masks(std::uint64_t hash) const {
    const std::uint64_t* value = holders.find(hash);
    if (value == nullptr || groups == 1) return value;
    return masks.data() + static_cast<std::size_t>(*value) * groups;
  }

  void add_holder(std::uint64_t hash, std::size_t group, std::uint64_t bit) {
    std::uint64_t* value = holders.find(hash);
    if (groups == 1) {
      if (value != nullptr) *value |= bit; else holders.insert(hash, bit);
      return;
    }
    if (value != nullptr) {
      masks[static_cast<std::size_t>(*value) * groups + group] |= bit;
      return;
    }
    std::size_t record;
    if (!free_records.empty()) {
      record = static_cast<std::size_t>(free_records.back());
      free_records.pop_back();  // freed with every mask zero
    } else {
      record = masks.size() / groups;
      for (std::size_t g = 0; g < groups; ++g) masks.push_back(0);  // a few words: no memset call
    }
    masks[record * groups + group] = bit;
    holders.insert(hash, record);
  }

  void remove_holder(std::uint64_t hash, std::size_t group, std::uint64_t bit) {
    std::uint64_t* value = holders.find(hash);
    if (value == nullptr) return;  // evicted twice in one call: already cleared
    if (groups == 1) {
      *value &= ~bit;
      if (*value == 0) holders.erase(hash);
      return;
    }
    std::uint64_t* m = masks.data() + static_cast<std::size_t>(*value) * groups;
    m[group] &= ~bit;
    if (std::any_of(m, m + groups, [](std::uint64_t w) { return w != 0; })) return;
    free_records.push_back(*value);
    holders.erase(hash);
  }

  /// Adds (or refreshes) `hashes`, in order, in replica's LRU set, then
  /// brings the holder masks up to date. The masks are updated in two batched
  /// passes, each issuing its lookups ahead (the tables exceed the CPU caches
  /// and the keys are random, so the lookups, not the arithmetic, are the
  /// cost): set the bit of every newly held hash, then clear it for every
  /// evicted hash the set no longer holds (with a capacity below the prompt's
  /// block count a hash can be added and evicted within one call).
  void add_blocks(std::size_t replica, const std::vector<std::uint64_t>& hashes) {
    constexpr std::size_t kAhead = 8;  // lookups in flight while one is processed
    BlockLru& set = lru[replica];
    const std::size_t group = replica / 64;
    const std::uint64_t bit = std::uint64_t{1} << (replica % 64);
    added.clear();
    evicted.clear();
    for (std::size_t k = 0; k < hashes.size(); ++k) {
      if (k + kAhead < hashes.size()) set.prefetch(hashes[k + kAhead]);
      std::uint64_t out = 0;
      if (set.touch(hashes[k], out)) added.push_back(hashes[k]);
      if (out != 0) evicted.push_back(out);
    }
    for (std::size_t k = 0; k < added.size(); ++k) {
      if (k + kAhead < added.size()) holders.prefetch(added[k + kAhead]);
      add_holder(added[k], group, bit);
    }
    for (std::size_t k = 0; k < evicted.size(); ++k) {
      if (k + kAhead < evicted.size()) {
        set.prefetch(evicted[k + kAhead]);
        holders.prefetch(evicted[k + kAhead]);
      }
      const std::uint64_t gone = evicted[k];
      if (set.contains(gone)) continue;  // evicted, then added again
      set.forget(gone);
      remove_holder(gone, group, bit);
    }
  }

  std::vector<std::uint64_t> added, evicted;  // add_blocks() scratch
};

LlmdEpp::~LlmdEpp() = default;

LlmdEpp::LlmdEpp(const LlmdEppParams& params, std::uint64_t seed)
    : params_(params), rng_(mix_seed(seed, kLlmdEppStreamSalt)) {
  if (params_.block_size == 0) params_.block_size = 1;
  if (params_.lru_blocks_per_replica == 0) params_.lru_blocks_per_replica = 1;
  index_ = std::make_unique<Index>(params_.lru_blocks_per_replica);
  memo_ = std::make_unique<HashMemo>();
}

namespace {

// The chained block hash, token by token: `state` is the FNV-1a state of the
// block being hashed (the parent's hash at its start) and `filled` its tokens
// so far; each completed block's hash is appended to `out`.
void hash_tokens(const Token* tokens, std::size_t n, std::uint32_t block_size, std::uint64_t& state,
                 std::uint32_t& filled, std::vector<std::uint64_t>& out) {
  std::size_t i = 0;
  while (i < n) {
    // FNV-1a-style over 32-bit token ids, started from the parent's hash (one
    // multiply per token), then a finaliser so every bit depends on every token.
    const std::size_t take = std::min<std::size_t>(n - i, block_size - filled);
    std::uint64_t h = state;
    for (std::size_t k = 0; k < take; ++k) h = (h ^ tokens[i + k]) * kFnvPrime;
    i += take;
    filled += static_cast<std::uint32_t>(take);
    if (filled == block_size) {
      h = fmix64(h);
      if (h == 0) h = 1;  // 0 marks an empty slot in the index's tables
      out.push_back(h);
      filled = 0;
    }
    state = h;
  }
}

}  // namespace

void LlmdEpp::block_hashes(TokenSpan tokens, std::uint32_t block_size, std::uint32_t max_blocks,
                           std::vector<std::uint64_t>& out) {
  out.clear();
  const std::size_t blocks = std::min<std::size_t>(tokens.size() / block_size, max_blocks);
  std::uint64_t state = kFnvOffset;
  std::uint32_t filled = 0;
  hash_tokens(tokens.data(), blocks * block_size, block_size, state, filled, out);
}

// A memo of the hashes a prompt's piece produced: a prompt's leading pieces
// (a tenant's system prompt, a conversation's earlier turns, a trace's
// blocks) recur in many prompts, and hashing is a chain of multiplies (one
// per token) while comparing tokens is not. An entry is keyed by the hasher's
// state at the piece's start (the FNV state and the tokens already in the
// current block) and the piece's tokens, which it keeps and compares in full:
// a hit is the same input as the chain would have read, so it yields exactly
// the chain's hashes and end state (nothing is assumed of run identities).
// Direct-mapped, 8 entries per replica (at least 64; a power of two: a
// cluster has a few tenants' or conversations' prefixes in play per
// replica), chosen by the piece's run, offset, length
// and the state; a prompt's last considered piece is not entered (usually
// the request's own new turn, which no later prompt repeats at that state;
// a later turn of its conversation enters it as a leading piece).
// Pieces longer than kMemoPieceTokens are hashed, not entered.
// Memory: at most slots x (kMemoPieceTokens x 4 + its blocks x 8).
struct LlmdEpp::HashMemo {
  struct Entry {
    bool valid = false;
    std::uint64_t state_in = 0, state_out = 0;
    std::uint32_t filled_in = 0, filled_out = 0;
    std::vector<Token> tokens;
    std::vector<std::uint64_t> hashes;
  };
  std::vector<Entry> entries = std::vector<Entry>(64);

  void ensure_replicas(std::size_t n) {
    const std::size_t wanted = std::bit_ceil(std::max<std::size_t>(64, 8 * n));
    if (wanted > entries.size()) entries.resize(wanted);  // entries move to other slots: only speed changes
  }

  std::size_t slot(const Content* content, const Piece& piece, std::uint32_t length, std::uint64_t state,
                   std::uint32_t filled) const {
    std::uint64_t k = state ^ (piece.run * 0x9e3779b97f4a7c15ULL) ^
                      ((static_cast<std::uint64_t>(piece.offset) << 32) | length) ^
                      (static_cast<std::uint64_t>(filled) << 48) ^ reinterpret_cast<std::uintptr_t>(content);
    return static_cast<std::size_t>(fmix64(k) & (entries.size() - 1));
  }
};

void LlmdEpp::hash_blocks(const Prompt& prompt) {
  hashes_.clear();
  const std::uint32_t block = params_.block_size;
  // Only the full blocks the scorer considers are read.
  std::size_t left = std::min<std::size_t>(prompt.size() / block, params_.max_prefix_blocks) * block;
  std::uint64_t state = kFnvOffset;
  std::uint32_t filled = 0;
  for (const Piece& piece : prompt.pieces) {
    if (left == 0) break;
    const std::uint32_t length = static_cast<std::uint32_t>(std::min<std::size_t>(piece.length, left));
    left -= length;
    const Token* tokens = prompt.content->stored(piece.run);
    if (tokens != nullptr) {
      tokens += piece.offset;
    } else {
      block_tokens_.resize(length);
      prompt.content->copy(piece.run, piece.offset, length, block_tokens_.data());
      tokens = block_tokens_.data();
    }
    if (left == 0 || length > kMemoPieceTokens) {  // the last piece, or a long one: hashed, not entered
      hash_tokens(tokens, length, block, state, filled, hashes_);
      continue;
    }
    HashMemo::Entry& e = memo_->entries[memo_->slot(prompt.content, piece, length, state, filled)];
    if (e.valid && e.state_in == state && e.filled_in == filled && e.tokens.size() == length &&
        std::equal(tokens, tokens + length, e.tokens.data())) {
      hashes_.insert(hashes_.end(), e.hashes.begin(), e.hashes.end());
      state = e.state_out;
      filled = e.filled_out;
      continue;
    }
    e.valid = true;
    e.state_in = state;
    e.filled_in = filled;
    e.tokens.assign(tokens, tokens + length);
    const std::size_t first = hashes_.size();
    hash_tokens(tokens, length, block, state, filled, hashes_);
    e.hashes.assign(hashes_.begin() + static_cast<std::ptrdiff_t>(first), hashes_.end());
    e.state_out = state;
    e.filled_out = filled;
  }
}

void LlmdEpp::ensure_replicas(std::size_t n) {
  index_->ensure_replicas(n);
  memo_->ensure_replicas(n);
}

bool LlmdEpp::index_contains(std::size_t replica, std::uint64_t hash) const {
  return replica < index_->lru.size() && hash != 0 && index_->lru[replica].contains(hash);
}

std::size_t LlmdEpp::index_size(std::size_t replica) const {
  return replica < index_->lru.size() ? index_->lru[replica].size() : 0;
}

void LlmdEpp::score_scrapes(const ClusterView& cluster) {
  const std::span<const Replica> replicas = cluster.replicas();
  const std::size_t n = replicas.size();
  const std::optional<std::uint64_t> count = cluster.scrape_count();
  if (count.has_value() && scored_count_ == count && scored_replicas_ == replicas.data() && scored_n_ == n) {
    // The same scrape: put back the base score of the replicas the last
    // request changed.
    for (const std::uint32_t r : changed_) {
      prefix_[r] = 0.0;
      scores_[r] = base_[r];
    }
    changed_.clear();
    return;
  }
  scored_count_ = count;
  scored_replicas_ = replicas.data();
  scored_n_ = n;
  changed_.clear();
  std::uint32_t min_q = replicas[0].scraped().queue_length, max_q = min_q;
  for (const Replica& r : replicas) {
    min_q = std::min(min_q, r.scraped().queue_length);
    max_q = std::max(max_q, r.scraped().queue_length);
  }
  prefix_.assign(n, 0.0);
  queue_.resize(n);
  kv_.resize(n);
  base_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    const EngineMetrics& m = replicas[r].scraped();
    queue_[r] = max_q == min_q ? 1.0
                               : static_cast<double>(max_q - m.queue_length) /
                                     static_cast<double>(max_q - min_q);
    kv_[r] = std::clamp(1.0 - m.kv_usage, 0.0, 1.0);
    // The weighted sum with a prefix score of 0: prefix_weight x 0 + x is x.
    base_[r] = params_.queue_weight * queue_[r] + params_.kv_weight * kv_[r];
  }
  scores_ = base_;
  scores_nan_ = std::any_of(base_.begin(), base_.end(), [](double x) { return std::isnan(x); });
  ranked_.resize(n);
  for (std::size_t r = 0; r < n; ++r) ranked_[r] = static_cast<std::uint32_t>(r);
  if (!scores_nan_)
    std::sort(ranked_.begin(), ranked_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return base_[a] > base_[b] || (base_[a] == base_[b] && a < b);
    });
}

std::size_t LlmdEpp::choose(const RouteRequest& request, const ClusterView& cluster, Tick) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  ensure_replicas(n);
  hash_blocks(prompt);
  hashed_prompt_tokens_ = prompt.size();
  hashes_valid_ = true;
  score_scrapes(cluster);

  // Prefix scorer: walk the blocks while some replica holds the block; each
  // holder of a walked block counts it. matched_ keeps the last call's
  // counts (for inspection) and is zero but for its holders, cleared here
  // (sized for every replica the index has seen: a policy may be shown fewer
  // replicas than it routed to before; those extra counts are ignored).
  for (const std::uint32_t r : holders_) matched_[r] = 0;
  if (matched_.size() < index_->lru.size()) matched_.resize(index_->lru.size(), 0);
  holders_.clear();
  const std::size_t groups = index_->groups;
  // Successive blocks mostly have the same holders (a shared prefix is held
  // by the same replicas), so each group's mask is counted once per run of
  // equal masks, with the run's length.
  run_mask_.assign(groups, 0);
  run_length_.assign(groups, 0);
  auto count_run = [&](std::size_t g) {
    for (std::uint64_t bits = run_mask_[g]; bits != 0; bits &= bits - 1) {
      const std::size_t r = g * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      if (matched_[r] == 0) holders_.push_back(static_cast<std::uint32_t>(r));
      matched_[r] += run_length_[g];
    }
  };
  // A block whose masks equal the current runs' in every group (the common
  // case) only counts towards `same`, added to every group's run length
  // before any run is counted: the same runs, one comparison per group.
  std::uint64_t* const run_mask = run_mask_.data();
  std::uint32_t* const run_length = run_length_.data();
  std::uint32_t same = 0;
  for (std::size_t b = 0; b < hashes_.size(); ++b) {
    if (b + 8 < hashes_.size()) index_->holders.prefetch(hashes_[b + 8]);
    const std::uint64_t* masks = index_->holder_masks(hashes_[b]);
    if (masks == nullptr) break;
    std::size_t g = 0;  // (a loop, not std::equal, which calls memcmp)
    while (g < groups && masks[g] == run_mask[g]) ++g;
    if (g == groups) {
      ++same;
      continue;
    }
    for (std::size_t e = 0; e < g; ++e) run_length[e] += same + 1;
    for (; g < groups; ++g) {
      if (masks[g] == run_mask[g]) {
        run_length[g] += same + 1;
        continue;
      }
      run_length[g] += same;
      count_run(g);
      run_mask[g] = masks[g];
      run_length[g] = 1;
    }
    same = 0;
  }
  for (std::size_t g = 0; g < groups; ++g) {
    run_length[g] += same;
    count_run(g);
  }

  // Only the holders' and the session cookie's replica's scores differ from
  // the scrape's base scores.
  const double total_blocks = static_cast<double>(hashes_.size());
  ++serial_;
  if (mark_.size() < n) mark_.resize(n, 0);
  for (const std::uint32_t r : holders_) {
    if (r >= n) continue;
    prefix_[r] = static_cast<double>(matched_[r]) / total_blocks;
    scores_[r] = params_.prefix_weight * prefix_[r] + params_.queue_weight * queue_[r] +
                 params_.kv_weight * kv_[r];
    mark_[r] = serial_;
    changed_.push_back(r);
  }
  if (params_.session_weight > 0) {
    const auto cookie = cookie_.find(request.session);
    if (cookie != cookie_.end() && cookie->second < n) {
      const std::uint32_t r = cookie->second;
      scores_[r] += params_.session_weight;
      if (mark_[r] != serial_) {
        mark_[r] = serial_;
        changed_.push_back(r);
      }
    }
  }
  // The highest score: among the changed replicas, or the highest base score
  // of one unchanged (the first unchanged in ranked_ order).
  double best = -std::numeric_limits<double>::infinity();
  std::size_t unique = n;  // the one replica with the best score, if it is alone
  bool tied = false;
  for (const std::uint32_t r : changed_) {
    if (scores_[r] > best) {
      best = scores_[r];
      unique = r;
      tied = false;
    } else if (scores_[r] == best) {
      tied = true;
    }
  }
  std::size_t k = 0;
  while (k < n && mark_[ranked_[k]] == serial_) ++k;
  if (k < n) {
    const double other = base_[ranked_[k]];
    if (other > best) {
      best = other;
      unique = ranked_[k];
      tied = false;
    } else if (other == best) {
      tied = true;
    }
    // A second unchanged replica with that base score ties.
    if (other == best)
      for (++k; !tied && k < n && base_[ranked_[k]] == other; ++k)
        if (mark_[ranked_[k]] != serial_) tied = true;
  }
  // A NaN score (never from the simulator's metrics) orders nothing: the
  // general path below decides as it always would.
  bool nan = scores_nan_;
  for (const std::uint32_t r : changed_) nan = nan || std::isnan(scores_[r]);
  if (nan) tied = true;

  // Seeded Fisher-Yates shuffle, then the first highest score in that order.
  // With one highest score the order cannot change the winner: the shuffle's
  // draws are taken (the stream stays the same) without the permutation.
  std::size_t chosen = unique;
  if (tied) {
    order_.resize(n);
    for (std::size_t r = 0; r < n; ++r) order_[r] = r;
    for (std::size_t i = n - 1; i > 0; --i)
      std::swap(order_[i], order_[static_cast<std::size_t>(rng_.uniform_int(0, i))]);
    if (nan) {
      chosen = order_[0];
      for (std::size_t j = 1; j < n; ++j)
        if (scores_[order_[j]] > scores_[chosen]) chosen = order_[j];
    } else {
      // best is the highest score: the first replica in order with it wins.
      std::size_t j = 0;
      while (!(scores_[order_[j]] == best)) ++j;
      chosen = order_[j];
    }
  } else {
    // uniform_int(0, i) for i = n - 1 .. 1, values unused: below(i + 1)
    // accepts a draw x unless the low half of x * (i + 1) falls below
    // 2^64 mod (i + 1), and then draws again; the same test here (on a local
    // copy of the generator, so its state stays in registers).
    Rng rng = rng_;
    for (std::uint64_t range = n; range > 1; --range)
      for (;;) {
        const std::uint64_t low = rng.next_u64() * range;
        if (low >= range || low >= (0 - range) % range) break;
      }
    rng_ = rng;
  }

  const std::uint64_t predicted = std::min<std::uint64_t>(
      static_cast<std::uint64_t>(matched_[chosen]) * params_.block_size, prompt.size());
  predicted_ = static_cast<std::int64_t>(predicted);
  return chosen;
}

void LlmdEpp::on_routed(const RoutedRequest& request) {
  ensure_replicas(request.replica + 1);
  // Reuse choose()'s hashes when they are this prompt's (the simulator calls
  // on_routed right after choose); otherwise hash again.
  if (!hashes_valid_ || hashed_prompt_tokens_ != request.prompt.size())
    hash_blocks(request.prompt);
  hashes_valid_ = false;
  index_->add_blocks(request.replica, hashes_);
  if (params_.session_weight > 0) awaiting_response_[request.id] = request.session;
}

void LlmdEpp::on_first_token(std::uint64_t id, std::size_t replica, Tick) {
  // The response's headers set the session cookie to the replica that served it.
  const auto it = awaiting_response_.find(id);
  if (it == awaiting_response_.end()) return;
  cookie_[it->second] = static_cast<std::uint32_t>(replica);
  awaiting_response_.erase(it);
}

std::int64_t LlmdEpp::session_cookie(std::uint64_t session) const {
  const auto it = cookie_.find(session);
  return it == cookie_.end() ? -1 : static_cast<std::int64_t>(it->second);
}

}  // namespace prefixroute
