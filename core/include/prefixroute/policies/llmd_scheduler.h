// LlmdScheduler: llm-d's endpoint picker (EPP) as a configuration, the way an
// EndpointPickerConfig writes it: an optional filter, a weighted sum of
// scorers, a picker. Each plugin is re-implemented from its published source
// (the project and file are named per plugin below) with its shipped
// defaults and normalisation; a scorer of weight 0 is absent from the
// profile. Every score is in [0, 1] and the weighted sum is taken in the
// fixed order of the list below (llm-d sums in profile order; addition order
// only moves the last bit).
//
// Filter (filter = prefix_cache_affinity; none by default).
//   prefix-cache-affinity-filter (llm-d/llm-d-router :
//   pkg/epp/framework/plugins/scheduling/filter/prefixcacheaffinity/plugin.go,
//   TTFT source prefillThroughput, its default): with probability
//   exploration_probability every replica stays; else the sticky replicas
//   (prefix fraction >= affinity_threshold, the fraction the prefix scorer's
//   index gives: matched blocks / prompt blocks) are kept, unless there are
//   none, or the best sticky replica's TTFT estimate exceeds the best other
//   replica's by more than max_ttft_penalty_ms (0: never), the estimate being
//   in-flight tokens / peak_prefill_tokens_per_s x 1000 ms.
//
// Scorers, in summing order (weight <key>_weight each):
//   prefix          prefix-cache-scorer. approximate (kubernetes-sigs/
//                   gateway-api-inference-extension : pkg/epp/scheduling/
//                   framework/plugins/multi/prefix/plugin.go, indexer.go): the
//                   router's own LRU index of the blocks it routed, exactly as
//                   llmd_epp.h describes it (the same hashes, walk and LRU):
//                   matched blocks / prompt blocks. precise
//                   (llm-d/llm-d-inference-scheduler : pkg/plugins/scorer/
//                   precise_prefix_cache.go and its
//                   indexedScoresToNormalizedScoredPods, with
//                   llm-d/llm-d-kv-cache-manager : pkg/kvcache/kvblock_scorer.go
//                   LongestPrefixScorer): each replica's full blocks held
//                   consecutively from the start in the cache its KV events
//                   show (precise_view(), lagging router.kv_event_lag_ms);
//                   replicas holding at least the first block are min-max
//                   normalised among themselves ((m - min) / (max - min), 1
//                   for all when equal), every other replica scores 0.
//   queue           queue-scorer (gateway-api-inference-extension :
//                   pkg/epp/scheduling/framework/plugins/scorer/queue.go):
//                   (maxQ - q) / (maxQ - minQ) over the candidates' scraped
//                   queue lengths, 1 for all when equal.
//   kv              kv-cache-utilization-scorer (same folder,
//                   kvcache_utilization.go): 1 - scraped KV usage, clamped.
//   active_request  active-request-scorer (llm-d-inference-scheduler :
//                   pkg/plugins/scorer/active_request.go): with c the
//                   router's requests in flight on the replica and M the
//                   largest count of any replica, 1 when c = 0, else (M - c) / M.
//   no_hit_lru      no-hit-lru-scorer (pkg/plugins/scorer/no_hit_lru.go): 0.5
//                   for every candidate when some replica holds the prompt's
//                   first block (a hit); on a cold request, with N candidates,
//                   the replicas never sent a cold request first (in replica
//                   order, rank 0, 1, ...), then the others from least to most
//                   recently sent one: 1 - rank / (N - 1), at least 0 (1 when
//                   N = 1). The replica a cold request is routed to becomes
//                   the most recent (an LRU of 1,024 replicas, its default).
//   load_aware      load-aware-scorer (pkg/plugins/scorer/load_aware.go): 0.5
//                   for an empty scraped queue, else 0.5 x (1 - min(q, T) / T),
//                   T = load_aware_threshold (128).
//   token_load      token-load-scorer (gateway-api-inference-extension :
//                   pkg/epp/framework/plugins/scheduling/scorer/tokenload/
//                   token_load.go):
//                   1 - min(t, T) / T (1 when t = 0), t the replica's in-flight
//                   tokens, T = token_load_threshold_tokens (4,194,304).
//   session         session-affinity-scorer (pkg/plugins/scorer/
//                   session_affinity.go): 1 for the replica that served the
//                   session's latest response, as llmd_epp.h describes.
//
// In-flight tokens (the affinity filter's TTFT estimate, token_load): the
// inflight-load-producer (llm-d/llm-d-router : pkg/epp/framework/plugins/
// requestcontrol/dataproducer/inflightload/producer.go, addEstimatedOutputTokens
// false, its default): each routed request adds its prompt tokens less what
// the prefix index says the chosen replica holds (predicted_cached_tokens())
// when routed, and removes them at its first token.
//
// Picker:
//   max_score       max-score-picker (gateway-api-inference-extension :
//                   pkg/epp/scheduling/framework/plugins/picker/
//                   max_score_picker.go): the candidates shuffled (seeded
//                   Fisher-Yates, m - 1 draws), then the first highest score.
//   random          random-picker (random_picker.go): a uniform candidate.
//   weighted_random weighted-random-picker (weighted_random_picker.go): A-Res,
//                   key = U^(1 / score) per candidate with score > 0 (U uniform
//                   in (0, 1), one draw each, in candidate order), the largest
//                   key wins (compared as ln U / score, the same order, with the
//                   project's deterministic log); all scores 0: random.
//
// llmd_epp is this policy at filter none, prefix approximate, picker
// max_score, scorers prefix/queue/kv (and session) only: the same choices
// request for request (the random stream is llmd_epp's, and the tie-break
// draws the same numbers), which tests/policies/llmd_scheduler_test.cpp
// checks on whole runs. In that configuration (llmd_epp_configuration(), the
// defaults among them) the scheduler routes with an LlmdEpp of those
// parameters, so it costs what llmd_epp costs: the queue and KV scores
// computed once per scrape, only the prefix holders rescored per request, the
// memoised block hashes (llmd_epp.h). Every other configuration takes the
// general path below; the choices of the two paths agree wherever both apply
// (the whole-run tests run the general path against llmd_epp too).
//
// What it simplifies. Endpoints are not filtered by model, LoRA adapter or
// role (no prefill/decode profiles); prompts are hashed as tokens (llm-d hashes
// the prompt's text, blockSizeTokens x 4 characters a block, the model name in
// the first block; releases before the token parameters took hashBlockSize in
// characters: 64 characters are 16 tokens at its 4 characters a token); the precise index is the lagged
// engine cache itself (no hash seed, no per-medium weights). The
// active-request scorer's two-minute request TTL is not modelled (a request
// leaves its count at completion only). The affinity filter's in-flight
// tokens do not include the current request (as the shipped filter reads
// InFlightLoad only). The no-hit-lru scorer reads the configured prefix
// index (llm-d reads the approximate producer's state; without one it calls
// every request cold). Pickers return one endpoint (maxNumOfEndpoints 1).
//
// A configuration in which no plugin reads the prefix index (no prefix
// scorer, filter, no-hit LRU or token load: llm-d's random and load-only
// profiles) keeps no index and predicts no cached length.
//
// Invariants: every score is in [0, 1] and every weight >= 0; in-flight
// tokens per replica equal the sums over routed requests not yet past their
// first token (or completion); predicted_cached_tokens() is the matched
// blocks x block_size of the chosen replica, capped at the prompt length (-1
// before a choice, or when no plugin reads the index).
// Cost per request in llmd_epp's configuration: llmd_epp's (llmd_epp.h).
// Otherwise: the prompt's considered blocks hashed (approximate; the
// tokens copied once) and walked with one lookup of the holders' record per
// block (O(R / 64) words each) until no replica holds a block, or one match_held walk of the precise
// index; O(R) for the scrape and in-flight scores, the filter and the
// picker (m - 1 draws for max_score, one for random, one per positive
// candidate for weighted_random). Hooks: O(blocks) for the approximate index
// (amortised), O(1) expected for the hash maps keyed by request and
// session (looked up, never iterated), O(min(R, 1024)) for the no-hit LRU.
// Memory: O(R x lru_blocks_per_replica) at most for the approximate index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "prefixroute/base/block_lru.h"
#include "prefixroute/base/flat_map.h"
#include "prefixroute/base/random.h"
#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/policies/llmd_epp.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// The filter in front of the scorers.
enum class LlmdFilter : std::uint8_t { None, PrefixCacheAffinity };
/// Where the prefix-cache-scorer learns what a replica holds.
enum class LlmdPrefixMode : std::uint8_t { Approximate, Precise };
/// How the candidate is picked from the weighted scores.
enum class LlmdPicker : std::uint8_t { MaxScore, Random, WeightedRandom };

