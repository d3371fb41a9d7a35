// SmgExpectedWait: the SGLang model gateway's `least_load` and `power_of_two`
// policies, re-implemented from their source (smg-project/smg :
// model_gateway/src/policies/least_load.rs and power_of_two.rs).
//
// The rule. Each candidate replica r scores its expected wait, in seconds:
//
//   score(r) = (queued_tokens(r) + since_poll_tokens(r)) / throughput
//            + kv_pressure_weight_s x k(r) / (1 - k(r))
//
// and the lowest score wins.
//   queued_tokens(r)      the replica's queued uncached prefill at the last
//                         poll (SGLang's num_waiting_uncached_tokens), or,
//                         with queued_tokens = waiting_requests, the waiting
//                         requests at that poll x mean_prefill_tokens (smg's
//                         own estimate for backends that report only a queue
//                         depth).
//   since_poll_tokens(r)  the prompt tokens this router has dispatched to r
//                         since that poll (smg credits the request's token
//                         count on its gRPC path); reset to 0 at every poll
//                         (smg's fix for incast between stale polls).
//   throughput            throughput_tokens_per_s: smg uses the backend's
//                         gen_throughput when reported, else 2000 tokens/s;
//                         the simulator reports none, so the default holds.
//   k(r)                  KV usage at the poll, clamped to [0, 0.999].
// Candidates: every replica (`smg_least_load`), or two distinct replicas
// drawn uniformly (`smg_power_of_two`: the first uniform over n, the second
// (first + 1 + uniform over n - 1) mod n, as power_of_two.rs draws them).
// Ties: reservoir sampling over the candidates in order (each further tied
// candidate replaces the pick with probability 1/k), as smg does; the draws
// come from the policy's own Rng seeded from the scenario seed.
//
// Polls. smg polls every backend's load every poll_period_s (10 s). Here the
// polls fall at simulated times 0, P, 2P, ...; the first choose() at or
// after a boundary takes the poll of the latest boundary (missed ones
// collapse into it) and resets every since-poll tally. What a poll reads:
//   - queued uncached tokens: the engine's outstanding prefill at the
//     boundary, converted to tokens at the cluster's prefill rate
//     (projected_wait x tokens_per_s). The simulator's scrape carries no
//     token count, so this stand-in for SGLang's /get_load report reads the
//     engine at poll instants only; it is exact at the boundary (no request
//     is admitted between the boundary and the choose() that takes the
//     poll). It includes the rest of the prefill in progress, which
//     SGLang's waiting-queue count does not.
//   - waiting requests and KV usage: the router's latest scrape
//     (scraped(), every router.scrape_period_ms) at that choose().
// Between polls the policy reads nothing but its own tally.
//
// Simplifications, named: no max_waiting_requests veto (off by default in
// smg; when every worker is capped smg returns no worker and the request
// waits in the router's admission queue, which the simulator cannot hold);
// the dark-fleet fallbacks (join-shortest-queue before any report, peer
// baseline for a worker without a report) never apply, since the poll at
// time 0 precedes every arrival and covers every replica; the single-worker
// shortcut is kept (one replica: chosen without a tally).
//
// The scan without visiting every replica (least_load). A score changes only
// at a poll (every replica) and when choose() credits the chosen replica, so
// the scores live in a TournamentTree, rebuilt at each poll and updated for
// the chosen replica; reservoir_least (base/reservoir_least.h) walks it to
// exactly the replicas the scan acts on (each fall of the running least and
// each replica tying it, in replica order), drawing the same random numbers.
//
// Invariants: since_poll_tokens(r) is the sum of the prompt tokens routed to
// r by choose() since the last poll; the tree holds score(r) for every r
// (least_load). No prediction of cached tokens (-1).
// Cost: least_load O((records + ties) log R) per choose, where records is the
// number of falls of the running least in replica order (about ln R) and ties
// the replicas tying it (each takes a draw, as in smg); power_of_two O(1);
// O(R log R) at each poll.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// What a poll reads as a replica's queued work.
enum class SmgQueuedTokens : std::uint8_t { UncachedTokens, WaitingRequests };

/// smg least_load / power_of_two parameters, with smg's defaults.
struct SmgLeastLoadParams {
  double kv_pressure_weight_s = 0.15;    ///< lambda of the KV barrier
  double throughput_tokens_per_s = 2000; ///< smg's default when no gen_throughput is reported
  double poll_period_s = 10;             ///< load poll period
  std::uint32_t mean_prefill_tokens = 1024;  ///< p-bar, for queued_tokens = waiting_requests
  SmgQueuedTokens queued_tokens = SmgQueuedTokens::UncachedTokens;
};

class SmgExpectedWait final : public RoutingPolicy {
 public:
  enum class Candidates : std::uint8_t { All, PowerOfTwo };

  /// `seed` is the scenario seed; `cluster_prefill_tokens_per_s` converts the
  /// engine's outstanding prefill time to tokens at a poll.
  SmgExpectedWait(const SmgLeastLoadParams& params, Candidates candidates, std::uint64_t seed,
                  double cluster_prefill_tokens_per_s);

  std::size_t choose(const RouteRequest& request, const ClusterView& cluster, Tick now) override;
  std::string_view name() const override {
    return candidates_ == Candidates::All ? "smg_least_load" : "smg_power_of_two";
  }

  // ---- inspection, for tests ----
  /// The expected-wait score of replica r from the last poll and the tally.
  double score(std::size_t r) const;
  std::uint64_t since_poll_tokens(std::size_t r) const { return r < since_poll_.size() ? since_poll_[r] : 0; }
  double polled_queued_tokens(std::size_t r) const { return r < queued_.size() ? queued_[r] : 0; }
  /// Simulated time of the boundary the last poll was taken at (-1: none yet).
  Tick last_poll() const { return last_poll_; }
  /// The pair power_of_two drew in the last choose(), in the order scored
  /// (least_load: empty, every replica is a candidate; one replica: {0}).
  const std::vector<std::size_t>& last_candidates() const { return candidates_scored_; }

 private:
  void poll(const ClusterView& cluster, Tick boundary);

  SmgLeastLoadParams params_;
  Candidates candidates_;
  Rng rng_;
  double cluster_rate_;
  Tick period_;
  Tick last_poll_ = -1;
  std::vector<double> queued_;            // per replica, at the last poll (tokens)
  std::vector<double> kv_;                // per replica, at the last poll
  std::vector<std::uint64_t> since_poll_; // per replica
  std::vector<std::size_t> candidates_scored_;
  TournamentTree<double> scores_{0, 0.0};  // least_load: score(r) at position r
};

/// smg least_load's entry in the policy catalogue.
const PolicySpec& smg_least_load_policy_spec();

/// The rows of smg's parameters, shared by least_load and power_of_two.
std::vector<ParamSpec> smg_least_load_param_rows();

}  // namespace prefixroute
