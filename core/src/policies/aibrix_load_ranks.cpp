#include "prefixroute/policies/aibrix_load_ranks.h"

#include <cmath>

namespace prefixroute {

void AibrixLoadRanks::rekey(const ClusterView& cluster, const AibrixLoad& load, std::size_t r, bool fresh) {
  const Replica& replica = cluster[r];
  const std::uint32_t c = replica.in_flight();
  const double score = load.score(replica, r, fallback_);
  if (!fresh && c == counts_.count(r) && score == scores_[r]) return;  // every key as it is
  counts_.set(r, c);
  scores_[r] = score;
  first_.update(r, Key{0, score});
  gated_first_.update(r, Key{c, score});
  if (std::isinf(score)) {
    ranked_.erase(r);
    gated_ranked_.erase(r);
  } else {
    ranked_.set(r, Key{0, score});
    gated_ranked_.set(r, Key{c, score});
  }
}

void AibrixLoadRanks::rekey_all(const ClusterView& cluster, const AibrixLoad& load) {
  const std::size_t n = cluster.size();
  const bool fresh = scores_.size() != n;
  if (fresh) {  // every key is set below: the structures are rebuilt only for a new size
    scores_.assign(n, kInf);
    counts_ = InFlightOrder(n);
    ranked_ = RankedKeys<Key>(n);
    gated_ranked_ = RankedKeys<Key>(n);
    first_ = TournamentTree<Key>(n, Key{kEmpty, kInf});
    gated_first_ = TournamentTree<Key>(n, Key{kEmpty, kInf});
  }
  fallback_ = -1;
  for (std::size_t r = 0; r < n; ++r) rekey(cluster, load, r, fresh);
  schedule_.keyed(cluster, load);
}

void AibrixLoadRanks::update(const ClusterView& cluster, AibrixLoad& load) {
  load.ensure_replicas(cluster.size());
  if (schedule_.stale(cluster, load)) {
    rekey_all(cluster, load);
    return;
  }
  schedule_.rekey_touched([&](std::size_t r) { rekey(cluster, load, r, false); });
}

}  // namespace prefixroute
