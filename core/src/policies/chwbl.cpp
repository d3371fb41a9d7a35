#include "prefixroute/policies/chwbl.h"

#include <algorithm>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/hash_sort.h"

namespace prefixroute {

const PolicySpec& chwbl_policy_spec() {
  static const PolicySpec spec = policy_spec<ChwblParams>(
      {"chwbl", "KubeAI CHWBL", "KubeAI: consistent hashing of the prompt prefix with bounded loads.",
       {"#4f46e5", "#818cf8"}},
      {param<&ChwblParams::key_tokens>("key_tokens", "Key length", 1, 1e6, "tokens",
                                       "The prompt's first this many tokens are hashed onto the ring."),
       param<&ChwblParams::virtual_nodes>("virtual_nodes", "Virtual nodes", 1, 65536, "", "Ring points per replica."),
       param<&ChwblParams::load_factor>(
           "load_factor", "Load factor", 1, 1e6, "",
           "A replica takes a key while its in-flight <= factor x (total + 1) / replicas.")},
      [](const ChwblParams& p, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<Chwbl>(p);
      });
  return spec;
}
namespace {

using hashing::fmix64;
using hashing::kFnvOffset;
using hashing::kFnvPrime;

}  // namespace

Chwbl::Chwbl(const ChwblParams& params) : params_(params) {
  if (params_.key_tokens == 0) params_.key_tokens = 1;
  if (params_.virtual_nodes == 0) params_.virtual_nodes = 1;
}

std::uint64_t Chwbl::key_hash(TokenSpan tokens, std::uint32_t key_tokens) {
  const std::size_t k = std::min<std::size_t>(tokens.size(), key_tokens);
  std::uint64_t h = kFnvOffset;
  for (std::size_t i = 0; i < k; ++i) h = (h ^ tokens[i]) * kFnvPrime;
  return fmix64(h);
}

std::uint64_t Chwbl::point_hash(std::uint32_t replica, std::uint32_t i) {
  return fmix64((static_cast<std::uint64_t>(replica) << 32) | i);
}

void Chwbl::build_ring(std::size_t replicas) {
  ring_.clear();
  ring_.reserve(replicas * params_.virtual_nodes);
  for (std::size_t r = 0; r < replicas; ++r)
    for (std::uint32_t i = 0; i < params_.virtual_nodes; ++i)
      ring_.push_back(Point{point_hash(static_cast<std::uint32_t>(r), i), static_cast<std::uint32_t>(r)});
  // By (hash, replica): the points were pushed in replica order, so a stable
  // sort by hash alone leaves equal hashes in replica order.
  std::vector<Point> scratch;
  stable_sort_by_hash(ring_, scratch, [](const Point& p) { return p.hash; });
  ring_replicas_ = replicas;
  seen_.assign(replicas, 0);
  walk_ = 0;
}

std::size_t Chwbl::choose(const RouteRequest& request, const ClusterView& cluster, Tick) {
  const Prompt& prompt = request.prompt;
  const std::span<const Replica> replicas = cluster.replicas();
  const std::size_t n = replicas.size();
  if (n != ring_replicas_) build_ring(n);
  if (++walk_ == 0) {  // stamps wrapped: forget them all
    seen_.assign(n, 0);
    walk_ = 1;
  }

  const std::uint64_t total = cluster.total_in_flight();
  const double bound = params_.load_factor * static_cast<double>(total + 1);
  const double count = static_cast<double>(n);

  // Only the key's tokens are read.
  key_tokens_.resize(std::min<std::size_t>(prompt.size(), params_.key_tokens));
  prompt.copy(0, key_tokens_.size(), key_tokens_.data());
  const std::uint64_t key = key_hash(key_tokens_, params_.key_tokens);
  const auto start = std::lower_bound(ring_.begin(), ring_.end(), key,
                                      [](const Point& p, std::uint64_t k) { return p.hash < k; });
  std::size_t pos = static_cast<std::size_t>(start - ring_.begin());
  if (pos == ring_.size()) pos = 0;  // past the top point: wrap to the first
  const std::size_t first = ring_[pos].replica;
  std::size_t checked = 0;
  for (std::size_t step = 0; step < ring_.size() && checked < n; ++step) {
    const std::uint32_t r = ring_[pos].replica;
    if (seen_[r] != walk_) {
      seen_[r] = walk_;
      ++checked;
      if (static_cast<double>(replicas[r].in_flight()) * count <= bound) return r;
    }
    if (++pos == ring_.size()) pos = 0;
  }
  return first;
}

}  // namespace prefixroute
