#include "prefixroute/policies/aibrix_prefix.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "prefixroute/policies/aibrix_load_order.h"
#include "prefixroute/policies/aibrix_load_ranks.h"
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

double AibrixPrefix::PercentNorm::operator()(std::size_t percent) const {
  const auto p = static_cast<double>(percent);
  if (shortcut) return most == 0 ? 1.0 : (p - 0.0) / (most - 0.0);
  const double v = clamp ? (p > upper ? upper : (p < lower ? lower : p)) : p;
  return max == min ? 1.0 : (v - min) / (max - min);
}

AibrixPrefix::PercentNorm AibrixPrefix::normalise_percents(std::size_t n, std::size_t least, std::size_t most) {
  // normalise() (or normalise_prefix()'s shortcut) of n percents given as
  // counts per value (least and most: the least and largest counted).
  PercentNorm norm;
  norm.most = static_cast<double>(most);
  if (percent_count_[0] * 2 > n) {  // normalise_prefix's shortcut
    norm.shortcut = true;
    return norm;
  }
  const auto value_at = [&](std::size_t k) {  // the k-th least percent
    std::size_t p = 0;
    for (std::size_t seen = percent_count_[0]; seen <= k; seen += percent_count_[++p]) {
    }
    return static_cast<double>(p);
  };
  if (n >= 3) {
    const double median = n % 2 == 1 ? value_at(n / 2) : (value_at(n / 2 - 1) + value_at(n / 2)) / 2.0;
    deviations_.clear();
    for (std::size_t p = least; p <= most; ++p)
      if (percent_count_[p] > 0) deviations_.emplace_back(std::fabs(static_cast<double>(p) - median), percent_count_[p]);
    std::sort(deviations_.begin(), deviations_.end());
    const auto deviation_at = [&](std::size_t k) {
      std::size_t i = 0;
      for (std::size_t seen = deviations_[0].second; seen <= k; seen += deviations_[++i].second) {
      }
      return deviations_[i].first;
    };
    const double mad = n % 2 == 1 ? deviation_at(n / 2) : (deviation_at(n / 2 - 1) + deviation_at(n / 2)) / 2.0;
    if (mad != 0) {
      norm.clamp = true;
      norm.lower = median - 3.0 * mad;
      norm.upper = median + 3.0 * mad;
    }
  }
  const auto clip = [&](double v) { return norm.clamp ? (v > norm.upper ? norm.upper : (v < norm.lower ? norm.lower : v)) : v; };
  norm.min = clip(static_cast<double>(least));
  norm.max = clip(static_cast<double>(most));
  return norm;
}

AibrixPrefix::AibrixPrefix(const AibrixPrefixParams& params, std::size_t ranked_from_replicas)
    : params_(params),
      load_(params.load()),
      ranks_(std::make_unique<AibrixLoadRanks>()),
      ranked_from_replicas_(ranked_from_replicas) {
  if (params_.block_size == 0) params_.block_size = 1;
}

AibrixPrefix::~AibrixPrefix() = default;

namespace {

// The blend of step 4, in the scan's order of operations.
double blend(double prefix_norm, double load_norm, double prefix_fraction, double load_fraction) {
  double score = 0.0;
  score += prefix_norm * prefix_fraction;
  score += load_norm * load_fraction;
  return score;
}

// The k-th least (from 0) of the union of two non-decreasing sequences a(0 ..
// na - 1) and b(0 .. nb - 1), read through the functions a and b, and the
// (k-1)-th when `previous` is not null: O(log min(k, na)) reads.
template <typename A, typename B>
double kth_of_two(std::size_t k, std::size_t na, std::size_t nb, const A& a, const B& b, double* previous) {
  // i of the k + 1 least come from a, j = k + 1 - i from b: the least i with
  // a(i) >= b(j - 1) (or i = na, or j = 0).
  std::size_t lo = k + 1 > nb ? k + 1 - nb : 0, hi = std::min(k + 1, na);
  while (lo < hi) {
    const std::size_t i = lo + (hi - lo) / 2;
    if (a(i) >= b(k - i)) {
      hi = i;
    } else {
      lo = i + 1;
    }
  }
  const std::size_t i = lo, j = k + 1 - lo;
  constexpr double kNone = -std::numeric_limits<double>::infinity();
  const double last_a = i > 0 ? a(i - 1) : kNone, last_b = j > 0 ? b(j - 1) : kNone;
  if (previous != nullptr) {
    if (j == 0 || (i > 0 && last_a >= last_b)) {  // the k-th is a(i - 1)
      *previous = std::max(i > 1 ? a(i - 2) : kNone, last_b);
    } else {
      *previous = std::max(last_a, j > 1 ? b(j - 2) : kNone);
    }
  }
  return std::max(last_a, last_b);
}

}  // namespace

