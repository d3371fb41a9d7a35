// ClusterView: what a routing policy sees of the cluster when it chooses, in
// one read-only value: the replicas, and the shared structures the simulator
// keeps so policies need not scan every replica.
//
//   match_all / match_held / every replica's cached prefix of the prompt, in
//   match_groups             the engine's caches or the router's precise view:
//                            one walk of the cluster's PrefixIndex when the
//                            view has one for those caches, else one match per
//                            replica (the same numbers); per replica, per
//                            holder, or per matched length (replica sets).
//   least_wait               the least-wait replica, first in rotated order:
//                            O(log R) from the TournamentTree of busy_until()
//                            when the view has one, else a scan.
//   scrape_count             a number that changes whenever any replica's
//                            scraped() metrics may have changed, so a policy
//                            may keep what it derives from them until then.
//   total_in_flight          the sum of the replicas' in_flight(): the
//                            simulator's running sum, else a scan.
//   least_in_flight /        the lowest-index replica with the fewest in
//   most_in_flight           flight, and the most in flight: from the
//                            simulator's InFlightOrder, else a scan.
//   in_flight_announced      whether a policy's hooks announce every change
//                            of in_flight() it could see (the simulator's
//                            view), so it may keep what it derives from the
//                            counts and update only the announced replicas.
//
// A view built from replicas alone (unit tests, the wasm library's
// Policy.choose) has neither structure and scans; the simulator's view has
// both, kept current by the simulator.
//
// The engine's match of the chosen replica. When a policy's walk read the
// engine's caches (the index is of the engine caches, not a lagging mirror),
// the view keeps that walk's answer, and the simulator takes the insert's
// already-cached length from it (known_engine_match). It never takes it from
// a policy's own prediction, which may be wrong by design (an approximate
// tree, a lagging view).
//
// Invariant: index and busy_until, when present, describe exactly `replicas`,
// in order. Cost: see each function; the memo of the last walk copies its
// answer (O(holders) for match_held, O(R) for match_all; match_groups'
// answer is remembered, not copied).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/cluster/in_flight_order.h"
#include "prefixroute/cluster/replica.h"

namespace prefixroute {

/// The caches a policy matches prompts against: none, the engine's (cache())
/// or the router's precise view (precise_view()).
enum class CacheView : std::uint8_t { None, Engine, Precise };

/// Index of the replica with the least projected wait at `now`. Ties go to the
/// first tied replica at or after `start` (cyclically), so a rotating `start`
/// spreads ties evenly instead of always favouring replica 0. O(R).
std::size_t least_loaded_index(std::span<const Replica> replicas, Tick now, std::size_t start = 0);

class ClusterView {
 public:
  /// A view that scans: no index, no busy_until tree. Implicit, so a span
  /// of replicas can be passed where a view is wanted.
  ClusterView(std::span<const Replica> replicas) : replicas_(replicas) {}  // NOLINT(google-explicit-constructor)
  ClusterView(const std::vector<Replica>& replicas) : replicas_(replicas) {}  // NOLINT(google-explicit-constructor)

  /// The simulator's view. `index` (may be null) indexes the caches of
  /// `index_view` for every replica; `index_is_engine` says whether those
  /// caches are the engines' own (true for Engine, and for Precise when KV
  /// events do not lag). `busy_until` (may be null) holds every replica's
  /// busy_until().
  ClusterView(std::span<const Replica> replicas, const PrefixIndex* index, CacheView index_view,
              bool index_is_engine, const TournamentTree<Tick>* busy_until)
      : replicas_(replicas),
        index_(index),
        index_view_(index_view),
        index_is_engine_(index_is_engine),
        busy_until_(busy_until) {}

  std::span<const Replica> replicas() const { return replicas_; }
  std::size_t size() const { return replicas_.size(); }
  const Replica& operator[](std::size_t i) const { return replicas_[i]; }

  /// out[i] = replica i's cached prefix of `tokens` in `view`.
  /// O(L log F + D R / 64 + R) with the index, else O(R L log F).
  void match_all(const Prompt& prompt, CacheView view, std::vector<std::size_t>& out) const;

  /// The replicas whose cached prefix of `tokens` in `view` is not empty, in
  /// replica order, with its length; every other replica matches 0. With the
  /// index there is no per-replica cost for replicas holding none of it.
  void match_held(const Prompt& prompt, CacheView view, std::vector<PrefixIndex::Held>& out) const;

