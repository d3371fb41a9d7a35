// SessionSticky: Dynamo-style session affinity in front of Dynamo's KV
// router, re-implemented from Dynamo's published behaviour (ai-dynamo/dynamo :
// docs/components/router/router-configuration.md,
// --router-session-affinity-ttl-secs and --router-session-affinity-mode;
// PRs #10875 and #13907).
//
// The rule. A request carries its session. The router keeps, per session, a
// binding to one replica:
//   - the session's first call (or its first after the binding expired) is
//     routed by the base policy, and the binding is made to the replica it
//     was dispatched to (Dynamo binds after the first dispatch);
//   - hard (Dynamo's default): while the binding lives, every call of the
//     session goes to the bound replica, whatever the base says;
//   - soft: the binding is a preference inside the base's score: the bound
//     replica's cost is lowered by soft_bonus_blocks, and it is taken when
//     that makes it no costlier than the base's own choice; otherwise the
//     base's choice is taken and the session is rebound to it (Dynamo
//     rebinds a soft session after dispatch).
//   - expiry: a binding lives while a request of the session is in flight
//     (Dynamo's active-request lease) and for ttl_s after the session's last
//     activity (the later of its last call's arrival and its last
//     completion).
//
// The base policy is Dynamo's KV router (dynamo_kv, dynamo_kv.h) with its
// default parameters: Dynamo's session affinity sits in front of that
// selector, so "another policy's score" is Dynamo's cost (prefill blocks to
// compute plus blocks held, from KV events), and soft_bonus_blocks is in its
// unit, KV blocks. The base is consulted for every request, bound or not, so
// its own bookkeeping (active blocks, overlaps) stays exact.
//
// With every request its own session (today's workloads: session = request
// index) no binding is ever used, and the policy routes exactly as dynamo_kv
// does (a test pins this); it differs only when sessions span requests.
//
// Defaults: Dynamo's TTL is off unless given (1 s to 1 year allowed); ttl_s =
// 300 s and soft_bonus_blocks = 32 (512 tokens at 16-token blocks) are this
// project's choices, not published values. mode = hard is Dynamo's default.
// Simplifications, named: one router (Dynamo syncs bindings between router
// replicas best-effort); no DP ranks; no explicit worker targets.
//
// Signals: those of dynamo_kv (KV-event view, router-local active blocks)
// plus the router's own session table.
// Deterministic: the only draws are the base's (its own seeded Rng).
// Cost: the base's choose, plus O(1) expected per request for the session
// table (hash maps looked up, never iterated) and an amortised O(1) sweep of
// expired bindings (a queue of expiry candidates in time order).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <unordered_map>
#include <utility>

#include "prefixroute/policies/dynamo_kv.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// How a live binding enters routing.
enum class SessionAffinityMode : std::uint8_t { Hard, Soft };

struct SessionStickyParams {
  SessionAffinityMode mode = SessionAffinityMode::Hard;
  double ttl_s = 300;             ///< a binding's idle lifetime
  double soft_bonus_blocks = 32;  ///< soft: cost credit of the bound replica, in Dynamo cost units (blocks)
};

class SessionSticky final : public RoutingPolicy {
 public:
  /// `seed` is the scenario seed (the base policy's stream).
  SessionSticky(const SessionStickyParams& params, std::uint64_t seed);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override { return "session_sticky"; }
  std::int64_t predicted_cached_tokens() const override { return predicted_; }
  void on_routed(const RoutedRequest& request) override;
  void on_first_token(std::uint64_t id, std::size_t replica, Tick now) override;
  void on_completed(std::uint64_t id, std::size_t replica, Tick now) override;
  CacheView matched_view() const override { return base_.matched_view(); }

  // ---- inspection, for tests ----
  /// The replica `session` is bound to at `now`, or -1 when it has no live binding.
  std::int64_t bound_replica(std::uint64_t session, Tick now) const;
  /// Whether the last choose() followed a live binding.
  bool last_followed_binding() const { return followed_; }
  const DynamoKv& base() const { return base_; }
  /// Sessions with a binding in the table (live or awaiting the sweep).
  std::size_t bindings() const { return bindings_.size(); }

 private:
  struct Binding {
    std::uint32_t replica = 0;
    std::uint32_t active = 0;  // requests of the session in flight
    Tick last_activity = 0;
  };

  /// When an idle binding expires: ttl_ after its last activity (saturating).
  Tick expiry(const Binding& b) const {
    return b.last_activity > std::numeric_limits<Tick>::max() - ttl_ ? std::numeric_limits<Tick>::max()
                                                                    : b.last_activity + ttl_;
  }
  bool live(const Binding& b, Tick now) const { return b.active > 0 || now < expiry(b); }
  void sweep(Tick now);

  SessionStickyParams params_;
  Tick ttl_;
  DynamoKv base_;
  std::unordered_map<std::uint64_t, Binding> bindings_;      // by session; lookups only
  std::unordered_map<std::uint64_t, std::uint64_t> session_of_;  // in-flight request id -> session
  std::deque<std::pair<Tick, std::uint64_t>> expiries_;      // (expiry candidate, session), in time order
  bool followed_ = false;
  std::int64_t predicted_ = -1;
};

/// SessionSticky's entry in the policy catalogue.
const PolicySpec& session_sticky_policy_spec();

}  // namespace prefixroute