/// An llm-d EndpointPickerConfig: filter, scorer weights and parameters,
/// picker. Defaults: the plugins' shipped defaults, weights as llm-d's
/// inference-scheduling guide (prefix 3, queue 2, KV 2): llmd_epp's defaults.
struct LlmdSchedulerParams {
  LlmdFilter filter = LlmdFilter::None;
  double affinity_threshold = 0.8;          ///< prefix fraction that makes a replica sticky
  double max_ttft_penalty_ms = 18000;       ///< sticky TTFT lead that reopens the pool; 0 = never
  double peak_prefill_tokens_per_s = 15928; ///< TTFT estimate = in-flight tokens / this
  double exploration_probability = 0;       ///< chance the filter keeps every replica
  double prefix_weight = 3;
  LlmdPrefixMode prefix_mode = LlmdPrefixMode::Approximate;
  std::uint32_t block_size = 16;                 ///< tokens (the producer's blockSizeTokens default)
  std::uint32_t max_prefix_blocks = 256;         ///< approximate: prompt blocks considered
  std::uint64_t lru_blocks_per_replica = 31250;  ///< approximate: index capacity per replica
  double queue_weight = 2;
  double kv_weight = 2;
  double active_request_weight = 0;
  double no_hit_lru_weight = 0;
  double load_aware_weight = 0;
  std::uint32_t load_aware_threshold = 128;      ///< queue length scored 0
  double token_load_weight = 0;
  std::uint64_t token_load_threshold_tokens = 4194304;  ///< in-flight tokens scored 0
  double session_weight = 0;
  LlmdPicker picker = LlmdPicker::MaxScore;
};

