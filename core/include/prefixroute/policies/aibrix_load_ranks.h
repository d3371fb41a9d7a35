// AibrixLoadRanks: every replica's AIBrix load score (AibrixLoad::score,
// aibrix_load_balance.h) and running count kept in order, for aibrix_prefix
// (aibrix_prefix.h), whose normalisation needs the median, the median
// absolute deviation, the least and the largest of the candidates' finite
// load scores, and whose choice needs the lowest-index replica at or below a
// load score.
//
// Keys are (group, score): group 0 for every replica in the ungated order,
// the running count in the gated one, so that the gate's candidates (the
// replicas at the least count) are the gated order's first keys.
//   ranked(gated)   RankedKeys of the finite keys: the k-th least candidate
//                   score, the candidates below a score.
//   first(gated)    TournamentTree of every key (+inf scores too): the
//                   lowest-index replica from p on whose key is at most x.
//   counts()        InFlightOrder of the counts as keyed (the gate's least,
//                   most and replicas at the least).
//
// Keying is AibrixLoadOrder's (aibrix_load_order.h): a score changes with its
// replica's count (announced by touched()), with a scrape and with the
// capacity estimates; every replica is rekeyed when the scrape or the
// estimates changed since the last rekeying, else only the touched ones. That
// needs a view for which AibrixLoadOrder::usable holds.
//
// Invariants (after update, for the view it was given): score(r) is
// AibrixLoad::score of replica r now, count(r) its running count; ranked(g)
// holds r's key exactly when the score is finite; first(g) holds every key.
// Cost: update O(T log R) for T touched replicas whose keys changed, plus
// RankedKeys' move of the keys between each old and new place (at most R
// each; the trees climb only while their least keys change:
// TournamentTree::update); every replica is rekeyed once per scrape or
// sample of the estimates (those whose keys changed, as above).
// Memory: O(R).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "prefixroute/base/ranked_keys.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/policies/aibrix_load_balance.h"
#include "prefixroute/policies/aibrix_rekey_schedule.h"
#include "prefixroute/policies/cluster_view.h"
#include "prefixroute/cluster/in_flight_order.h"

namespace prefixroute {

class AibrixLoadRanks {
 public:
  struct Key {
    std::uint32_t group;
    double score;
    bool operator<(const Key& o) const { return group < o.group || (group == o.group && score < o.score); }
    bool operator==(const Key&) const = default;
  };
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};  // first()'s padding: above every group
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  /// Replica r's count may have changed (see AibrixLoadOrder::touched).
  void touched(std::size_t r) { schedule_.touch(r); }
  /// Brings every key up to date for `cluster` (AibrixLoadOrder::usable) and
  /// the scores and estimates of `load` (advanced to now).
  void update(const ClusterView& cluster, AibrixLoad& load);

  double score(std::size_t r) const { return scores_[r]; }
  std::uint32_t count(std::size_t r) const { return counts_.count(r); }
  const InFlightOrder& counts() const { return counts_; }
  const RankedKeys<Key>& ranked(bool gated) const { return gated ? gated_ranked_ : ranked_; }
  const TournamentTree<Key>& first(bool gated) const { return gated ? gated_first_ : first_; }

 private:
  void rekey_all(const ClusterView& cluster, const AibrixLoad& load);
  // `fresh`: the structures were just rebuilt (every key must be set).
  void rekey(const ClusterView& cluster, const AibrixLoad& load, std::size_t r, bool fresh);

  std::vector<double> scores_;
  InFlightOrder counts_{0};
  RankedKeys<Key> ranked_, gated_ranked_;
  TournamentTree<Key> first_{0, Key{kEmpty, kInf}}, gated_first_{0, Key{kEmpty, kInf}};
  AibrixRekeySchedule schedule_;
  double fallback_ = -1;  // AibrixLoad::score's fallback capacity, kept until the estimates change
};

}  // namespace prefixroute
