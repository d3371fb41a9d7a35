// AibrixLoadOrder: AIBrix load-balance's choice (aibrix_load_balance.h; from
// vllm-project/aibrix : pkg/plugins/gateway/algorithms/load_balance.go) from
// order structures over the replicas' keys, instead of scoring every replica
// per request.
//
// The choice it reproduces: the gate over the running counts c(r) (min, max,
// sum); the candidates (every replica, or those at the least count); the
// least score among them; among the tied, the least scraped KV usage; among
// those, one uniform draw in replica order (none when one remains). That is
// the least (score, usage) over the candidates, lexicographically (with
// every score +inf the tie-break runs over every candidate: the same), and
// with the gate the least (c, score, usage) over every replica.
//
// Structures: two TournamentTrees, of (score, usage) and of (c, score,
// usage) (whose least gives the gate's min), and a CountTally of the counts
// as keyed (the gate's max). A
// replica's score changes with its count (every request), its scraped queue
// and usage (every scrape) and the capacity estimates (every sample of the
// output rates); usage only with scrapes. So: every replica is rekeyed when
// the scrape or the estimates changed since the last rekeying, and otherwise
// only the replicas whose count the policy's hooks announced (touched();
// the schedule is AibrixRekeySchedule, shared with AibrixLoadRanks).
// That needs a view whose counts change only with the policy's own requests
// (ClusterView::in_flight_announced) and that counts scrapes; with any other
// view, usable() is false and the policy scans.
//
// The fallback capacity (the mean of the estimates, O(R)) is computed once
// per change of the estimates, not per request.
//
// Invariants (when keyed for the view): key r holds replica r's count, score
// and usage as AibrixLoad::score computes them now, counts_[r] its count,
// and tally_ holds every counts_[r].
// Cost: choose O((1 + survivors) log R), survivors being the replicas at the
// least key (each is visited); a touched replica O(log R), climbing only
// while a tree's least keys change (TournamentTree::update: a replica whose
// count rose is rarely a large subtree's least); rekeying every replica
// O(R), once per scrape or per sample of the estimates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "prefixroute/base/count_tally.h"
#include "prefixroute/base/random.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/policies/aibrix_load_balance.h"
#include "prefixroute/policies/aibrix_rekey_schedule.h"
#include "prefixroute/policies/cluster_view.h"

namespace prefixroute {

class AibrixLoadOrder {
 public:
  /// Whether the structures can serve `cluster` (see the file comment).
  static bool usable(const ClusterView& cluster) {
    return cluster.scrape_count().has_value() && cluster.in_flight_announced();
  }
  /// Replica r's count may have changed (the policy routed a request there or
  /// one it routed there completed).
  void touched(std::size_t r) { schedule_.touch(r); }
  /// AIBrix's choice over `cluster` (usable) with the scores and estimates of
  /// `load` (advanced to now); `gated` says whether the gate fired.
  std::size_t choose(const ClusterView& cluster, AibrixLoad& load, Rng& rng, bool& gated);

 private:
  struct Key {  // the ungated order: least score, then least usage
    double score;
    double usage;
    bool operator<(const Key& o) const { return score < o.score || (score == o.score && usage < o.usage); }
    bool operator==(const Key&) const = default;
  };
  struct GatedKey {  // the gated order: the least count first
    std::uint32_t count;
    Key key;
    bool operator<(const GatedKey& o) const { return count < o.count || (count == o.count && key < o.key); }
    bool operator==(const GatedKey&) const = default;
  };
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  void rekey_all(const ClusterView& cluster, const AibrixLoad& load);
  // Replica r's key as AibrixLoad scores it now.
  static Key key_now(const Replica& replica, const AibrixLoad& load, std::size_t r, double& fallback);
  // Records replica r's count c (counts_ and tally_).
  void recount(std::size_t r, std::uint32_t c);
  // Rekeys replica r (a touched one) when its count, score or usage changed.
  void rekey(const ClusterView& cluster, const AibrixLoad& load, std::size_t r, double& fallback);
  // The positions of `tree` whose key equals its least, in order, into survivors_.
  template <typename K>
  void least_positions(const TournamentTree<K>& tree);

  TournamentTree<Key> keys_{0, Key{kInf, kInf}};
  TournamentTree<GatedKey> gated_keys_{0, GatedKey{~std::uint32_t{0}, Key{kInf, kInf}}};
  std::vector<std::uint32_t> counts_;    // per replica, as keyed
  std::vector<Key> fresh_keys_;          // rekey_all's scratch: every replica's new key
  CountTally tally_;
  AibrixRekeySchedule schedule_;
  std::vector<std::size_t> survivors_;
  // The capacity of replicas without an estimate (AibrixLoad::score's
  // fallback): negative until needed, then kept until the estimates change.
  double fallback_ = -1;
};

}  // namespace prefixroute
