#include "prefixroute/policies/aibrix_load_order.h"

namespace prefixroute {

AibrixLoadOrder::Key AibrixLoadOrder::key_now(const Replica& replica, const AibrixLoad& load, std::size_t r,
                                              double& fallback) {
  return Key{load.score(replica, r, fallback), replica.scraped().kv_usage};
}

void AibrixLoadOrder::recount(std::size_t r, std::uint32_t c) {
  tally_.move(counts_[r], c);
  counts_[r] = c;
}

void AibrixLoadOrder::rekey(const ClusterView& cluster, const AibrixLoad& load, std::size_t r, double& fallback) {
  const Replica& replica = cluster[r];
  const std::uint32_t c = replica.in_flight();
  const Key key = key_now(replica, load, r, fallback);
  if (c == counts_[r] && keys_[r] == key) return;  // as it is
  recount(r, c);
  keys_.update(r, key);
  gated_keys_.update(r, GatedKey{c, key});
}

void AibrixLoadOrder::rekey_all(const ClusterView& cluster, const AibrixLoad& load) {
  const std::size_t n = cluster.size();
  if (counts_.size() != n) {  // every replica at count 0 until rekeyed below
    counts_.assign(n, 0);
    tally_ = CountTally(n);
  }
  if (keys_.size() != n) {  // every key is set below: the trees are rebuilt only for a new size
    keys_ = TournamentTree<Key>(n, Key{kInf, kInf});
    gated_keys_ = TournamentTree<GatedKey>(n, GatedKey{~std::uint32_t{0}, Key{kInf, kInf}});
  }
  // Every key is new here: the trees are assigned whole (O(R)) rather than
  // rekeyed one replica at a time (O(R log R)); the same trees.
  fallback_ = -1;
  fresh_keys_.resize(n);
  for (std::size_t r = 0; r < n; ++r) {
    fresh_keys_[r] = key_now(cluster[r], load, r, fallback_);
    recount(r, cluster[r].in_flight());
  }
  keys_.assign([this](std::size_t r) { return fresh_keys_[r]; });
  gated_keys_.assign([this](std::size_t r) { return GatedKey{counts_[r], fresh_keys_[r]}; });
  schedule_.keyed(cluster, load);
}

template <typename K>
void AibrixLoadOrder::least_positions(const TournamentTree<K>& tree) {
  survivors_.clear();
  const K least = tree.least();
  for (std::size_t at = tree.first_at_most(0, least); at < tree.size(); at = tree.first_at_most(at + 1, least))
    survivors_.push_back(at);
}

std::size_t AibrixLoadOrder::choose(const ClusterView& cluster, AibrixLoad& load, Rng& rng, bool& gated) {
  const std::size_t n = cluster.size();
  load.ensure_replicas(n);
  if (schedule_.stale(cluster, load)) {
    rekey_all(cluster, load);
  } else {
    schedule_.rekey_touched([&](std::size_t r) { rekey(cluster, load, r, fallback_); });
  }
  // The gate of AibrixLoad::gate, on the kept least, most and total counts.
  const std::uint64_t min = gated_keys_.least().count, max = tally_.most(), sum = cluster.total_in_flight();
  gated = load.imbalanced(n, min, max, sum);
  if (gated) {
    least_positions(gated_keys_);
  } else {
    least_positions(keys_);
  }
  return survivors_.size() == 1 ? survivors_.front()
                                : survivors_[static_cast<std::size_t>(rng.below(survivors_.size()))];
}

}  // namespace prefixroute
