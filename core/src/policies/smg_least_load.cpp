#include "prefixroute/policies/smg_least_load.h"

#include <algorithm>
#include <limits>

#include "prefixroute/base/reservoir_least.h"

namespace prefixroute {

std::vector<ParamSpec> smg_least_load_param_rows() {
  return {param<&SmgLeastLoadParams::kv_pressure_weight_s>(
              "kv_pressure_weight_s", "KV pressure weight", 0, 1e6, "s",
              "Weight of the KV barrier k / (1 - k) in the expected wait."),
          param<&SmgLeastLoadParams::throughput_tokens_per_s>(
              "throughput_tokens_per_s", "Throughput", 1e-3, 1e12, "tokens/s",
              "Drain rate dividing the queued tokens (smg's default; the simulator reports no gen_throughput)."),
          param<&SmgLeastLoadParams::poll_period_s>("poll_period_s", "Load poll period", 1e-3, 1e6, "s",
                                                    "How often the gateway polls the engines' load."),
          param<&SmgLeastLoadParams::mean_prefill_tokens>(
              "mean_prefill_tokens", "Mean prefill", 1, 1e9, "tokens",
              "Tokens per waiting request when queued_tokens = waiting_requests."),
          choice<&SmgLeastLoadParams::queued_tokens>(
              "queued_tokens", "Queued work at a poll", "uncached_tokens,waiting_requests",
              "uncached_tokens: the engine's queued uncached prefill tokens; waiting_requests: waiting "
              "requests x mean prefill.")};
}

const PolicySpec& smg_least_load_policy_spec() {
  static const PolicySpec spec = policy_spec<SmgLeastLoadParams>(
      {"smg_least_load", "SGLang gateway least-load",
       "SGLang model gateway least_load: least expected wait (queued + since-poll tokens) / throughput + KV barrier.",
       {"#c026d3", "#e879f9"}},
      smg_least_load_param_rows(),
      [](const SmgLeastLoadParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<SmgExpectedWait>(p, SmgExpectedWait::Candidates::All, context.seed,
                                                 context.cluster.prefill.tokens_per_s);
      });
  return spec;
}

namespace {
// Salts of the two policies' random streams ("smgll", "smgp2").
constexpr std::uint64_t kLeastLoadSalt = 0x736d676c6cULL;
constexpr std::uint64_t kPowerOfTwoSalt = 0x736d677032ULL;
}  // namespace

SmgExpectedWait::SmgExpectedWait(const SmgLeastLoadParams& params, Candidates candidates, std::uint64_t seed,
                                 double cluster_prefill_tokens_per_s)
    : params_(params),
      candidates_(candidates),
      rng_(mix_seed(seed, candidates == Candidates::All ? kLeastLoadSalt : kPowerOfTwoSalt)),
      cluster_rate_(cluster_prefill_tokens_per_s),
      period_(std::max<Tick>(1, seconds_to_ticks(params.poll_period_s))) {
  if (!(params_.throughput_tokens_per_s > 0)) params_.throughput_tokens_per_s = 2000;
}

void SmgExpectedWait::poll(const ClusterView& cluster, Tick boundary) {
  const std::size_t n = cluster.size();
  queued_.assign(n, 0);
  kv_.assign(n, 0);
  since_poll_.assign(n, 0);
  for (std::size_t r = 0; r < n; ++r) {
    const Replica& replica = cluster[r];
    if (params_.queued_tokens == SmgQueuedTokens::UncachedTokens) {
      queued_[r] = static_cast<double>(replica.projected_wait(boundary)) * cluster_rate_ / 1e9;
    } else {
      queued_[r] = static_cast<double>(replica.scraped().queue_length) * params_.mean_prefill_tokens;
    }
    kv_[r] = replica.scraped().kv_usage;
  }
  last_poll_ = boundary;
  if (candidates_ == Candidates::All) {
    if (scores_.size() != n) scores_ = TournamentTree<double>(n, std::numeric_limits<double>::infinity());
    scores_.assign([this](std::size_t r) { return score(r); });
  }
}

double SmgExpectedWait::score(std::size_t r) const {
  const double k = std::clamp(r < kv_.size() ? kv_[r] : 0.0, 0.0, 0.999);
  const double queued = r < queued_.size() ? queued_[r] : 0.0;
  return (queued + static_cast<double>(since_poll_tokens(r))) / params_.throughput_tokens_per_s +
         params_.kv_pressure_weight_s * k / (1.0 - k);
}

std::size_t SmgExpectedWait::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const std::size_t n = cluster.size();
  const Tick boundary = now < 0 ? 0 : (now / period_) * period_;
  if (last_poll_ < boundary || queued_.size() != n) poll(cluster, boundary);
  candidates_scored_.clear();
  if (n == 1) {
    candidates_scored_.push_back(0);
    return 0;  // smg's single-worker shortcut: no score, no tally
  }
  if (candidates_ == Candidates::All) {
    // The argmin scan with reservoir ties, over the tree of scores.
    const std::size_t best = reservoir_least(scores_, rng_);
    since_poll_[best] += request.prompt.size();
    scores_.set(best, score(best));
    return best;
  }
  const auto first = static_cast<std::size_t>(rng_.below(n));
  const auto second = (first + 1 + static_cast<std::size_t>(rng_.below(n - 1))) % n;
  candidates_scored_.push_back(first);
  candidates_scored_.push_back(second);
  // The lower score of the pair; a tie goes to the second with probability 1/2 (reservoir).
  std::size_t best = first;
  const double first_score = score(first), second_score = score(second);
  if (second_score < first_score || (second_score == first_score && rng_.below(2) == 0)) best = second;
  since_poll_[best] += request.prompt.size();
  return best;
}

}  // namespace prefixroute
