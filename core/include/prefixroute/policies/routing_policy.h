// RoutingPolicy: the decision prefixroute studies. Given a request's prompt and
// the replicas' state at its arrival, pick the replica that serves it.
//
// Contract: choose() returns an index < replicas.size() (replicas is never
// empty); it may read any replica (cache peeks via match() do not change
// recency) but must not modify them; it may update the policy's own state
// (e.g. a round-robin cursor). A policy uses no unseeded randomness, so the
// same inputs give the same choice. One instance serves one simulation.
//
// What a policy may read: the seed's four policies read engine truth
// (cache().match, projected_wait), as the seed model does. Policies modelled on
// production routers read only what those routers see: in_flight(),
// scraped() metrics, precise_view() of the cache, or their own approximate
// state built from the lifecycle hooks below (called by the simulator in
// event order: on_routed right after choose, on_first_token when prefill
// ends, on_completed when decoding ends).
//
// Matching many replicas: a policy that matches the prompt against every
// replica's cache says which view it reads (matched_view()); the simulator then
// keeps a PrefixIndex of those caches, hands it over (use_prefix_index) and
// match_all() answers all replicas with one walk of the prompt instead of one
// per replica. Without an index (a policy driven directly, as in the unit
// tests) match_all() matches each replica's cache: the same numbers.
//
// Least wait. Likewise the simulator keeps every replica's busy_until() in a
// TournamentTree and hands it over (use_busy_until); least_wait() then finds
// the least-wait replica in O(log R) instead of scanning all R, with the same
// answer as least_loaded_index() (the scan it falls back to).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/sim/replica.h"
#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"
#include "prefixroute/base/tournament_tree.h"

namespace prefixroute {

/// Index of the replica with the least projected wait at `now`. Ties go to the
/// first tied replica at or after `start` (cyclically), so a rotating `start`
/// spreads ties evenly instead of always favouring replica 0. O(R).
std::size_t least_loaded_index(std::span<const Replica> replicas, Tick now, std::size_t start = 0);

/// The caches a policy matches prompts against: none, the engine's (cache())
/// or the router's precise view (precise_view()).
enum class CacheView : std::uint8_t { None, Engine, Precise };

/// A request the policy has just routed.
struct RoutedRequest {
  std::uint64_t id = 0;          ///< index in the trace
  std::size_t replica = 0;       ///< the policy's choice
  TokenSpan tokens;              ///< the prompt (valid during the call only)
  std::uint64_t output_tokens = 0;
  Tick now = 0;
};

class RoutingPolicy {
 public:
  virtual ~RoutingPolicy() = default;

  virtual std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) = 0;

  /// Stable identifier, as in results JSON ("round_robin", ...).
  virtual std::string_view name() const = 0;

  /// How many prompt tokens the policy expected the replica it chose last to
  /// have cached, from the signals it used; -1 when it makes no prediction.
  /// Compared with the engine's actual hit in the results.
  virtual std::int64_t predicted_cached_tokens() const { return -1; }

  virtual void on_routed(const RoutedRequest&) {}
  virtual void on_first_token(std::uint64_t /*id*/, std::size_t /*replica*/, Tick /*now*/) {}
  virtual void on_completed(std::uint64_t /*id*/, std::size_t /*replica*/, Tick /*now*/) {}

  /// Which caches choose() matches prompts against, if any.
  virtual CacheView matched_view() const { return CacheView::None; }
  /// An index of the matched_view() caches of exactly the replicas choose()
  /// is given, in order, kept current by the caller; nullptr to stop using one.
  void use_prefix_index(const PrefixIndex* index) { prefix_index_ = index; }
  /// Every replica's busy_until(), of exactly the replicas choose() is given,
  /// in order, kept current by the caller; nullptr to stop using it.
  void use_busy_until(const TournamentTree<Tick>* busy_until) { busy_until_ = busy_until; }

 protected:
  /// out[i] = replicas[i]'s cached prefix of `tokens` in `view`: one walk of
  /// the index when one is in use, else one match per replica.
  void match_all(TokenSpan tokens, std::span<const Replica> replicas, CacheView view,
                 std::vector<std::size_t>& out) const {
    if (prefix_index_ != nullptr) {
      prefix_index_->match_all(tokens, out);
      return;
    }
    out.resize(replicas.size());
    for (std::size_t i = 0; i < replicas.size(); ++i)
      out[i] = (view == CacheView::Precise ? replicas[i].precise_view() : replicas[i].cache()).match(tokens);
  }

  /// least_loaded_index(replicas, now, start): from the busy_until tree when
  /// one is in use (O(log R)), else by a scan.
  std::size_t least_wait(std::span<const Replica> replicas, Tick now, std::size_t start) const {
    // The tree must be of exactly these replicas (the simulator's always is).
    if (busy_until_ == nullptr || busy_until_->size() != replicas.size())
      return least_loaded_index(replicas, now, start);
    // The least wait is max(earliest busy_until - now, 0); the replicas with it
    // are those whose busy_until is at most max(now, earliest).
    const Tick bound = std::max(now, busy_until_->least());
    const std::size_t found = busy_until_->first_at_most(start % replicas.size(), bound);
    return found < replicas.size() ? found : busy_until_->first_at_most(0, bound);
  }

  /// The replicas with a non-empty cached prefix of `tokens` in `view`, in
  /// replica order, with its length: from the index when one is in use (no
  /// cost per replica holding none of it), else one match per replica.
  void match_held(TokenSpan tokens, std::span<const Replica> replicas, CacheView view,
                  std::vector<PrefixIndex::Held>& out) const {
    if (prefix_index_ != nullptr) {
      prefix_index_->match_held(tokens, out);
      return;
    }
    out.clear();
    for (std::size_t i = 0; i < replicas.size(); ++i) {
      const std::size_t matched =
          (view == CacheView::Precise ? replicas[i].precise_view() : replicas[i].cache()).match(tokens);
      if (matched > 0) out.push_back(PrefixIndex::Held{static_cast<std::uint32_t>(i), matched});
    }
  }

 private:
  const PrefixIndex* prefix_index_ = nullptr;              // not owned
  const TournamentTree<Tick>* busy_until_ = nullptr;       // not owned
};

}  // namespace prefixroute
