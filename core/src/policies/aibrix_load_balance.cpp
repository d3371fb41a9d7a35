#include "prefixroute/policies/aibrix_load_balance.h"

#include <algorithm>

#include "prefixroute/base/deterministic_math.h"
#include "prefixroute/policies/aibrix_load_order.h"

namespace prefixroute {

const PolicySpec& aibrix_load_balance_policy_spec() {
  static const PolicySpec spec = policy_spec<AibrixLoadParams>(
      {"aibrix_load_balance", "AIBrix load-balance",
       "AIBrix load-balance: least running requests / output-rate EWMA x KV penalty, behind the imbalance gate.",
       {"#1d4ed8", "#60a5fa"}},
      aibrix_load_param_rows<AibrixLoadParams>(),
      [](const AibrixLoadParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<AibrixLoadBalance>(p, context.seed);
      });
  return spec;
}

namespace {
// Salt of the policy's random stream ("aibrixlb").
constexpr std::uint64_t kAibrixLoadBalanceStreamSalt = 0x6169627269786c62ULL;
constexpr Tick kSecond = kTicksPerSecond;
}  // namespace

// ---- AibrixLoad ----

bool AibrixLoad::gate(const ClusterView& cluster, std::vector<std::size_t>& out) const {
  const std::size_t n = cluster.size();
  out.clear();
  std::uint64_t min = cluster[0].in_flight(), max = min, sum = 0;
  for (std::size_t r = 0; r < n; ++r) {
    const std::uint64_t c = cluster[r].in_flight();
    min = std::min(min, c);
    max = std::max(max, c);
    sum += c;
  }
  const bool imbalanced = this->imbalanced(n, min, max, sum);
  for (std::size_t r = 0; r < n; ++r)
    if (!imbalanced || cluster[r].in_flight() == min) out.push_back(r);
  return imbalanced;
}

void AibrixLoad::ensure_replicas(std::size_t n) {
  if (completed_.size() >= n) return;
  const std::size_t old = completed_.size();
  completed_.resize(n, 0);
  ewma_.resize(n, 0);
  history_.resize(n);
  for (std::size_t r = old; r < n; ++r) history_[r].assign(kWindow + 1, 0);
}

void AibrixLoad::sample(std::uint64_t second) {
  // The rate over the last minute (the time since the first sample while
  // shorter), folded into the EWMA when positive.
  static const double alpha = 1.0 - dmath::exp(-1.0 / 10.0);  // 1 s samples, 10 s time constant
  const std::uint64_t span = std::min<std::uint64_t>(second, kWindow);
  ++samples_;
  for (std::size_t r = 0; r < completed_.size(); ++r) {
    std::vector<std::uint64_t>& ring = history_[r];
    ring[second % (kWindow + 1)] = completed_[r];
    if (span < kMinWindow) continue;
    const std::uint64_t delta = completed_[r] - ring[(second - span) % (kWindow + 1)];
    if (delta == 0) continue;  // no completed tokens: no news about speed, keep the estimate
    const double rate = static_cast<double>(delta) / static_cast<double>(span);
    ewma_[r] = ewma_[r] > 0 ? ewma_[r] + alpha * (rate - ewma_[r]) : rate;
  }
}

void AibrixLoad::advance(Tick now) {
  if (now < 0) return;
  const auto last_due = static_cast<std::uint64_t>(now / kSecond);  // samples at 0, 1 s, 2 s, ...
  while (next_second_ <= last_due) {
    // A minute after the last counted completion every window is flat: the
    // samples until now change nothing but the rings, which all hold the
    // current counts. Jump there.
    if (!any_completion_ || next_second_ > last_change_second_ + kWindow + 1) {
      for (std::size_t r = 0; r < history_.size(); ++r) std::fill(history_[r].begin(), history_[r].end(), completed_[r]);
      next_second_ = last_due + 1;
      break;
    }
    sample(next_second_);
    ++next_second_;
  }
}

double AibrixLoad::capacity(std::size_t r) const {
  if (r < ewma_.size() && ewma_[r] > 0) return ewma_[r];
  return fallback_capacity();
}

double AibrixLoad::fallback_capacity() const {
  double sum = 0;
  std::size_t known = 0;
  for (const double e : ewma_)
    if (e > 0) {
      sum += e;
      ++known;
    }
  return known > 0 ? sum / static_cast<double>(known) : 1.0;
}

double AibrixLoad::score(const Replica& replica, std::size_t r, double& fallback) const {
  const double free = std::clamp(1.0 - replica.scraped().kv_usage, 0.0, 1.0);
  if (free < params_.kv_critical_free) return kInfinity;
  double load = replica.in_flight();
  if (params_.queued_weight > 0) load += params_.queued_weight * replica.scraped().queue_length;
  const double used = 1.0 - free;
  double cap = 0;
  if (r < ewma_.size() && ewma_[r] > 0) {
    cap = ewma_[r];
  } else {
    if (fallback < 0) fallback = fallback_capacity();
    cap = fallback;
  }
  return load / cap * (1.0 + params_.kv_pressure_alpha * used * used);
}

void AibrixLoad::scores(const ClusterView& cluster, const std::vector<std::size_t>& candidates,
                        std::vector<double>& out) {
  ensure_replicas(cluster.size());
  out.resize(candidates.size());
  // capacity() of a replica without an estimate is the mean of the others':
  // computed once per call, when first needed (the same sum in the same
  // order for every such replica): O(R) per choice.
  double fallback = -1;
  for (std::size_t k = 0; k < candidates.size(); ++k) out[k] = score(cluster[candidates[k]], candidates[k], fallback);
}

void AibrixLoad::on_routed(const RoutedRequest& request) {
  ensure_replicas(request.replica + 1);
  if (request.output_tokens > 0) outputs_[request.id] = request.output_tokens;
}

void AibrixLoad::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  advance(now);  // samples due at or before now see the state before this completion
  const auto it = outputs_.find(id);
  if (it == outputs_.end()) return;
  ensure_replicas(replica + 1);
  completed_[replica] += it->second;
  outputs_.erase(it);
  any_completion_ = true;
  last_change_second_ = next_second_;
}

