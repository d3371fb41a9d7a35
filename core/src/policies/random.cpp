#include "prefixroute/policies/random.h"

namespace prefixroute {

const PolicySpec& random_policy_spec() {
  static const PolicySpec spec = policy_spec<NoParams>(
      {"random", "Random", "A replica drawn uniformly at random (seeded): every gateway's baseline.",
       {"#78716c", "#d6d3d1"}},
      {},
      [](const NoParams&, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<RandomChoice>(context.seed);
      });
  return spec;
}

namespace {
// Salt of the policy's random stream ("random" in ASCII).
constexpr std::uint64_t kRandomStreamSalt = 0x72616e646f6dULL;
}  // namespace

RandomChoice::RandomChoice(std::uint64_t seed) : rng_(mix_seed(seed, kRandomStreamSalt)) {}

std::size_t RandomChoice::choose(const RouteRequest&, const ClusterView& cluster, Tick) {
  return static_cast<std::size_t>(rng_.below(cluster.size()));
}

}  // namespace prefixroute
