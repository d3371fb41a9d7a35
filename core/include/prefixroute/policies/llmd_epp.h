// LlmdEpp: the llm-d inference scheduler's endpoint picker (EPP), as in the
// Gateway API Inference Extension's scheduler, re-implemented from its
// published scorers.
//
// What it models. Every replica gets a weighted sum of three scores in [0, 1]:
//
//   score = prefix_weight x prefix + queue_weight x queue + kv_weight x kv
//
//   prefix  matched blocks / prompt blocks over the router's APPROXIMATE
//           prefix index (below).
//   queue   (maxQ - q) / (maxQ - minQ) over the scraped queue lengths
//           (scraped().queue_length); 1 for every replica when maxQ == minQ.
//   kv      1 - scraped().kv_usage, clamped to [0, 1].
//
// The highest score wins. The scraped metrics are as stale as the last
// scrape (router.scrape_period_ms).
//
// Session affinity (session_weight > 0; 0 by default, so the three scorers
// above are the whole score). llm-d's session-affinity-scorer
// (llm-d/llm-d-inference-scheduler : pkg/plugins/scorer/session_affinity.go)
// adds session_weight x session, where session is 1 for the replica named by
// the request's `llm-d-session` cookie and 0 for every other. The cookie is
// set on each response to the replica that served it (ResponseReceived), and
// is a session cookie (maxAge 0: it never expires while the client lives).
// Here the router remembers, per session, the replica of the session's
// latest request whose first token (the response headers) has arrived
// (on_first_token); a request of that session then carries it. A request
// sent before any response of its session carries none.
//
// The approximate prefix index. The prompt is cut into block_size-token
// blocks (full blocks only, at most max_prefix_blocks of them); block k's hash
// is a 64-bit hash of (hash of block k-1, block k's tokens) -- FNV-1a over the
// 32-bit token ids started from the parent hash, then MurmurHash3's finaliser
// -- so equal hashes mean equal prefixes up to that block (up to collisions). Each replica has an LRU set of block
// hashes holding at most lru_blocks_per_replica entries. When a request is
// routed, its blocks are added to (or refreshed in) the chosen replica's set,
// in prompt order. The index is never told about engine evictions: it says
// what the router sent, not what the engine still holds. Matching follows the
// published scorer: walk the prompt's blocks in order and stop at the first
// block no replica's set holds; each replica's matched count is the number of
// walked blocks its own set holds.
//
// What it simplifies. llm-d hashes characters of the prompt text (and the
// model name into the first block) and filters endpoints (e.g. by model or
// LoRA adapter) before scoring; here tokens are hashed and every replica is a
// candidate. Metrics are the simulator's scraped ones (queue = admitted, not
// started; KV usage = cache used / capacity). No precise (KV-event) prefix
// mode and no prefill/decode disaggregation.
//
// llmd_scheduler (llmd_scheduler.h) is llm-d's scheduler as a configuration;
// in the configuration equal to this policy it routes with an LlmdEpp, and
// its general path (every replica scored per request) makes the same choices
// (tests/policies/llmd_scheduler_test.cpp). This class keeps the incremental
// scoring (below), the faster path for this one blend.
//
// Tie-breaks: the candidates are shuffled with the policy's own seeded Rng
// (Fisher-Yates, n - 1 draws per request), then the first replica with the
// highest score in shuffled order wins: a uniform seeded pick among ties.
// The draws are taken on every request; the permutation is built only when
// two replicas share the highest score (with one, no order changes the
// winner).
//
// How a choice is computed (the same numbers as scoring every replica):
//   - Queue and KV scores, and base = queue_weight x queue + kv_weight x kv,
//     are computed once per scrape (ClusterView::scrape_count; every call for
//     a view without one), with the replicas ranked by base (descending, then
//     index).
//   - Per request only the replicas that hold a walked block (the prefix
//     holders) and the session cookie's replica get their full score; the
//     best of the others is the first of the ranking not among them, and a
//     tie is a second one with the same base.
//   - Block hashes: a prompt's leading pieces (a tenant's prefix, earlier
//     turns) are looked up in a direct-mapped memo keyed by the hasher's state
//     and the piece's tokens, compared in full (8 entries per replica, at
//     least 64; pieces of at most kMemoPieceTokens); a hit yields exactly
//     the chained hashes.
//   - Holders: one lookup per block gives the block's holder masks (64
//     replicas per word, the words of one block together), and the walk
//     counts each run of blocks with equal masks once; a block equal to the
//     previous one in every word (the common case) costs one comparison per
//     word and a count.
//   - The per-replica LRU keeps each hash's latest touch time and, from its
//     first eviction on, a log of touches in time order (stale entries
//     skipped, compacted at 2 x size + 64): the same victims as a
//     recency-ordered list.
//
// Invariants: every per-replica set holds at most lru_blocks_per_replica
// distinct hashes; predicted_cached_tokens() = matched blocks x block_size on
// the last choice, capped at the prompt length.
// Cost: choose hashes the considered prefix's pieces not in the memo
// (O(min(L, block_size x max_prefix_blocks)) at worst), does one hash lookup
// per walked block plus one step per (run of equal masks, holder), O(H) for
// the holders' scores, O(R / 64) per block for the mask words, R - 1 draws,
// and O(R) more only when scores tie; O(R log R) per scrape. on_routed is
// O(blocks) expected, amortised. The index's hash tables are only looked up,
// never iterated for a result, so no container order decides one. A block
// hash of 0 is stored as 1 (0 marks empty slots).
// Memory: O(n x lru_blocks_per_replica) at most, plus the memo (its entries
// keep one piece's tokens and hashes each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/base/random.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// llm-d endpoint picker (EPP): weighted prefix, queue and KV-usage scorers.
struct LlmdEppParams {
  std::uint32_t block_size = 16;
  std::uint32_t max_prefix_blocks = 256;          ///< prompt blocks considered
  std::uint64_t lru_blocks_per_replica = 31250;   ///< approximate index capacity
  double prefix_weight = 3;
  double queue_weight = 2;
  double kv_weight = 2;
  double session_weight = 0;  ///< llm-d session-affinity scorer weight; 0 = off
};

