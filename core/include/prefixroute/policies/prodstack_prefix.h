// ProdstackPrefix: the vLLM production-stack router's `prefixaware` logic,
// re-implemented from its source (vllm-project/production-stack :
// src/vllm_router/routers/routing_logic.py PrefixAwareRouter, and
// src/vllm_router/prefix/hashtrie.py HashTrie).
//
// The rule. The router keeps a trie of the prompts it routed, cut into
// chunk_tokens-long chunks (the last chunk may be shorter), each node
// recording the endpoints that were sent a prompt through it; it never
// evicts ("we assume that there is no eviction"). For a new prompt it walks
// the chunks while some still-selected endpoint holds the next one,
// narrowing the selection to the holders at each step. The endpoints left --
// those with the longest chunk match, or every endpoint when not even the
// first chunk matches -- are the candidates; one is drawn uniformly
// (random.choice; here the policy's own Rng, seeded from the scenario seed,
// one draw over the candidates in index order, only when several remain).
// The prompt is then inserted for the chosen endpoint.
//
// Here the trie is an ApproxRadixTree of the routed prompts (never trimmed)
// and replica r's chunk match is floor(match(r) / chunk_tokens), plus the
// last, shorter chunk when r's routed prefix covers the whole prompt.
//
// Simplifications, named: chunks are of tokens, not characters (prefixroute's
// 128-token chunks; production-stack chunks 128 characters of the prompt
// text). The partial last chunk: production-stack matches it only when an
// identical prompt (same last partial chunk, hence the same length) went to
// that endpoint; here it counts whenever the endpoint's routed prefix covers
// the whole prompt, which also credits an endpoint that was sent a longer
// prompt extending this one. Hash collisions (xxhash64 per chunk) never
// happen here.
//
// Signals: only the router's own trie (APX). No load, no cache truth.
// predicted_cached_tokens() is the chosen replica's matched chunks x
// chunk_tokens (capped at the prompt).
// How the candidates are found without visiting every replica (the choice
// is the scan's, draw for draw): the trie's match_held lists, in replica
// order, the replicas whose routed prefix is not empty with its length; a
// replica not listed matches no chunk. The longest chunk match is taken
// over the holders; when it is at least one chunk the candidates are the
// holders at it, otherwise every replica is, and the draw over replicas
// 0..R-1 in index order is the replica itself (the list is built only for
// last_candidates()).
// Cost: one walk of the tree (O(L log F + H) for H holder entries on the
// matched path), nothing per replica holding none of the prompt, one draw,
// and one insert per request. Memory: the tree grows with every distinct
// prompt routed, as production-stack's does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/cache/approx_radix_tree.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// vLLM production-stack `prefixaware`: longest chunk match, random among the longest.
struct ProdstackPrefixParams {
  std::uint32_t chunk_tokens = 128;  ///< trie chunk
};

class ProdstackPrefix final : public RoutingPolicy {
 public:
  ProdstackPrefix(const ProdstackPrefixParams& params, std::uint64_t seed);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "prodstack_prefix"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;

  // ---- inspection, for tests ----
  /// The candidates of the last choose() (replica order) and their chunk
  /// match. O(R) when every replica was a candidate (listed on request).
  const std::vector<std::size_t>& last_candidates() const;
  std::size_t last_chunks() const { return best_chunks_; }
  const ApproxRadixTree& trie() const { return trie_; }

 private:
  ProdstackPrefixParams params_;
  Rng rng_;
  ApproxRadixTree trie_;
  std::vector<ApproxRadixTree::Held> held_;       // scratch: the trie's holders of the prompt
  mutable std::vector<std::size_t> candidates_;  // the longest matches; every replica: built by last_candidates()
  bool all_candidates_ = false;                   // no chunk matched: every replica was a candidate
  std::size_t replicas_ = 0;                      // the cluster size of the last choose()
  std::size_t best_chunks_ = 0;
  std::int64_t predicted_ = -1;
};

/// ProdstackPrefix's entry in the policy catalogue.
const PolicySpec& prodstack_prefix_policy_spec();

}  // namespace prefixroute
