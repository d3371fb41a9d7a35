#include "prefixroute/policies/llmd_scheduler.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "prefixroute/base/deterministic_math.h"
#include "prefixroute/policies/llmd_epp.h"

namespace prefixroute {

const PolicySpec& llmd_scheduler_policy_spec() {
  static const PolicySpec spec = policy_spec<LlmdSchedulerParams>(
      {"llmd_scheduler", "llm-d scheduler",
       "llm-d's endpoint picker as a configuration: affinity filter, weighted scorers (prefix approximate or "
       "from KV events, queue, KV usage, active requests, no-hit LRU, load, token load, session), picker.",
       {"#92400e", "#fdba74"}},
      {choice<&LlmdSchedulerParams::filter>(
           "filter", "Filter", "none,prefix_cache_affinity",
           "none: every replica is a candidate; prefix_cache_affinity: llm-d's prefix-cache-affinity-filter keeps "
           "the replicas whose prefix fraction reaches affinity_threshold unless none does or the TTFT gate opens."),
       param<&LlmdSchedulerParams::affinity_threshold>(
           "affinity_threshold", "Affinity threshold", 0, 1, "",
           "Affinity filter: the prefix fraction (matched / prompt blocks) that makes a replica sticky; 0 = the "
           "filter keeps every replica."),
       param<&LlmdSchedulerParams::max_ttft_penalty_ms>(
           "max_ttft_penalty_ms", "Max TTFT penalty", 0, 1e9, "ms",
           "Affinity filter: every replica stays when the best sticky replica's TTFT estimate exceeds the best "
           "other's by more than this; 0 = always stick."),
       param<&LlmdSchedulerParams::peak_prefill_tokens_per_s>(
           "peak_prefill_tokens_per_s", "Peak prefill throughput", 1, 1e9, "tokens/s",
           "Affinity filter: TTFT estimate = the router's in-flight prompt tokens on the replica / this "
           "(llm-d's peakPrefillThroughput)."),
       param<&LlmdSchedulerParams::exploration_probability>(
           "exploration_probability", "Exploration probability", 0, 1, "",
           "Affinity filter: the chance (seeded) that it keeps every replica."),
       param<&LlmdSchedulerParams::prefix_weight>("prefix_weight", "Prefix scorer weight", 0, 1e6, "",
                                                  "Weight of the prefix-cache-scorer; 0 = absent."),
       choice<&LlmdSchedulerParams::prefix_mode>(
           "prefix_mode", "Prefix index", "approximate,precise",
           "approximate: an LRU index of the blocks the router sent (llm-d's default); precise: the engines' "
           "caches as their KV events show them, router.kv_event_lag_ms late, min-max normalised."),
       param<&LlmdSchedulerParams::block_size>("block_size", "Block size", 1, 65536, "tokens",
                                               "Prefix index block size: blockSizeTokens (approximate; a hashBlockSize in characters / 4) or the engines' KV block size (precise)."),
       param<&LlmdSchedulerParams::max_prefix_blocks>("max_prefix_blocks", "Prefix blocks considered", 1, 1e6,
                                                      "blocks", "Approximate index: prompt blocks considered."),
       param<&LlmdSchedulerParams::lru_blocks_per_replica>(
           "lru_blocks_per_replica", "Index blocks per replica", 1, 1e9, "blocks",
           "Approximate index: capacity per replica (lruCapacityPerServer)."),
       param<&LlmdSchedulerParams::queue_weight>("queue_weight", "Queue scorer weight", 0, 1e6, "",
                                                 "Weight of the queue-scorer (scraped waiting requests, min-max)."),
       param<&LlmdSchedulerParams::kv_weight>("kv_weight", "KV scorer weight", 0, 1e6, "",
                                              "Weight of the kv-cache-utilization-scorer (1 - scraped KV usage)."),
       param<&LlmdSchedulerParams::active_request_weight>(
           "active_request_weight", "Active-request scorer weight", 0, 1e6, "",
           "Weight of the active-request-scorer (the router's requests in flight, against the busiest replica)."),
       param<&LlmdSchedulerParams::no_hit_lru_weight>(
           "no_hit_lru_weight", "No-hit LRU scorer weight", 0, 1e6, "",
           "Weight of the no-hit-lru-scorer (a cold request prefers the replica least recently sent one)."),
       param<&LlmdSchedulerParams::load_aware_weight>(
           "load_aware_weight", "Load-aware scorer weight", 0, 1e6, "",
           "Weight of the load-aware-scorer (0.5 for an empty scraped queue, down to 0 at the threshold)."),
       param<&LlmdSchedulerParams::load_aware_threshold>("load_aware_threshold", "Load-aware threshold", 1, 1e9,
                                                         "requests", "Load-aware scorer: the queue length scored 0."),
       param<&LlmdSchedulerParams::token_load_weight>(
           "token_load_weight", "Token-load scorer weight", 0, 1e6, "",
           "Weight of the token-load-scorer (1 - the router's in-flight prompt tokens / the threshold)."),
       param<&LlmdSchedulerParams::token_load_threshold_tokens>(
           "token_load_threshold_tokens", "Token-load threshold", 1, 1e15, "tokens",
           "Token-load scorer: the in-flight tokens scored 0 (queueThresholdTokens)."),
       param<&LlmdSchedulerParams::session_weight>(
           "session_weight", "Session scorer weight", 0, 1e6, "",
           "Weight of the session-affinity-scorer: 1 for the replica that served the session's last response."),
       choice<&LlmdSchedulerParams::picker>(
           "picker", "Picker", "max_score,random,weighted_random",
           "max_score: the highest weighted score, ties drawn (seeded); random: a uniform candidate; "
           "weighted_random: A-Res sampling with the weighted scores as weights.")},
      [](const LlmdSchedulerParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<LlmdScheduler>(p, context.seed);
      },
      [](const LlmdSchedulerParams& p, const PolicyContext& context, const RoutedSize& size) {
        // llmd_epp's configuration runs an LlmdEpp: its estimate.
        if (const std::optional<LlmdEppParams> epp = LlmdScheduler::llmd_epp_configuration(p))
          return llmd_epp_state_bytes(*epp, context, size);
        // Approximate index: per held block an LRU slot, its map entry (open
        // addressing at load <= 1/2) and log entries, and the hash's holder
        // record (its map entry and one 64-bit word per 64 replicas, in an
        // array grown by doubling): as llmd_epp's index, ~96 bytes plus 16 per
        // extra word (tests/experiment_memory_test.cpp measures it on 4,096
        // replicas), at most the capacity and at most the blocks routed.
        double index = 0;
        if (p.prefix_mode == LlmdPrefixMode::Approximate) {
          const double capacity = static_cast<double>(p.lru_blocks_per_replica) * context.cluster.replicas;
          const double routed = std::min(size.requests * p.max_prefix_blocks, size.prompt_tokens / p.block_size);
          const double extra_words = std::ceil(static_cast<double>(context.cluster.replicas) / 64.0) - 1.0;
          index = std::min(capacity, routed) * (96.0 + 16.0 * extra_words);
        }
        // Per request at most one in-flight entry (when tokens are counted)
        // and, with the session scorer, one awaiting session and one cookie
        // (unordered_map nodes and buckets, ~64 bytes each).
        const bool counts_tokens = p.token_load_weight > 0 ||
                                   (p.filter == LlmdFilter::PrefixCacheAffinity && p.max_ttft_penalty_ms > 0);
        const double per_request = (counts_tokens ? 64.0 : 0.0) + (p.session_weight > 0 ? 128.0 : 0.0);
        return index + size.requests * per_request;
      });
  return spec;
}

namespace {
// Salt of the policy's random stream: llmd_epp's ("llmd" in ASCII), so the
// configuration equal to llmd_epp draws the same tie-breaks.
constexpr std::uint64_t kLlmdSchedulerStreamSalt = 0x6c6c6d64ULL;
}  // namespace

LlmdScheduler::LlmdScheduler(const LlmdSchedulerParams& params, std::uint64_t seed, bool general_path)
    : params_(params), rng_(mix_seed(seed, kLlmdSchedulerStreamSalt)) {
  if (params_.block_size == 0) params_.block_size = 1;
  if (params_.lru_blocks_per_replica == 0) params_.lru_blocks_per_replica = 1;
  if (params_.load_aware_threshold == 0) params_.load_aware_threshold = 1;
  if (params_.token_load_threshold_tokens == 0) params_.token_load_threshold_tokens = 1;
  // LlmdEpp derives its stream from the same seed and salt as rng_ (which
  // this path then never draws from).
  if (const std::optional<LlmdEppParams> epp = llmd_epp_configuration(params_); epp && !general_path)
    epp_ = std::make_unique<LlmdEpp>(*epp, seed);
}

std::optional<LlmdEppParams> LlmdScheduler::llmd_epp_configuration(const LlmdSchedulerParams& p) {
  if (p.filter != LlmdFilter::None || p.prefix_mode != LlmdPrefixMode::Approximate ||
      p.picker != LlmdPicker::MaxScore || p.active_request_weight > 0 || p.no_hit_lru_weight > 0 ||
      p.load_aware_weight > 0 || p.token_load_weight > 0)
    return std::nullopt;
  LlmdEppParams e;
  e.block_size = std::max<std::uint32_t>(1, p.block_size);
  e.max_prefix_blocks = p.max_prefix_blocks;
  e.lru_blocks_per_replica = std::max<std::uint64_t>(1, p.lru_blocks_per_replica);
  e.prefix_weight = p.prefix_weight;
  e.queue_weight = p.queue_weight;
  e.kv_weight = p.kv_weight;
  e.session_weight = p.session_weight;
  return e;
}

void LlmdScheduler::ensure_replicas(std::size_t n) {
  while (lru_.size() < n) lru_.emplace_back(params_.lru_blocks_per_replica);
  if (in_flight_tokens_.size() < n) in_flight_tokens_.resize(n, 0);
  const std::size_t words = std::max<std::size_t>(words_, (n + 63) / 64);
  if (words != words_) {  // wider records: each record's masks move to the new stride
    std::vector<std::uint64_t> wider(masks_.size() / words_ * words, 0);
    for (std::size_t k = 0; k < masks_.size() / words_; ++k)
      std::copy_n(masks_.begin() + static_cast<std::ptrdiff_t>(k * words_), words_,
                  wider.begin() + static_cast<std::ptrdiff_t>(k * words));
    masks_.swap(wider);
    words_ = words;
  }
}

void LlmdScheduler::set_holder(std::uint64_t hash, std::uint32_t replica) {
  std::uint32_t* record = record_of_.find(hash);
  std::uint32_t k;
  if (record != nullptr) {
    k = *record;
  } else if (!free_records_.empty()) {
    k = free_records_.back();  // freed with every mask zero
    free_records_.pop_back();
    record_of_.insert(hash, k);
  } else {
    k = static_cast<std::uint32_t>(masks_.size() / words_);
    masks_.resize(masks_.size() + words_, 0);
    record_of_.insert(hash, k);
  }
  masks_[k * words_ + replica / 64] |= std::uint64_t{1} << (replica % 64);
}

void LlmdScheduler::clear_holder(std::uint64_t hash, std::uint32_t replica) {
  const std::uint32_t* record = record_of_.find(hash);
  if (record == nullptr) return;  // evicted twice in one call: already cleared
  const std::uint32_t k = *record;
  std::uint64_t* m = masks_.data() + static_cast<std::size_t>(k) * words_;
  m[replica / 64] &= ~(std::uint64_t{1} << (replica % 64));
  if (std::any_of(m, m + words_, [](std::uint64_t w) { return w != 0; })) return;
  free_records_.push_back(k);
  record_of_.erase(hash);
}

void LlmdScheduler::index_blocks(std::uint32_t replica) {
  // Touched in prompt order; the records gain every newly held hash, then
  // lose every evicted hash the set no longer holds (one added and evicted
  // within the call, or evicted and added back, comes out right), whose stale
  // LRU map entry is dropped.
  BlockLru& set = lru_[replica];
  evicted_.clear();
  for (const std::uint64_t hash : hashes_) {
    std::uint64_t out = 0;
    if (set.touch(hash, out)) set_holder(hash, replica);
    if (out != 0) evicted_.push_back(out);
  }
  for (const std::uint64_t gone : evicted_) {
    if (set.contains(gone)) continue;
    set.forget(gone);
    clear_holder(gone, replica);
  }
}

std::uint64_t LlmdScheduler::in_flight_tokens(std::size_t replica) const {
  return replica < in_flight_tokens_.size() ? in_flight_tokens_[replica] : 0;
}

void LlmdScheduler::hash_prompt(const Prompt& prompt) {
  const std::size_t blocks = std::min<std::size_t>(prompt.size() / params_.block_size, params_.max_prefix_blocks);
  tokens_.resize(blocks * params_.block_size);
  if (!tokens_.empty()) prompt.copy(0, tokens_.size(), tokens_.data());
  LlmdEpp::block_hashes(TokenSpan(tokens_.data(), tokens_.size()), params_.block_size, params_.max_prefix_blocks,
                        hashes_);
}

bool LlmdScheduler::match_prefix(const Prompt& prompt, const ClusterView& cluster) {
  const std::size_t n = cluster.size();
  matched_.assign(n, 0);
  prefix_fraction_.assign(n, 0.0);
  std::size_t total = 0;
  if (params_.prefix_mode == LlmdPrefixMode::Approximate) {
    hash_prompt(prompt);
    hashed_length_ = prompt.size();
    hashes_valid_ = true;
    total = hashes_.size();
    // Walk the blocks while some replica's set (any the index knows, shown
    // or not) holds the block; each shown holder counts it.
    for (const std::uint64_t hash : hashes_) {
      const std::uint32_t* record = record_of_.find(hash);
      if (record == nullptr) break;
      const std::uint64_t* m = masks_.data() + static_cast<std::size_t>(*record) * words_;
      for (std::size_t g = 0; g < words_; ++g)
        for (std::uint64_t bits = m[g]; bits != 0; bits &= bits - 1) {
          const std::size_t r = g * 64 + static_cast<std::size_t>(std::countr_zero(bits));
          if (r < n) ++matched_[r];
        }
    }
  } else {
    cluster.match_held(prompt, CacheView::Precise, held_);
    total = prompt.size() / params_.block_size;
    for (const PrefixIndex::Held& h : held_)
      if (h.replica < n) matched_[h.replica] = static_cast<std::uint32_t>(h.matched / params_.block_size);
  }
  bool hit = false;
  for (std::size_t r = 0; r < n; ++r) {
    hit = hit || matched_[r] > 0;
    if (total > 0) prefix_fraction_[r] = static_cast<double>(matched_[r]) / static_cast<double>(total);
  }
  return hit;
}

void LlmdScheduler::filter(const ClusterView& cluster) {
  const std::size_t n = cluster.size();
  candidates_.resize(n);
  for (std::size_t r = 0; r < n; ++r) candidates_[r] = static_cast<std::uint32_t>(r);
  if (params_.filter == LlmdFilter::None || n <= 1 || params_.affinity_threshold <= 0) return;
  if (params_.exploration_probability > 0 && rng_.uniform01() < params_.exploration_probability) return;
  sticky_.clear();
  others_.clear();
  for (std::uint32_t r = 0; r < n; ++r)
    (prefix_fraction_[r] >= params_.affinity_threshold ? sticky_ : others_).push_back(r);
  if (sticky_.empty()) return;
  if (params_.max_ttft_penalty_ms > 0 && !others_.empty()) {
    auto best_ttft_ms = [&](const std::vector<std::uint32_t>& set) {
      double best = std::numeric_limits<double>::max();
      for (const std::uint32_t r : set)
        best = std::min(best, static_cast<double>(in_flight_tokens(r)) / params_.peak_prefill_tokens_per_s * 1000);
      return best;
    };
    if (best_ttft_ms(sticky_) - best_ttft_ms(others_) > params_.max_ttft_penalty_ms) return;
  }
  candidates_ = sticky_;
}

void LlmdScheduler::score(const RouteRequest& request, const ClusterView& cluster, bool hit) {
  const std::size_t n = cluster.size();
  for (std::vector<double>* v : {&prefix_, &queue_, &kv_, &active_, &no_hit_, &load_aware_, &token_load_, &scores_})
    v->assign(n, 0.0);
  const LlmdSchedulerParams& p = params_;

  if (p.prefix_weight > 0) {
    if (p.prefix_mode == LlmdPrefixMode::Approximate) {
      for (const std::uint32_t r : candidates_) prefix_[r] = prefix_fraction_[r];
    } else {
      // Min-max over every replica the KV-event index returns (those holding
      // the first block), candidates or not; the others score 0.
      std::uint32_t lo = std::numeric_limits<std::uint32_t>::max(), hi = 0;
      for (std::size_t r = 0; r < n; ++r)
        if (matched_[r] > 0) {
          lo = std::min(lo, matched_[r]);
          hi = std::max(hi, matched_[r]);
        }
      for (const std::uint32_t r : candidates_)
        if (matched_[r] > 0)
          prefix_[r] = lo == hi ? 1.0 : static_cast<double>(matched_[r] - lo) / static_cast<double>(hi - lo);
    }
  }
  if (p.queue_weight > 0) {
    std::uint32_t lo = std::numeric_limits<std::uint32_t>::max(), hi = 0;
    for (const std::uint32_t r : candidates_) {
      lo = std::min(lo, cluster[r].scraped().queue_length);
      hi = std::max(hi, cluster[r].scraped().queue_length);
    }
    for (const std::uint32_t r : candidates_)
      queue_[r] = hi == lo ? 1.0
                           : static_cast<double>(hi - cluster[r].scraped().queue_length) / static_cast<double>(hi - lo);
  }
  if (p.kv_weight > 0)
    for (const std::uint32_t r : candidates_) kv_[r] = std::clamp(1.0 - cluster[r].scraped().kv_usage, 0.0, 1.0);
  if (p.active_request_weight > 0) {
    // The busiest count of every replica the scorer tracks, not only the candidates'.
    std::uint32_t most = 0;
    for (std::size_t r = 0; r < n; ++r) most = std::max(most, cluster[r].in_flight());
    for (const std::uint32_t r : candidates_) {
      const std::uint32_t c = cluster[r].in_flight();
      active_[r] = c == 0 ? 1.0 : static_cast<double>(most - c) / static_cast<double>(most);
    }
  }
  if (p.no_hit_lru_weight > 0) {
    const std::size_t m = candidates_.size();
    if (hit) {
      for (const std::uint32_t r : candidates_) no_hit_[r] = 0.5;
    } else if (m == 1) {
      no_hit_[candidates_[0]] = 1.0;
    } else {
      no_hit_rank_.assign(n, 0);
      for (std::size_t k = 0; k < no_hit_order_.size(); ++k)
        if (no_hit_order_[k] < n) no_hit_rank_[no_hit_order_[k]] = static_cast<std::uint32_t>(k + 1);
      std::size_t never = 0;
      for (const std::uint32_t r : candidates_) never += no_hit_rank_[r] == 0 ? 1 : 0;
      std::size_t next_never = 0;
      for (const std::uint32_t r : candidates_) {
        const std::size_t rank = no_hit_rank_[r] == 0 ? next_never++ : never + no_hit_rank_[r] - 1;
        no_hit_[r] = std::max(0.0, 1.0 - static_cast<double>(rank) / static_cast<double>(m - 1));
      }
    }
  }
  if (p.load_aware_weight > 0) {
    const double threshold = static_cast<double>(p.load_aware_threshold);
    for (const std::uint32_t r : candidates_) {
      const double q = static_cast<double>(cluster[r].scraped().queue_length);
      load_aware_[r] = q == 0 ? 0.5 : 0.5 * (1.0 - std::min(q, threshold) / threshold);
    }
  }
  if (p.token_load_weight > 0) {
    const double threshold = static_cast<double>(p.token_load_threshold_tokens);
    for (const std::uint32_t r : candidates_) {
      const double t = static_cast<double>(in_flight_tokens(r));
      token_load_[r] = t <= 0 ? 1.0 : 1.0 - std::min(t, threshold) / threshold;
    }
  }
  std::int64_t session_replica = -1;
  if (p.session_weight > 0) {
    const auto cookie = cookie_.find(request.session);
    if (cookie != cookie_.end()) session_replica = cookie->second;
  }
  // The weighted sum in the fixed scorer order; an absent scorer adds nothing.
  for (const std::uint32_t r : candidates_) {
    double s = 0;
    if (p.prefix_weight > 0) s += p.prefix_weight * prefix_[r];
    if (p.queue_weight > 0) s += p.queue_weight * queue_[r];
    if (p.kv_weight > 0) s += p.kv_weight * kv_[r];
    if (p.active_request_weight > 0) s += p.active_request_weight * active_[r];
    if (p.no_hit_lru_weight > 0) s += p.no_hit_lru_weight * no_hit_[r];
    if (p.load_aware_weight > 0) s += p.load_aware_weight * load_aware_[r];
    if (p.token_load_weight > 0) s += p.token_load_weight * token_load_[r];
    if (p.session_weight > 0 && static_cast<std::int64_t>(r) == session_replica) s += p.session_weight;
    scores_[r] = s;
  }
}

std::size_t LlmdScheduler::pick() {
  const std::size_t m = candidates_.size();
  if (m == 1) return candidates_[0];
  switch (params_.picker) {
    case LlmdPicker::Random:
      return candidates_[static_cast<std::size_t>(rng_.below(m))];
    case LlmdPicker::WeightedRandom: {
      // A-Res: the largest U^(1 / w), compared as ln(U) / w (the same order).
      std::size_t best = m;
      double best_key = -std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < m; ++k) {
        const double w = scores_[candidates_[k]];
        if (!(w > 0)) continue;
        double u = rng_.uniform01();
        if (u == 0) u = 1e-10;
        const double key = dmath::log(u) / w;
        if (best == m || key > best_key) {
          best = k;
          best_key = key;
        }
      }
      if (best == m) return candidates_[static_cast<std::size_t>(rng_.below(m))];  // every score 0: uniform
      return candidates_[best];
    }
    case LlmdPicker::MaxScore:
      break;
  }
  // Seeded Fisher-Yates shuffle, then the first highest score in that order.
  order_.assign(candidates_.begin(), candidates_.end());
  for (std::size_t i = m - 1; i > 0; --i) std::swap(order_[i], order_[static_cast<std::size_t>(rng_.uniform_int(0, i))]);
  std::uint32_t chosen = order_[0];
  for (std::size_t j = 1; j < m; ++j)
    if (scores_[order_[j]] > scores_[chosen]) chosen = order_[j];
  return chosen;
}