class LlmdEpp final : public RoutingPolicy {
 public:
  /// The longest piece the block-hash memo keeps (tokens).
  static constexpr std::uint32_t kMemoPieceTokens = 1024;

  /// `seed` is the scenario seed; the policy derives its own stream from it.
  LlmdEpp(const LlmdEppParams& params, std::uint64_t seed);
  ~LlmdEpp() override;
  LlmdEpp(const LlmdEpp&) = delete;
  LlmdEpp& operator=(const LlmdEpp&) = delete;

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "llmd_epp"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;

  /// The chained hashes of the prompt's considered blocks (full blocks, at
  /// most max_prefix_blocks), written into `out`.
  static void block_hashes(TokenSpan tokens, std::uint32_t block_size, std::uint32_t max_blocks,
                           std::vector<std::uint64_t>& out);

  // ---- inspection, for tests ----
  /// Whether replica's index holds `hash`.
  bool index_contains(std::size_t replica, std::uint64_t hash) const;
  /// Number of hashes in replica's index.
  std::size_t index_size(std::size_t replica) const;
  /// The block hashes of the last prompt choose() saw (block_hashes of its tokens).
  const std::vector<std::uint64_t>& last_block_hashes() const { return hashes_; }
  /// Per-replica scores (and their parts) computed by the last choose().
  const std::vector<double>& last_scores() const { return scores_; }
  const std::vector<double>& last_prefix_scores() const { return prefix_; }
  const std::vector<double>& last_queue_scores() const { return queue_; }
  const std::vector<double>& last_kv_scores() const { return kv_; }
  /// Per replica the index has seen: the walked blocks it held at the last
  /// choose() (at least as many entries as the cluster had replicas).
  const std::vector<std::uint32_t>& last_matched_blocks() const { return matched_; }
  /// The replica the session's cookie names, or -1 when it has none.
  std::int64_t session_cookie(std::uint64_t session) const;
  const LlmdEppParams& params() const { return params_; }

 private:
  // The per-replica LRU sets plus a cluster-wide map from block hash to the
  // replicas holding it (so the prefix walk does one lookup per block, not one
  // per replica). Defined in the source file.
  struct Index;
  // Recently hashed pieces and their block hashes (defined in the source file).
  struct HashMemo;

  void ensure_replicas(std::size_t n);
  /// block_hashes of the prompt's first max_prefix_blocks blocks, into hashes_.
  void hash_blocks(const Prompt& prompt);
  /// The queue and KV scores of the view's current scrape (recomputed only
  /// when its scrape_count() changes), and the scores back to them.
  void score_scrapes(const ClusterView& cluster);

  LlmdEppParams params_;
  Rng rng_;
  std::unique_ptr<Index> index_;
  std::unique_ptr<HashMemo> memo_;
  std::vector<std::uint64_t> hashes_;    // the last chosen prompt's block hashes
  std::vector<std::uint32_t> matched_;   // per replica: walked blocks held at the last choose (zero but holders_)
  std::vector<std::uint32_t> holders_;   // replicas with matched_ > 0 at the last choose
  std::vector<std::uint64_t> run_mask_;  // per holder group: the mask of the current run of blocks
  std::vector<std::uint32_t> run_length_;
  std::vector<double> prefix_, queue_, kv_, scores_;
  std::vector<double> base_;             // per replica: the score with no prefix or session part
  std::vector<std::uint32_t> ranked_;    // replicas by base_ descending, then index
  std::vector<std::uint32_t> changed_;   // replicas whose prefix_ / scores_ differ from base
  std::vector<std::uint64_t> mark_;      // mark_[r] == serial_: r is in changed_ this call
  std::uint64_t serial_ = 0;
  std::optional<std::uint64_t> scored_count_;  // the scrape base_ is of
  const Replica* scored_replicas_ = nullptr;
  std::size_t scored_n_ = 0;
  bool scores_nan_ = false;              // some base_ is NaN (then every choice takes the shuffle)
  std::vector<std::size_t> order_;       // shuffled candidate order (ties only)
  std::size_t hashed_prompt_tokens_ = 0;
  bool hashes_valid_ = false;  // hashes_ belong to the prompt on_routed will see
  std::int64_t predicted_ = -1;
  std::vector<Token> block_tokens_;  // scratch: a piece's tokens when its content does not store them
  // Session affinity (session_weight > 0 only): each session's cookie, and
  // the session of each request whose response has not started. Lookups
  // only, never iterated.
  std::unordered_map<std::uint64_t, std::uint32_t> cookie_;
  std::unordered_map<std::uint64_t, std::uint64_t> awaiting_response_;
};

/// LlmdEpp's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& llmd_epp_policy_spec();

/// An upper estimate of the heap one LlmdEpp's state reaches on a run of
/// `size` (its catalogue entry's state estimate; also llmd_scheduler's in the
/// configuration it runs as an LlmdEpp).
double llmd_epp_state_bytes(const LlmdEppParams& params, const PolicyContext& context, const RoutedSize& size);

}  // namespace prefixroute
