#include "prefixroute/policies/prodstack_prefix.h"

#include <algorithm>

namespace prefixroute {

const PolicySpec& prodstack_prefix_policy_spec() {
  static const PolicySpec spec = policy_spec<ProdstackPrefixParams>(
      {"prodstack_prefix", "vLLM production-stack prefix",
       "vLLM production-stack prefixaware: longest match over 128-token chunks of routed prompts, random among the "
       "longest.",
       {"#b91c1c", "#fca5a5"}},
      {param<&ProdstackPrefixParams::chunk_tokens>("chunk_tokens", "Chunk size", 1, 65536, "tokens",
                                                   "Chunk of the router's prefix trie: matches count whole chunks.")},
      [](const ProdstackPrefixParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<ProdstackPrefix>(p, context.seed);
      });
  return spec;
}

namespace {
// Salt of the policy's random stream ("pstack").
constexpr std::uint64_t kProdstackPrefixStreamSalt = 0x70737461636bULL;
}  // namespace

ProdstackPrefix::ProdstackPrefix(const ProdstackPrefixParams& params, std::uint64_t seed)
    : params_(params), rng_(mix_seed(seed, kProdstackPrefixStreamSalt)) {
  if (params_.chunk_tokens == 0) params_.chunk_tokens = 1;
}

std::size_t ProdstackPrefix::choose(const RouteRequest& request, const ClusterView& cluster, Tick) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  trie_.set_replicas(n);
  trie_.match_held(prompt, held_);
  const std::size_t chunk = params_.chunk_tokens;
  const bool partial_last = prompt.size() % chunk != 0;
  const auto chunks_of = [&](std::size_t m) {
    return m / chunk + (partial_last && m == prompt.size() ? 1 : 0);
  };
  // Only the holders (replica order) can match a chunk; every other replica
  // matches 0 tokens, hence 0 chunks.
  best_chunks_ = 0;
  for (const ApproxRadixTree::Held& h : held_)
    if (h.replica < n) best_chunks_ = std::max(best_chunks_, chunks_of(h.matched));
  candidates_.clear();
  all_candidates_ = best_chunks_ == 0;
  replicas_ = n;
  std::size_t chosen = 0;
  if (all_candidates_) {
    // No chunk matched anywhere: the candidates are every replica in index
    // order, so the draw's index is the replica (listed only on request).
    chosen = n == 1 ? 0 : static_cast<std::size_t>(rng_.below(n));
  } else {
    for (const ApproxRadixTree::Held& h : held_)
      if (h.replica < n && chunks_of(h.matched) == best_chunks_) candidates_.push_back(h.replica);
    chosen = candidates_.size() == 1 ? candidates_.front()
                                     : candidates_[static_cast<std::size_t>(rng_.below(candidates_.size()))];
  }
  predicted_ = static_cast<std::int64_t>(std::min<std::size_t>(best_chunks_ * chunk, prompt.size()));
  return chosen;
}

const std::vector<std::size_t>& ProdstackPrefix::last_candidates() const {
  if (all_candidates_ && candidates_.size() != replicas_) {
    candidates_.resize(replicas_);
    for (std::size_t r = 0; r < replicas_; ++r) candidates_[r] = r;
  }
  return candidates_;
}

void ProdstackPrefix::on_routed(const RoutedRequest& request) {
  trie_.set_replicas(request.replica + 1);
  trie_.insert(request.prompt, request.replica);
}

}  // namespace prefixroute
