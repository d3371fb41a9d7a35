#include "prefixroute/policies/gie_filter_chain.h"

#include <algorithm>

namespace prefixroute {

const PolicySpec& gie_filter_chain_policy_spec() {
  static const PolicySpec spec = policy_spec<GieFilterChainParams>(
      {"gie_filter_chain", "GIE filter chain",
       "Gateway API Inference Extension's original tree: queue < 128, least-queue band, least-KV band, random.",
       {"#854d0e", "#fde68a"}},
      {param<&GieFilterChainParams::queue_threshold>("queue_threshold", "Low-queue threshold", 0, 1e9, "requests",
                                                     "The low-queue filter keeps replicas with fewer waiting "
                                                     "requests than this.")},
      [](const GieFilterChainParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<GieFilterChain>(p, context.seed);
      });
  return spec;
}

namespace {
// Salt of the policy's random stream ("giefc").
constexpr std::uint64_t kGieFilterChainStreamSalt = 0x6769656663ULL;
}  // namespace

GieFilterChain::GieFilterChain(const GieFilterChainParams& params, std::uint64_t seed)
    : params_(params), rng_(mix_seed(seed, kGieFilterChainStreamSalt)) {}

void GieFilterChain::least_queue(const ClusterView& cluster, const std::vector<std::size_t>& in,
                                 std::vector<std::size_t>& out) {
  out.clear();
  if (in.empty()) return;
  std::uint64_t min = cluster[in.front()].scraped().queue_length, max = min;
  for (const std::size_t r : in) {
    min = std::min<std::uint64_t>(min, cluster[r].scraped().queue_length);
    max = std::max<std::uint64_t>(max, cluster[r].scraped().queue_length);
  }
  const std::uint64_t upper = min + (max - min) / in.size();  // integer division, as in Go
  for (const std::size_t r : in)
    if (cluster[r].scraped().queue_length <= upper) out.push_back(r);
}

void GieFilterChain::least_kv(const ClusterView& cluster, const std::vector<std::size_t>& in,
                              std::vector<std::size_t>& out) {
  out.clear();
  if (in.empty()) return;
  double min = cluster[in.front()].scraped().kv_usage, max = min;
  for (const std::size_t r : in) {
    min = std::min(min, cluster[r].scraped().kv_usage);
    max = std::max(max, cluster[r].scraped().kv_usage);
  }
  const double upper = min + (max - min) / static_cast<double>(in.size());
  for (const std::size_t r : in) {
    const double usage = cluster[r].scraped().kv_usage;
    if (usage >= min && usage <= upper) out.push_back(r);
  }
}

void GieFilterChain::filter(const ClusterView& cluster) {
  const std::size_t n = cluster.size();
  all_.resize(n);
  for (std::size_t r = 0; r < n; ++r) all_[r] = r;
  low_.clear();
  for (std::size_t r = 0; r < n; ++r)
    if (cluster[r].scraped().queue_length < params_.queue_threshold) low_.push_back(r);
  low_queue_ = !low_.empty();
  // Success: least queue over the low-queue replicas; failure: over all of
  // them. The LoRA filter (before or after) passes its input through.
  least_queue(cluster, low_queue_ ? low_ : all_, band_);
  least_kv(cluster, band_, remaining_);
}

std::size_t GieFilterChain::choose(const RouteRequest&, const ClusterView& cluster, Tick) {
  const std::optional<std::uint64_t> count = cluster.scrape_count();
  if (!count.has_value() || filtered_count_ != count || filtered_replicas_ != cluster.replicas().data() ||
      filtered_n_ != cluster.size()) {
    filter(cluster);
    filtered_count_ = count;
    filtered_replicas_ = cluster.replicas().data();
    filtered_n_ = cluster.size();
  }
  return remaining_.size() == 1 ? remaining_.front()
                                : remaining_[static_cast<std::size_t>(rng_.below(remaining_.size()))];
}

}  // namespace prefixroute