  /// The same replicas grouped by matched length (cache/held_groups.h). With
  /// the index O(L log F + D R / 64) (nothing per holder), else a scan and a
  /// sort of the holders by length. When the walk reads the engines' caches,
  /// known_engine_match reads `out` itself (not a copy: a copy per request is
  /// a measurable share of a choice) until forget_walk(): the caller keeps it
  /// alive and unchanged until then (a policy's member, as the simulator
  /// asks known_engine_match right after choose()).
  void match_groups(const Prompt& prompt, CacheView view, HeldGroups& out) const;

  /// The simulator's count of scrapes taken (set_scrape_count), or nullopt
  /// for a view without one: then any replica's scraped() may differ from
  /// the previous call's.
  std::optional<std::uint64_t> scrape_count() const {
    return scrapes_ == nullptr ? std::nullopt : std::optional<std::uint64_t>(*scrapes_);
  }
  /// Points the view at a counter the simulator bumps with every scrape.
  void set_scrape_count(const std::uint64_t* scrapes) { scrapes_ = scrapes; }
  /// The sum of every replica's in_flight(): O(1) when the simulator keeps
  /// it (set_in_flight_total), else a scan.
  std::uint64_t total_in_flight() const;
  /// Where the simulator keeps that sum, current whenever a policy is asked.
  void set_in_flight_total(const std::uint64_t* total) { in_flight_total_ = total; }
  /// The lowest-index replica with the fewest in_flight(): O(log R) with the
  /// simulator's InFlightOrder (set_in_flight_order), else a scan.
  std::size_t least_in_flight() const;
  /// The largest in_flight(): O(1) with the InFlightOrder, else a scan.
  std::uint32_t most_in_flight() const;
  /// Where the simulator keeps the counts in order (null: scan).
  void set_in_flight_order(const InFlightOrder* order) { in_flight_order_ = order; }
  /// True when, between two choose() calls of a policy, a replica's
  /// in_flight() changes only when that policy's on_routed or on_completed
  /// names the replica: in the simulator a router instance's counts move only
  /// with its own requests (RouterInstances). False for a view of replicas
  /// alone, whose counts anyone may set.
  bool in_flight_announced() const { return in_flight_announced_; }
  void set_in_flight_announced(bool announced) { in_flight_announced_ = announced; }

  /// least_loaded_index(replicas(), now, start): O(log R) with the tree.
  std::size_t least_wait(Tick now, std::size_t start) const;

  /// The engine cache's match of exactly `prompt` (the same pieces) on
  /// `replica`, when a walk of this view since forget_walk() read the
  /// engines' caches for that prompt; nullopt otherwise.
  std::optional<std::size_t> known_engine_match(const Prompt& prompt, std::size_t replica) const;

  /// Drops the remembered walk (the simulator calls it before each choose:
  /// a cache changes between requests). Keeps the buffers' capacity.
  void forget_walk() const { walk_.data = nullptr; }

 private:
  // The last walk that read the engines' caches: either one length per
  // replica (match_all), the holders (match_held) or their groups (match_groups).
  struct Walk {
    const Piece* data = nullptr;  // the walked prompt's pieces
    std::size_t size = 0;         // and its length
    enum class Kind : std::uint8_t { All, Held, Groups } kind = Kind::All;
    std::vector<std::size_t> lengths;          // match_all
    std::vector<PrefixIndex::Held> held;       // match_held, by replica
    const HeldGroups* groups = nullptr;        // match_groups: the caller's answer
  };

  bool index_serves(CacheView view) const { return index_ != nullptr && view == index_view_; }
  // Whether a walk in `view` read the engines' caches (so its answer may be
  // remembered for the insert).
  bool reads_engine(CacheView view) const {
    return view == CacheView::Engine || (index_serves(view) && index_is_engine_);
  }

  std::span<const Replica> replicas_;
  const PrefixIndex* index_ = nullptr;
  CacheView index_view_ = CacheView::None;
  bool index_is_engine_ = false;
  const TournamentTree<Tick>* busy_until_ = nullptr;
  const std::uint64_t* scrapes_ = nullptr;
  const std::uint64_t* in_flight_total_ = nullptr;
  bool in_flight_announced_ = false;
  const InFlightOrder* in_flight_order_ = nullptr;
  mutable Walk walk_;
  mutable std::vector<PrefixIndex::Held> scan_held_;  // match_groups' scratch without the index
};

}  // namespace prefixroute
