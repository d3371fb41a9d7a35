// The four routing policies of the seed model. Each states its tie-breaks.
#pragma once

#include <cstddef>
#include <vector>

#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// RoundRobin: replicas 0, 1, ..., n-1, 0, ... regardless of state. The
/// cache-blind gateway default.
class RoundRobin final : public RoutingPolicy {
 public:
  std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) override;
  std::string_view name() const override { return "round_robin"; }

 private:
  std::size_t next_ = 0;
};

/// LeastLoaded: the replica with the least projected outstanding work
/// (busy_until - now). Ties rotate: the scan starts one past the previous
/// choice, so an idle cluster is filled in round-robin order.
class LeastLoaded final : public RoutingPolicy {
 public:
  std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) override;
  std::string_view name() const override { return "least_loaded"; }

 private:
  std::size_t start_ = 0;
};

/// Affinity (naive): the replica with the longest cached prefix of the prompt.
/// Ties (including "nobody has it", all zero) go to the least projected wait,
/// then rotate as in LeastLoaded. No load guard: a heavy tenant piles up.
class Affinity final : public RoutingPolicy {
 public:
  std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) override;
  std::string_view name() const override { return "affinity"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  CacheView matched_view() const override { return CacheView::Engine; }

 private:
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::vector<PrefixIndex::Held> held_;  // this request's replicas with a cached prefix (reused buffer)
};

/// AffinityBalanced (recommended): let w_min be the least projected wait.
/// Eligible replicas are those with wait <= w_min + load_slack. Among them,
/// the longest cached prefix wins; ties go to the least wait, then rotate.
/// When no eligible replica has any of the prompt cached this is exactly
/// LeastLoaded (the fallback to load balancing).
class AffinityBalanced final : public RoutingPolicy {
 public:
  static constexpr double kDefaultLoadSlackS = 0.05;

  explicit AffinityBalanced(Tick load_slack) : load_slack_(load_slack) {}
  std::size_t choose(TokenSpan tokens, std::span<const Replica> replicas, Tick now) override;
  std::string_view name() const override { return "affinity_balanced"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  Tick load_slack() const { return load_slack_; }
  CacheView matched_view() const override { return CacheView::Engine; }

 private:
  Tick load_slack_;
  std::size_t start_ = 0;
  std::int64_t predicted_ = -1;
  std::vector<PrefixIndex::Held> held_;  // this request's replicas with a cached prefix (reused buffer)
};

}  // namespace prefixroute
