// Chwbl: KubeAI's load balancer, consistent hashing with bounded loads
// (CHWBL, Mirrokni et al. 2018) on the prompt prefix, re-implemented from its
// published algorithm.
//
// What it models. The key is the prompt's first key_tokens tokens (fewer when
// the prompt is shorter), hashed to 64 bits. Every replica owns virtual_nodes
// points on a 64-bit hash ring (point hashes from (replica, i)). The request
// walks clockwise from the key -- the first point at or after it, wrapping
// past the top -- and takes the first replica whose router in-flight count
// (in_flight()) is within the bound
//
//   in_flight <= load_factor x (total in flight + 1) / replicas
//
// (evaluated as in_flight x replicas <= load_factor x (total + 1), so the
// boundary is decided with one rounding). If no replica qualifies the first
// replica seen (the key's owner) takes it. Requests sharing a prefix therefore
// land on one replica until it carries more than its bounded share, then spill
// to the next replicas on the ring -- the same ones every time.
//
// What it simplifies. KubeAI hashes the request's text prefix (and model or
// adapter name) with xxHash and names ring points by endpoint address; here
// token ids are hashed with FNV-1a (32-bit words) plus MurmurHash3's
// finaliser, and point i of replica r is the finaliser applied to (r, i)
// packed in 64 bits -- a bijection, so no two points collide. Load is the
// router's own in-flight count, as in KubeAI; no engine metrics, no cache
// view. It makes no prediction of cached tokens.
//
// Invariants: the ring holds replicas x virtual_nodes points sorted by
// (hash, replica) and is rebuilt only when the replica count changes. With
// load_factor >= 1 some replica always qualifies (the least loaded has at most
// the mean, which is below the bound), so the fallback needs a factor < 1.
// Tie-breaks: none needed -- the ring order is total and points never tie.
// Cost: the ring is built once in O(P log P) for P points; choose is
// O(min(key_tokens, L)) to hash, O(1) for the total in flight (the
// simulator keeps it; a view of bare replicas scans them: O(n)), O(log P)
// to find the key's position, then one step per point walked (the walk stops
// once every replica has been checked).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// KubeAI: consistent hashing with bounded loads (CHWBL) on the prompt prefix.
struct ChwblParams {
  std::uint32_t key_tokens = 100;
  std::uint32_t virtual_nodes = 256;
  double load_factor = 1.25;
};

class Chwbl final : public RoutingPolicy {
 public:
  explicit Chwbl(const ChwblParams& params);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "chwbl"; }

  /// The ring key of a prompt: its first `key_tokens` tokens, hashed.
  static std::uint64_t key_hash(TokenSpan tokens, std::uint32_t key_tokens);
  /// The ring position of replica `replica`'s point `i`.
  static std::uint64_t point_hash(std::uint32_t replica, std::uint32_t i);

  const ChwblParams& params() const { return params_; }

 private:
  struct Point {
    std::uint64_t hash;
    std::uint32_t replica;
  };

  void build_ring(std::size_t replicas);

  ChwblParams params_;
  std::vector<Point> ring_;  // sorted by (hash, replica)
  std::size_t ring_replicas_ = 0;
  std::vector<std::uint32_t> seen_;  // per replica: the walk that last checked it
  std::uint32_t walk_ = 0;
  std::vector<Token> key_tokens_;  // scratch: the prompt's first key_tokens tokens
};

/// Chwbl's entry in the policy catalogue: name, label, parameters, factory.
const PolicySpec& chwbl_policy_spec();

}  // namespace prefixroute