class LlmdScheduler final : public RoutingPolicy {
 public:
  /// The no-hit-lru scorer's LRU size (its default lruSize).
  static constexpr std::size_t kNoHitLruSize = 1024;

  /// `seed` is the scenario seed; the policy derives its own stream from it.
  /// `general_path` forces the general path in llmd_epp's configuration too
  /// (for tests comparing the two paths).
  LlmdScheduler(const LlmdSchedulerParams& params, std::uint64_t seed, bool general_path = false);

  /// llmd_epp's parameters when `params` is llmd_epp's blend (filter none,
  /// approximate prefix, max_score picker, no active-request, no-hit LRU,
  /// load-aware or token-load scorer); none otherwise.
  static std::optional<LlmdEppParams> llmd_epp_configuration(const LlmdSchedulerParams& params);
  /// Whether this policy routes with an LlmdEpp (llmd_epp's configuration).
  bool runs_llmd_epp() const { return epp_ != nullptr; }

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "llmd_scheduler"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;
  /// A request that ends without a first token (a timeout) releases its tokens too.
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;
  CacheView matched_view() const override {
    return params_.prefix_mode == LlmdPrefixMode::Precise ? CacheView::Precise : CacheView::None;
  }

  // ---- inspection, for tests ----
  /// The candidates the filter kept at the last choose(), in replica order.
  const std::vector<std::uint32_t>& last_candidates() const { return candidates_; }
  /// Per replica, at the last choose(): each scorer's score (0 for a replica
  /// that was not a candidate, or a scorer of weight 0) and the weighted sum.
  /// In llmd_epp's configuration: the LlmdEpp's prefix, queue, KV and
  /// weighted scores (a queue or KV scorer of weight 0 shows its unweighted
  /// score there), the other scorers' vectors empty.
  const std::vector<double>& last_prefix_scores() const { return epp_ ? epp_->last_prefix_scores() : prefix_; }
  const std::vector<double>& last_queue_scores() const { return epp_ ? epp_->last_queue_scores() : queue_; }
  const std::vector<double>& last_kv_scores() const { return epp_ ? epp_->last_kv_scores() : kv_; }
  const std::vector<double>& last_active_request_scores() const { return active_; }
  const std::vector<double>& last_no_hit_lru_scores() const { return no_hit_; }
  const std::vector<double>& last_load_aware_scores() const { return load_aware_; }
  const std::vector<double>& last_token_load_scores() const { return token_load_; }
  const std::vector<double>& last_scores() const { return epp_ ? epp_->last_scores() : scores_; }
  /// Per replica, at the last choose(): the blocks its prefix index matched
  /// (in llmd_epp's configuration, one entry per replica its index has seen).
  const std::vector<std::uint32_t>& last_matched_blocks() const {
    return epp_ ? epp_->last_matched_blocks() : matched_;
  }
  /// The router's in-flight prompt tokens on `replica` (the producer's count).
  std::uint64_t in_flight_tokens(std::size_t replica) const;
  /// Replicas that received a cold request, least recent first.
  const std::vector<std::uint32_t>& no_hit_order() const { return no_hit_order_; }
  const LlmdSchedulerParams& params() const { return params_; }