std::size_t AibrixPrefix::choose_ranked(const RouteRequest& request, const ClusterView& cluster) {
  AibrixLoadRanks& ranks = *ranks_;
  ranks.update(cluster, load_);
  const std::size_t n = cluster.size();
  // Step 1, the gate, on the kept counts: the candidates are every replica
  // (group 0 of the ungated order) or those at the least count (the gated
  // order's first group).
  const InFlightOrder& counts = ranks.counts();
  const std::uint32_t least = counts.least();
  const bool gated = load_.imbalanced(n, least, counts.most(), cluster.total_in_flight());
  const std::uint32_t group = gated ? least : 0;
  const std::size_t candidates = gated ? counts.at(least) : n;
  const RankedKeys<AibrixLoadRanks::Key>& ranked = ranks.ranked(gated);
  const std::size_t finite = gated ? ranked.count_below(AibrixLoadRanks::Key{least + 1, -AibrixLoadRanks::kInf})
                                   : ranked.size();

  // Step 2, prefix: each candidate's match percent, an integer 0 .. 100
  // (0 for the replicas match_held leaves out), counted per value.
  const Prompt& prompt = request.prompt;
  table_.set_replicas(n);
  table_.match_held(prompt, held_);
  const std::uint64_t blocks = prompt.size() / params_.block_size;
  // One pass keeps each held candidate's percent and counts those matching
  // nothing; it also lists the others (the singles when, as usual, most
  // candidates match nothing: the bulk is then 0), passing over one that
  // comes after another of its percent scoring no more load (it is no
  // record; step 4). (Locals: the uint8_t stores would otherwise make every
  // member reload.)
  constexpr std::uint8_t kNotCandidate = 255;
  const ApproxRadixTree::Held* const held = held_.data();
  const std::size_t held_count = held_.size();
  percents_.resize(held_count);
  std::uint8_t* const percents = percents_.data();
  const bool any_infinite = finite < candidates;
  matching_.clear();
  std::size_t held_candidates = 0, zeros = 0, most_percent = 0, infinite_matching = 0;
  std::size_t last_matched = ~std::size_t{0}, percent = 0, last_listed = kNotCandidate;
  double last_listed_score = 0;
  for (std::size_t i = 0; i < held_count; ++i) {
    const ApproxRadixTree::Held& h = held[i];
    if (gated && ranks.count(h.replica) != least) {
      percents[i] = kNotCandidate;
      continue;
    }
    if (h.matched != last_matched) {  // neighbours often match the same length
      last_matched = h.matched;
      percent = blocks == 0 ? 0 : static_cast<std::size_t>((h.matched / params_.block_size) * 100 / blocks);
    }
    percents[i] = static_cast<std::uint8_t>(percent);
    ++held_candidates;
    if (percent == 0) {
      ++zeros;
      continue;
    }
    most_percent = std::max(most_percent, percent);
    const double score = ranks.score(h.replica);
    if (any_infinite && std::isinf(score)) ++infinite_matching;
    if (percent == last_listed && !(score < last_listed_score)) continue;
    last_listed = percent;
    last_listed_score = score;
    matching_.push_back(Listed{h.replica, static_cast<std::uint32_t>(percent)});
  }
  const std::size_t unheld = candidates - held_candidates;
  // The bulk plays the non-holders' part below: its candidates share one
  // normalised prefix score and are told apart by load alone. The others,
  // the singles, are scored one by one.
  std::size_t bulk = 0;
  PercentNorm percent_norm;
  if ((zeros + unheld) * 2 > candidates) {  // most match nothing: normalise_prefix's shortcut
    percent_norm.shortcut = true;
    percent_norm.most = static_cast<double>(most_percent);
  } else {  // count the percents
    percent_count_.assign(101, 0);
    std::uint32_t* const percent_count = percent_count_.data();
    std::size_t least_percent = 100;
    for (std::size_t i = 0; i < held_count; ++i) {
      const std::size_t p = percents[i];
      if (p == kNotCandidate) continue;
      const std::uint32_t count = ++percent_count[p];
      least_percent = std::min(least_percent, p);
      // The most common percent, the least on a tie (0's count is completed below).
      if (count > percent_count[bulk] || (count == percent_count[bulk] && p < bulk)) bulk = p;
    }
    if (unheld > 0) {
      percent_count[0] += static_cast<std::uint32_t>(unheld);
      least_percent = 0;
      if (percent_count[0] >= percent_count[bulk]) bulk = 0;
    }
    if ((candidates - percent_count[bulk]) * 2 > candidates) return kScan;
    percent_norm = normalise_percents(candidates, least_percent, most_percent);
  }
  const double bulk_norm = percent_norm(bulk);

  // Step 3, load: normalise's median, MAD, clamp and min-max over the finite
  // candidate scores, ranks 0 .. finite - 1 of `ranked`.
  const auto at = [&](std::size_t k) { return ranked.key_at(k).score; };
  bool clamp = false;
  double lower = 0, upper = 0;
  if (finite >= 3) {
    const std::size_t half = finite / 2;
    const double median = finite % 2 == 1 ? at(half) : (at(half - 1) + at(half)) / 2.0;
    // |score - median| in rank order falls to the median's rank, then rises:
    // two sorted runs, below (ranks below - 1 down to 0) and from (below on).
    const std::size_t below = ranked.count_below(AibrixLoadRanks::Key{group, median});
    const auto deviation_below = [&](std::size_t j) { return std::fabs(at(below - 1 - j) - median); };
    const auto deviation_from = [&](std::size_t j) { return std::fabs(at(below + j) - median); };
    double previous = 0;
    const double upper_middle = kth_of_two(half, below, finite - below, deviation_below, deviation_from,
                                           finite % 2 == 1 ? nullptr : &previous);
    const double mad = finite % 2 == 1 ? upper_middle : (previous + upper_middle) / 2.0;
    if (mad != 0) {
      clamp = true;
      lower = median - 3.0 * mad;
      upper = median + 3.0 * mad;
    }
  }
  const auto clip = [&](double v) { return clamp ? (v > upper ? upper : (v < lower ? lower : v)) : v; };
  const double min = finite == 0 ? 0.0 : clip(at(0)), max = finite == 0 ? 0.0 : clip(at(finite - 1));
  const auto load_norm = [&](double v) {
    if (std::isinf(v)) return 0.0;
    return max == min ? 1.0 : (max - clip(v)) / (max - min);
  };
  const double total = params_.prefix_weight + params_.load_balance_weight;
  const double prefix_fraction = total > 0 ? params_.prefix_weight / total : 0.0;
  const double load_fraction = total > 0 ? params_.load_balance_weight / total : 0.0;

  // Step 4. The scan keeps the running best in replica order and takes a
  // score more than 1e-9 above it, so it takes only records: replicas
  // scoring more than every lower-index one (a replica with a lower-index
  // one scoring at least as much is never taken, and skipping it changes
  // nothing). Where a record scores 1e-9 or more above the one before it the
  // scan takes it whatever came before. So the finalists are the records
  // from the highest score down to the first such gap, and the scan over
  // them in replica order takes the scan's replica.
  //
  // The singles' records, in replica order (their finals rise along it). A
  // single of the last record's percent and a load score not below its is
  // no record (its final is at most the record's): passed over unscored.
  records_.clear();
  std::size_t infinite_singles = 0, record_percent = kNotCandidate;
  double best_single = -1.0, record_score = 0;
  const auto single = [&](std::size_t r, std::size_t its_percent) {
    const double score = ranks.score(r);
    if (its_percent == record_percent && !(score < record_score)) return;
    const double final = blend(percent_norm(its_percent), load_norm(score), prefix_fraction, load_fraction);
    if (final > best_single) {
      best_single = final;
      record_percent = its_percent;
      record_score = score;
      records_.push_back(Scored{r, final});
    }
  };
  const bool unheld_singles = bulk != 0 && unheld > 0;  // the replicas matching nothing are singles too
  const auto single_counted = [&](std::size_t r, std::size_t its_percent) {
    if (any_infinite && std::isinf(ranks.score(r))) ++infinite_singles;
    single(r, its_percent);
  };
  if (bulk == 0) {  // the singles are those listed
    infinite_singles = infinite_matching;
    for (const Listed& m : matching_) single(m.replica, m.percent);
  } else if (unheld_singles) {  // every replica, in order
    for (std::size_t r = 0, i = 0; r < n; ++r) {
      if (i < held_count && held[i].replica == r) {
        const std::uint8_t p = percents[i++];
        if (p != kNotCandidate && p != bulk) single_counted(r, p);
      } else if (!gated || ranks.count(r) == least) {
        single_counted(r, 0);
      }
    }
  } else {
    for (std::size_t i = 0; i < held_count; ++i)
      if (percents[i] != kNotCandidate && percents[i] != bulk) single_counted(held[i].replica, percents[i]);
  }
  // Whether candidate r is a single (the groups below pass over them).
  const auto is_single = [&](std::size_t r) {
    const auto it = std::lower_bound(held, held + held_count, r,
                                     [](const ApproxRadixTree::Held& h, std::size_t x) { return h.replica < x; });
    if (it == held + held_count || it->replica != r) return unheld_singles;
    return percents[it - held] != bulk;
  };

  // The bulk's records, highest final first: each group of bulk candidates
  // of one clipped load score is represented by the lowest-index bulk
  // candidate at or below that score (their final falls as the load score
  // rises), found in `first`.
  const TournamentTree<AibrixLoadRanks::Key>& first = ranks.first(gated);
  const std::size_t infinite_others = candidates - finite - infinite_singles;
  // Group steps (each a few O(log R) reads) past this, and it scans; the
  // singles' visits are bounded by their number.
  constexpr std::size_t kGroupBudget = 48;
  bulk_records_.clear();
  std::size_t rank = 0, steps = 0, singles_left = records_.size();
  bool infinite_done = infinite_others == 0, have = false, group_ready = false, group_next = false;
  double lowest = 0, group_final = 0, bound = 0;
  // From the highest final down, singles' records and groups merged, until
  // the first gap of 1e-9 (the records of each kind are all visited, so a
  // gap here is at most the records' gap there).
  for (;;) {
    if (!group_ready) {  // the next group of bulk candidates: its final and its bound
      while (rank < finite && is_single(ranked.slot_at(rank))) {
        ++rank;
        if (++steps > kGroupBudget) return kScan;
      }
      group_next = false;
      if (rank < finite) {
        const double v = at(rank);
        group_next = true;
        group_final = blend(bulk_norm, load_norm(v), prefix_fraction, load_fraction);
        bound = clamp && v < lower ? lower : (clamp && v > upper ? at(finite - 1) : v);
      } else if (!infinite_done) {
        group_next = true;
        group_final = blend(bulk_norm, 0.0, prefix_fraction, load_fraction);
        bound = AibrixLoadRanks::kInf;
      }
      group_ready = true;
    }
    const bool single_next = singles_left > 0;
    if (!group_next && !single_next) break;
    const bool take_single = single_next && (!group_next || records_[singles_left - 1].final >= group_final);
    const double s = take_single ? records_[singles_left - 1].final : group_final;
    if (have && lowest - s >= 1e-9) break;  // the gap
    have = true;
    lowest = s;
    if (take_single) {
      --singles_left;
      continue;
    }
    // The lowest-index bulk candidate at or below the bound.
    const AibrixLoadRanks::Key key{group, bound};
    std::size_t rep = first.first_at_most(0, key);
    while (rep < n && is_single(rep)) {
      rep = first.first_at_most(rep + 1, key);
      if (++steps > kGroupBudget) return kScan;
    }
    if (rep == n || ++steps > kGroupBudget) return kScan;  // (rep == n: not expected, one is at or below the bound)
    // The groups so far are at or below the bound too, so rep is at most the
    // last group's replica. The same replica is no record: it was entered
    // with its own, higher final (this lower one is the group's, not its).
    if (bulk_records_.empty() || rep != bulk_records_.back().replica) bulk_records_.push_back(Scored{rep, group_final});
    if (rank < finite) {
      rank = ranked.count_at_most(key);
    } else {
      infinite_done = true;
    }
    group_ready = false;
  }
  // The finalists in replica order: the singles' records visited (rising
  // along records_) merged with the bulk's (falling along bulk_records_).
  finalists_.clear();
  for (std::size_t i = singles_left, j = bulk_records_.size(); i < records_.size() || j > 0;) {
    if (j == 0 || (i < records_.size() && records_[i].replica < bulk_records_[j - 1].replica)) {
      finalists_.push_back(records_[i++]);
    } else {
      finalists_.push_back(bulk_records_[--j]);
    }
  }
  std::size_t best = 0;
  double best_score = -1.0;
  for (const Scored& f : finalists_) {
    if (std::fabs(f.final - best_score) < 1e-9) continue;
    if (f.final > best_score) {
      best_score = f.final;
      best = f.replica;
    }
  }
  gated_ = gated;
  predicted_ = static_cast<std::int64_t>(
      LMetric::hit_tokens(prompt.size(), held_length(held_, best), params_.block_size));
  return best;
}

std::size_t AibrixPrefix::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  load_.advance(now);
  ranked_ = false;
  if (n >= ranked_from_replicas_ && AibrixLoadOrder::usable(cluster)) {
    const std::size_t chosen = choose_ranked(request, cluster);
    if (chosen != kScan) {
      ranked_ = true;
      return chosen;
    }
  }
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
  ranks_->touched(request.replica);
}

void AibrixPrefix::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  load_.on_completed(id, replica, now);
  ranks_->touched(replica);
}

}  // namespace prefixroute
