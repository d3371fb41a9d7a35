#include "prefixroute/policies/aibrix_prefix.h"

#include <algorithm>
#include <cmath>

#include "prefixroute/policies/lmetric.h"

namespace prefixroute {

const PolicySpec& aibrix_prefix_policy_spec() {
  static const PolicySpec spec = [] {
    std::vector<ParamSpec> rows = {
        param<&AibrixPrefixParams::block_size>("block_size", "Prefix block size", 1, 65536, "tokens",
                                               "Block of the router's prefix table: match percents count whole "
                                               "blocks."),
        param<&AibrixPrefixParams::prefix_weight>("prefix_weight", "Prefix-cache weight", 0, 1e6, "",
                                                  "Blend weight of the normalised prefix-match score."),
        param<&AibrixPrefixParams::load_balance_weight>("load_balance_weight", "Load-balance weight", 0, 1e6, "",
                                                        "Blend weight of the normalised load-balance score.")};
    for (ParamSpec& row : aibrix_load_param_rows<AibrixPrefixParams>()) rows.push_back(row);
    return policy_spec<AibrixPrefixParams>(
        {"aibrix_prefix", "AIBrix prefix-cache",
         "AIBrix bare prefix-cache: the normalised blend prefix-match x 5 + load-balance x 4, behind the gate.",
         {"#1e3a8a", "#93c5fd"}},
        std::move(rows),
        [](const AibrixPrefixParams& p, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
          return std::make_unique<AibrixPrefix>(p);
        });
  }();
  return spec;
}

namespace {

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace

void AibrixPrefix::normalise(const std::vector<double>& raw, Polarity polarity, std::vector<double>& out) {
  out.assign(raw.size(), 0.0);
  std::vector<std::size_t> index;
  std::vector<double> values;
  for (std::size_t i = 0; i < raw.size(); ++i)
    if (std::isfinite(raw[i])) {
      index.push_back(i);
      values.push_back(raw[i]);
    }
  if (values.empty()) return;
  // Winsorize: clamp values beyond 3 median absolute deviations (3+ values, MAD > 0).
  if (values.size() >= 3) {
    const double median = median_of(values);
    std::vector<double> deviations(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) deviations[i] = std::fabs(values[i] - median);
    const double mad = median_of(deviations);
    if (mad != 0) {
      const double lower = median - 3.0 * mad, upper = median + 3.0 * mad;
      for (double& v : values) v = v > upper ? upper : (v < lower ? lower : v);
    }
  }
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  const double min = *lo, max = *hi;
  for (std::size_t j = 0; j < values.size(); ++j) {
    if (max == min) {
      out[index[j]] = 1.0;
    } else if (polarity == Polarity::Least) {
      out[index[j]] = (max - values[j]) / (max - min);
    } else {
      out[index[j]] = (values[j] - min) / (max - min);
    }
  }
}

AibrixPrefix::AibrixPrefix(const AibrixPrefixParams& params) : params_(params), load_(params.load()) {
  if (params_.block_size == 0) params_.block_size = 1;
}

std::size_t AibrixPrefix::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  load_.advance(now);
  gated_ = load_.gate(cluster, candidates_);
  table_.set_replicas(n);
  table_.match(prompt, matched_);
  const std::uint64_t length = prompt.size();
  const std::uint64_t blocks = length / params_.block_size;
  prefix_raw_.resize(candidates_.size());
  for (std::size_t k = 0; k < candidates_.size(); ++k)
    prefix_raw_[k] = blocks == 0 ? 0.0
                                 : static_cast<double>((matched_[candidates_[k]] / params_.block_size) * 100 / blocks);
  load_.scores(cluster, candidates_, load_raw_);
  normalise(prefix_raw_, Polarity::Most, prefix_norm_);
  normalise(load_raw_, Polarity::Least, load_norm_);
  const double total = params_.prefix_weight + params_.load_balance_weight;
  const double prefix_fraction = total > 0 ? params_.prefix_weight / total : 0.0;
  const double load_fraction = total > 0 ? params_.load_balance_weight / total : 0.0;
  final_.resize(candidates_.size());
  std::size_t best = 0;
  double best_score = -1.0;
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    double score = 0.0;
    score += prefix_norm_[k] * prefix_fraction;
    score += load_norm_[k] * load_fraction;
    final_[k] = score;
    // Within 1e-9 of the best so far: a tie, which the first (lowest index) keeps.
    if (std::fabs(score - best_score) < 1e-9) continue;
    if (score > best_score) {
      best_score = score;
      best = k;
    }
  }
  const std::size_t chosen = candidates_[best];
  predicted_ = static_cast<std::int64_t>(LMetric::hit_tokens(length, matched_[chosen], params_.block_size));
  return chosen;
}

void AibrixPrefix::on_routed(const RoutedRequest& request) {
  table_.set_replicas(request.replica + 1);
  table_.insert(request.prompt, request.replica);
  load_.on_routed(request);
}

}  // namespace prefixroute