 private:
  struct InFlight {
    std::uint32_t replica;
    std::uint64_t tokens;
  };

  /// Whether any plugin reads the prefix index (the scorer, the affinity
  /// filter, the no-hit LRU, the in-flight tokens' discount); without one no
  /// index is kept and no cached length predicted.
  bool reads_prefix() const {
    return params_.prefix_weight > 0 || params_.filter == LlmdFilter::PrefixCacheAffinity ||
           params_.no_hit_lru_weight > 0 || params_.token_load_weight > 0;
  }
  void ensure_replicas(std::size_t n);
  /// Adds the prompt's considered hashes to replica's LRU set and the records.
  void index_blocks(std::uint32_t replica);
  void set_holder(std::uint64_t hash, std::uint32_t replica);
  void clear_holder(std::uint64_t hash, std::uint32_t replica);
  /// The considered blocks' chained hashes (LlmdEpp::block_hashes) into hashes_.
  void hash_prompt(const Prompt& prompt);
  /// matched_ and prefix_fraction_ for every replica; whether any holds block 0.
  bool match_prefix(const Prompt& prompt, const ClusterView& cluster);
  void filter(const ClusterView& cluster);
  void score(const RouteRequest& request, const ClusterView& cluster, bool hit);
  std::size_t pick();
  /// Removes request `id`'s tokens from the in-flight count (once).
  void release_tokens(std::uint64_t id);

  LlmdSchedulerParams params_;
  Rng rng_;
  // llmd_epp's configuration: the LlmdEpp every hook is handed to (then
  // nothing below is used).
  std::unique_ptr<LlmdEpp> epp_;
  // Approximate index: per replica, the LRU set of the block hashes routed
  // there, and for every hash some set holds the replicas holding it (one
  // record of words_ 64-bit masks), so the walk does one lookup per block.
  // Invariant: bit r of hash h's record is set iff lru_[r] holds h; a hash no
  // set holds has no record.
  std::vector<BlockLru> lru_;
  FlatMap<std::uint32_t> record_of_;     // hash -> its record
  std::vector<std::uint64_t> masks_;     // record k's masks at [k x words_, (k + 1) x words_)
  std::vector<std::uint32_t> free_records_;
  std::size_t words_ = 1;
  std::vector<std::uint64_t> hashes_;   // the last chosen prompt's considered block hashes
  std::vector<Token> tokens_;           // scratch: the considered tokens
  std::size_t hashed_length_ = 0;
  bool hashes_valid_ = false;           // hashes_ are of the prompt on_routed will see
  std::vector<PrefixIndex::Held> held_; // precise: the holders of the prompt
  std::vector<std::uint32_t> matched_;  // per replica: matched blocks
  std::vector<double> prefix_fraction_; // per replica: matched / prompt blocks
  std::vector<std::uint32_t> candidates_;
  std::vector<std::uint32_t> sticky_, others_;  // filter scratch
  std::vector<double> prefix_, queue_, kv_, active_, no_hit_, load_aware_, token_load_, scores_;
  std::vector<std::uint32_t> order_;    // picker: shuffled candidates
  std::vector<std::uint64_t> in_flight_tokens_;  // per replica
  std::vector<std::uint32_t> no_hit_order_;      // least recent first
  std::vector<std::uint32_t> no_hit_rank_;       // scratch: replica -> position + 1 (0: never)
  std::vector<std::uint64_t> evicted_;  // on_routed scratch
  bool last_cold_ = false;              // the last choice's prompt had no prefix hit
  bool choice_pending_ = false;         // a choice not yet followed by on_routed
  std::size_t chosen_length_ = 0;       // its prompt's length
  std::size_t chosen_replica_ = 0;
  std::int64_t predicted_ = -1;
  std::unordered_map<std::uint64_t, InFlight> in_flight_;  // request id -> its tokens
  std::unordered_map<std::uint64_t, std::uint32_t> cookie_;            // session -> replica
  std::unordered_map<std::uint64_t, std::uint64_t> awaiting_response_; // request id -> session
};

/// LlmdScheduler's entry in the policy catalogue.
const PolicySpec& llmd_scheduler_policy_spec();

}  // namespace prefixroute
