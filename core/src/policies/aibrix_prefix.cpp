#include "prefixroute/policies/aibrix_prefix.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

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

// The median of `values` as sorting them would give it (the middle element,
// or the mean of the two middle ones), found by selection: O(n), reorders
// `values`. The elements are the sorted order's, so the value is the same.
double median_in_place(std::vector<double>& values) {
  const std::size_t n = values.size();
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), middle);  // the sorted order's element n/2 - 1
  return (lower + upper) / 2.0;
}

}  // namespace

void AibrixPrefix::normalise(const std::vector<double>& raw, Polarity polarity, std::vector<double>& out) {
  NormaliseScratch scratch;
  normalise(raw, polarity, out, scratch);
}

void AibrixPrefix::normalise(const std::vector<double>& raw, Polarity polarity, std::vector<double>& out,
                             NormaliseScratch& scratch) {
  out.assign(raw.size(), 0.0);
  std::vector<std::size_t>& index = scratch.index;
  std::vector<double>& values = scratch.values;
  index.clear();
  values.clear();
  for (std::size_t i = 0; i < raw.size(); ++i)
    if (std::isfinite(raw[i])) {
      index.push_back(i);
      values.push_back(raw[i]);
    }
  if (values.empty()) return;
  // Winsorize: clamp values beyond 3 median absolute deviations (3+ values, MAD > 0).
  if (values.size() >= 3) {
    scratch.work.assign(values.begin(), values.end());
    const double median = median_in_place(scratch.work);
    for (std::size_t i = 0; i < values.size(); ++i) scratch.work[i] = std::fabs(values[i] - median);
    const double mad = median_in_place(scratch.work);
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

void AibrixPrefix::normalise_prefix() {
  // Match percents are finite and >= 0. When more than half are 0, the
  // median and the MAD are both 0 (no clamp), the minimum is 0 and each
  // normalised value is (v - 0) / (max - 0) = v / max exactly: no selection.
  const std::size_t n = prefix_raw_.size();
  std::size_t zeros = 0;
  double max = 0;
  for (const double v : prefix_raw_) {
    zeros += v == 0 ? 1 : 0;
    max = std::max(max, v);
  }
  if (zeros * 2 <= n) {
    normalise(prefix_raw_, Polarity::Most, prefix_norm_, scratch_);
    return;
  }
  prefix_norm_.resize(n);
  if (max == 0) {
    std::fill(prefix_norm_.begin(), prefix_norm_.end(), 1.0);
    return;
  }
  for (std::size_t k = 0; k < n; ++k) prefix_norm_[k] = (prefix_raw_[k] - 0.0) / (max - 0.0);
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
  normalise_prefix();
  normalise(load_raw_, Polarity::Least, load_norm_, scratch_);
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