// ---- the tie-break ----

std::size_t aibrix_least_kv(const ClusterView& cluster, const std::vector<std::size_t>& tied, Rng& rng,
                            std::vector<std::size_t>& scratch) {
  scratch.clear();
  double best = 0;
  for (const std::size_t r : tied) {
    const double usage = cluster[r].scraped().kv_usage;
    if (scratch.empty() || usage < best) {
      best = usage;
      scratch.clear();
      scratch.push_back(r);
    } else if (usage == best) {
      scratch.push_back(r);
    }
  }
  return scratch.size() == 1 ? scratch.front() : scratch[static_cast<std::size_t>(rng.below(scratch.size()))];
}

// ---- AibrixLoadBalance ----

AibrixLoadBalance::AibrixLoadBalance(const AibrixLoadParams& params, std::uint64_t seed,
                                     std::size_t order_from_replicas)
    : load_(params),
      rng_(mix_seed(seed, kAibrixLoadBalanceStreamSalt)),
      order_(std::make_unique<AibrixLoadOrder>()),
      order_from_replicas_(order_from_replicas) {}

AibrixLoadBalance::~AibrixLoadBalance() = default;

void AibrixLoadBalance::on_routed(const RoutedRequest& request) {
  load_.on_routed(request);
  order_->touched(request.replica);
}

void AibrixLoadBalance::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  load_.on_completed(id, replica, now);
  order_->touched(replica);
}

std::size_t AibrixLoadBalance::choose(const RouteRequest&, const ClusterView& cluster, Tick now) {
  load_.advance(now);
  if (cluster.size() >= order_from_replicas_ && AibrixLoadOrder::usable(cluster))
    return order_->choose(cluster, load_, rng_, gated_);
  gated_ = load_.gate(cluster, candidates_);
  load_.scores(cluster, candidates_, scores_);
  const double best = *std::min_element(scores_.begin(), scores_.end());
  tied_.clear();
  if (best != AibrixLoad::kInfinity) {
    for (std::size_t k = 0; k < candidates_.size(); ++k)
      if (scores_[k] == best) tied_.push_back(candidates_[k]);
  } else {
    tied_ = candidates_;  // every candidate past the KV guardrail: the tie-break over all of them
  }
  return aibrix_least_kv(cluster, tied_, rng_, scratch_);
}

}  // namespace prefixroute
