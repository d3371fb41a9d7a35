#include "prefixroute/policies/cluster_view.h"

#include <algorithm>

namespace prefixroute {

std::size_t least_loaded_index(std::span<const Replica> replicas, Tick now, std::size_t start) {
  const std::size_t n = replicas.size();
  std::size_t best = start % n;
  Tick best_wait = replicas[best].projected_wait(now);
  // Scan the rest in rotated order; wrap by compare, not by a division per replica.
  std::size_t i = best;
  for (std::size_t k = 1; k < n; ++k) {
    if (++i == n) i = 0;
    const Tick wait = replicas[i].projected_wait(now);
    if (wait < best_wait) {
      best = i;
      best_wait = wait;
    }
  }
  return best;
}

namespace {

const RadixCache& cache_in(const Replica& replica, CacheView view) {
  return view == CacheView::Precise ? replica.precise_view() : replica.cache();
}

}  // namespace

void ClusterView::match_all(const Prompt& prompt, CacheView view, std::vector<std::size_t>& out) const {
  if (index_serves(view)) {
    index_->match_all(prompt, out);
  } else {
    out.resize(replicas_.size());
    for (std::size_t i = 0; i < replicas_.size(); ++i) out[i] = cache_in(replicas_[i], view).match(prompt);
  }
  if (reads_engine(view)) {
    walk_.data = prompt.pieces.data();
    walk_.size = prompt.size();
    walk_.kind = Walk::Kind::All;
    walk_.lengths.assign(out.begin(), out.end());
  }
}

void ClusterView::match_held(const Prompt& prompt, CacheView view, std::vector<PrefixIndex::Held>& out) const {
  if (index_serves(view)) {
    index_->match_held(prompt, out);
  } else {
    out.clear();
    for (std::size_t i = 0; i < replicas_.size(); ++i) {
      const std::size_t matched = cache_in(replicas_[i], view).match(prompt);
      if (matched > 0) out.push_back(PrefixIndex::Held{static_cast<std::uint32_t>(i), matched});
    }
  }
  if (reads_engine(view)) {
    walk_.data = prompt.pieces.data();
    walk_.size = prompt.size();
    walk_.kind = Walk::Kind::Held;
    walk_.held.assign(out.begin(), out.end());
  }
}

void ClusterView::match_groups(const Prompt& prompt, CacheView view, HeldGroups& out) const {
  if (index_serves(view)) {
    index_->match_groups(prompt, out);
  } else {
    // Each holder's (length, replica), sorted: runs of one length are the groups.
    std::vector<PrefixIndex::Held>& held = scan_held_;
    held.clear();
    for (std::size_t i = 0; i < replicas_.size(); ++i) {
      const std::size_t matched = cache_in(replicas_[i], view).match(prompt);
      if (matched > 0) held.push_back(PrefixIndex::Held{static_cast<std::uint32_t>(i), matched});
    }
    std::sort(held.begin(), held.end(), [](const PrefixIndex::Held& a, const PrefixIndex::Held& b) {
      return a.matched != b.matched ? a.matched < b.matched : a.replica < b.replica;
    });
    out.reset((replicas_.size() + 63) / 64);
    std::uint64_t* group = nullptr;
    for (const PrefixIndex::Held& h : held) {
      if (group == nullptr || out.lengths.back() != h.matched) group = out.add_group(h.matched);
      const std::uint64_t bit = std::uint64_t{1} << (h.replica % 64);
      group[h.replica / 64] |= bit;
      out.all[h.replica / 64] |= bit;
    }
  }
  if (reads_engine(view)) {
    walk_.data = prompt.pieces.data();
    walk_.size = prompt.size();
    walk_.kind = Walk::Kind::Groups;
    walk_.groups = &out;
  }
}

std::uint64_t ClusterView::total_in_flight() const {
  if (in_flight_total_ != nullptr) return *in_flight_total_;
  std::uint64_t total = 0;
  for (const Replica& r : replicas_) total += r.in_flight();
  return total;
}

std::size_t ClusterView::least_in_flight() const {
  if (in_flight_order_ != nullptr) return in_flight_order_->first_least();
  std::size_t least = 0;
  for (std::size_t i = 1; i < replicas_.size(); ++i)
    if (replicas_[i].in_flight() < replicas_[least].in_flight()) least = i;
  return least;
}

std::uint32_t ClusterView::most_in_flight() const {
  if (in_flight_order_ != nullptr) return in_flight_order_->most();
  std::uint32_t most = 0;
  for (const Replica& r : replicas_) most = std::max(most, r.in_flight());
  return most;
}

std::size_t ClusterView::least_wait(Tick now, std::size_t start) const {
  if (busy_until_ == nullptr) return least_loaded_index(replicas_, now, start);
  // The least wait is max(earliest busy_until - now, 0); the replicas with it
  // are those whose busy_until is at most max(now, earliest).
  const Tick bound = std::max(now, busy_until_->least());
  const std::size_t found = busy_until_->first_at_most(start % replicas_.size(), bound);
  return found < replicas_.size() ? found : busy_until_->first_at_most(0, bound);
}

std::optional<std::size_t> ClusterView::known_engine_match(const Prompt& prompt, std::size_t replica) const {
  if (walk_.data == nullptr || walk_.data != prompt.pieces.data() || walk_.size != prompt.size()) return std::nullopt;
  if (walk_.kind == Walk::Kind::All)
    return replica < walk_.lengths.size() ? std::optional<std::size_t>(walk_.lengths[replica]) : std::nullopt;
  if (walk_.kind == Walk::Kind::Groups) return walk_.groups->length_of(replica);
  const auto it = std::lower_bound(walk_.held.begin(), walk_.held.end(), replica,
                                   [](const PrefixIndex::Held& h, std::size_t r) { return h.replica < r; });
  return it != walk_.held.end() && it->replica == replica ? it->matched : 0;
}

}  // namespace prefixroute