std::size_t LlmdScheduler::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const std::size_t n = cluster.size();
  if (epp_) {
    if (candidates_.size() != n) {  // every replica is a candidate (no filter)
      candidates_.resize(n);
      for (std::size_t r = 0; r < n; ++r) candidates_[r] = static_cast<std::uint32_t>(r);
    }
    const std::size_t chosen = epp_->choose(request, cluster, now);
    predicted_ = epp_->predicted_cached_tokens();
    return chosen;
  }
  ensure_replicas(n);
  bool hit = false;
  if (reads_prefix()) {
    hit = match_prefix(request.prompt, cluster);
  } else {
    matched_.assign(n, 0);
    prefix_fraction_.assign(n, 0.0);
  }
  filter(cluster);
  score(request, cluster, hit);
  const std::size_t chosen = pick();
  last_cold_ = !hit;
  choice_pending_ = true;
  chosen_length_ = request.prompt.size();
  chosen_replica_ = chosen;
  predicted_ = !reads_prefix() ? -1
                               : static_cast<std::int64_t>(std::min<std::uint64_t>(
                                     static_cast<std::uint64_t>(matched_[chosen]) * params_.block_size,
                                     request.prompt.size()));
  return chosen;
}

void LlmdScheduler::on_routed(const RoutedRequest& request) {
  if (epp_) {
    epp_->on_routed(request);
    return;
  }
  ensure_replicas(request.replica + 1);
  const std::uint32_t replica = static_cast<std::uint32_t>(request.replica);
  // The choice just made for this prompt (the simulator calls on_routed right
  // after choose), or none known.
  const bool chose_it =
      choice_pending_ && chosen_length_ == request.prompt.size() && chosen_replica_ == request.replica;
  choice_pending_ = false;
  if (params_.prefix_mode == LlmdPrefixMode::Approximate && reads_prefix()) {
    if (!hashes_valid_ || hashed_length_ != request.prompt.size()) hash_prompt(request.prompt);
    index_blocks(replica);
  }
  hashes_valid_ = false;
  const bool counts_tokens = params_.token_load_weight > 0 ||
                             (params_.filter == LlmdFilter::PrefixCacheAffinity && params_.max_ttft_penalty_ms > 0);
  if (counts_tokens) {
    const std::uint64_t cached = chose_it && predicted_ > 0 ? static_cast<std::uint64_t>(predicted_) : 0;
    const std::uint64_t tokens = request.prompt.size() - std::min<std::uint64_t>(cached, request.prompt.size());
    in_flight_tokens_[replica] += tokens;
    in_flight_[request.id] = InFlight{replica, tokens};
  }
  if (params_.no_hit_lru_weight > 0 && chose_it && last_cold_) {
    // The replica becomes the most recent receiver of a cold request.
    const auto it = std::find(no_hit_order_.begin(), no_hit_order_.end(), replica);
    if (it != no_hit_order_.end()) no_hit_order_.erase(it);
    no_hit_order_.push_back(replica);
    if (no_hit_order_.size() > kNoHitLruSize) no_hit_order_.erase(no_hit_order_.begin());
  }
  if (params_.session_weight > 0) awaiting_response_[request.id] = request.session;
}

void LlmdScheduler::release_tokens(std::uint64_t id) {
  const auto flight = in_flight_.find(id);
  if (flight == in_flight_.end()) return;
  in_flight_tokens_[flight->second.replica] -= flight->second.tokens;
  in_flight_.erase(flight);
}

void LlmdScheduler::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  if (epp_) {
    epp_->on_completed(id, replica, now);
    return;
  }
  release_tokens(id);
  awaiting_response_.erase(id);
}

void LlmdScheduler::on_first_token(std::uint64_t id, std::size_t replica, Tick now) {
  if (epp_) {
    epp_->on_first_token(id, replica, now);
    return;
  }
  // Prefill is done: its prompt tokens leave the in-flight count.
  release_tokens(id);
  // The response's headers set the session cookie to the replica that served it.
  const auto it = awaiting_response_.find(id);
  if (it == awaiting_response_.end()) return;
  cookie_[it->second] = static_cast<std::uint32_t>(replica);
  awaiting_response_.erase(it);
}

}  // namespace prefixroute
