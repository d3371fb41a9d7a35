// AibrixRekeySchedule: when the keys of an AIBrix order structure
// (AibrixLoadOrder, AibrixLoadRanks) must be recomputed, and for which
// replicas.
//
// A replica's load score changes with its running count (the policy's own
// requests), its scraped metrics (every scrape) and the capacity estimates
// (every sample of the output rates). So every key is recomputed when the
// structure was never keyed or the view it was keyed for changed (another
// replica array, another size, a scrape, new estimates), and otherwise only
// those of the replicas whose count the policy's hooks announced (touch()).
//
// Invariants: touched() lists each replica at most once, and only after the
// first keying; is_touched_[r] is 1 exactly for the replicas it lists.
// Cost: touch O(1); stale O(1); keyed O(R) (clears the marks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "prefixroute/policies/aibrix_load_balance.h"
#include "prefixroute/policies/cluster_view.h"

namespace prefixroute {

class AibrixRekeySchedule {
 public:
  /// Replica r's count may have changed (the policy routed a request there or
  /// one it routed there completed). Nothing before the first keying: that
  /// keys every replica anyway.
  void touch(std::size_t r) {
    if (!keyed_ || r >= is_touched_.size() || is_touched_[r] != 0) return;
    is_touched_[r] = 1;
    touched_.push_back(static_cast<std::uint32_t>(r));
  }
  /// Whether every key must be recomputed for `cluster` and `load`.
  bool stale(const ClusterView& cluster, const AibrixLoad& load) const {
    return !keyed_ || keyed_scrape_ != cluster.scrape_count() || keyed_estimates_ != load.estimate_changes() ||
           keyed_replicas_ != cluster.replicas().data() || keyed_n_ != cluster.size();
  }
  /// Every key was just recomputed for `cluster` and `load`: no replica is
  /// left to rekey.
  void keyed(const ClusterView& cluster, const AibrixLoad& load) {
    touched_.clear();
    is_touched_.assign(cluster.size(), 0);
    keyed_ = true;
    keyed_scrape_ = cluster.scrape_count();
    keyed_estimates_ = load.estimate_changes();
    keyed_replicas_ = cluster.replicas().data();
    keyed_n_ = cluster.size();
  }
  /// Calls rekey(r) once for each touched replica, in the order touched, and
  /// forgets them.
  template <typename Rekey>
  void rekey_touched(Rekey&& rekey) {
    for (const std::uint32_t r : touched_) {
      is_touched_[r] = 0;
      rekey(static_cast<std::size_t>(r));
    }
    touched_.clear();
  }

 private:
  std::vector<std::uint32_t> touched_;  // replicas to rekey, each once
  std::vector<std::uint8_t> is_touched_;
  bool keyed_ = false;
  std::optional<std::uint64_t> keyed_scrape_;
  std::uint64_t keyed_estimates_ = 0;
  const Replica* keyed_replicas_ = nullptr;
  std::size_t keyed_n_ = 0;
};

}  // namespace prefixroute
