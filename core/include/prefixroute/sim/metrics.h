// Summary metrics of a simulation run.
//
// Definitions
//   percentile p of N values: nearest rank, the value at 1-based rank
//     ceil(p/100 * N) of the sorted values (no interpolation); p50 of
//     {1,2,3,4} is 2. Computed on integer ticks, reported in ms.
//   hit rate: cached prompt tokens / all prompt tokens (token-weighted).
//   imbalance: busiest replica's work (busy time) / mean work over replicas;
//     1.0 is perfect balance, n means one replica did everything. 1.0 when no
//     work was done at all.
//   predicted hit rate: the tokens a policy expected to be cached on the
//     replicas it chose / those requests' prompt tokens (policies that make
//     predictions only); beside it the engines' actual hit rate on the same
//     requests. The gap measures how wrong the router's view of the caches is.
//   end-to-end: completion - arrival; equals TTFT when decode is off.
//   TPOT (batched engine): per request that generated more than one token,
//     (completion - first token) / (tokens generated after the first); mean
//     and nearest-rank percentiles over those requests.
//   later-call hit rate (workloads with sessions): the hit rate of the calls
//     after the first of their session; one-replica session share: of the
//     sessions of more than one call, the share served by one replica
//     throughout (sim/session_tally.h).
//   output tokens/s: tokens generated (first tokens included) / the run's
//     span, from the first arrival to the last completion; per replica with
//     the same span, so the replicas' rates add up to the cluster's.
//   With a client timeout (workload/client.h) a request whose end-to-end time
//     exceeds it has failed: it is counted, and the TTFT, end-to-end and TPOT
//     figures are over the others. The client wait is a request's send time
//     minus its due time (a capped closed loop's wait for a free slot).
//   A stage (client stages) holds the requests sent in it: completed/s and
//     tokens/s are its completed requests' over the stage's span (its start
//     to its last completion); KV use is the mean and nearest-rank p90 of
//     every replica's samples in that span.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "prefixroute/sim/simulator.h"
#include "prefixroute/base/time.h"

namespace prefixroute {

/// One client stage's results (the warm-up has none).
struct StageSummary {
  double load = 0;                  ///< offered: requests/s (open loop) or requests outstanding (closed)
  double duration_s = 0;            ///< as planned
  double start_s = 0;               ///< as it ran: its start, from the run's clock 0
  double end_s = 0;                 ///< its last request's completion (or timeout)
  std::uint64_t requests = 0;       ///< sent in it
  std::uint64_t failed = 0;         ///< timed out
  double completed_per_s = 0;
  double input_tokens_per_s = 0;
  double output_tokens_per_s = 0;
  double mean_ttft_ms = 0;
  double p50_ttft_ms = 0;
  double p90_ttft_ms = 0;
  double p99_ttft_ms = 0;
  bool has_tpot = false;            ///< some completed request generated two tokens (batched engine)
  double mean_tpot_ms = 0;
  double p90_tpot_ms = 0;
  double mean_e2e_ms = 0;
  bool has_kv = false;              ///< some KV sample fell in its span
  double mean_kv_use = 0;
  double p90_kv_use = 0;
  double hit_rate = 0;              ///< cached / prompt tokens of its requests
  double mean_client_wait_ms = 0;
};

struct RunSummary {
  std::uint64_t requests = 0;
  double mean_ttft_ms = 0;
  double p50_ttft_ms = 0;
  double p90_ttft_ms = 0;
  double p99_ttft_ms = 0;
  double max_ttft_ms = 0;
  double hit_rate = 0;
  std::uint64_t prompt_tokens = 0;
  std::uint64_t prefill_tokens = 0;
  std::uint64_t cached_tokens = 0;
  double imbalance = 1.0;
  bool has_prediction = false;
  double predicted_hit_rate = 0;  ///< valid when has_prediction
  double predicted_actual_hit_rate = 0;
  double mean_e2e_ms = 0;
  double p50_e2e_ms = 0;
  double p99_e2e_ms = 0;
  // Batched engine only.
  bool has_tpot = false;          ///< some request generated more than one token
  double mean_tpot_ms = 0;
  double p50_tpot_ms = 0;
  double p99_tpot_ms = 0;
  double span_s = 0;              ///< first arrival to last completion
  std::uint64_t output_tokens = 0;
  double output_tokens_per_s = 0;
  std::uint64_t preemptions = 0;
  std::uint64_t recomputed_tokens = 0;
  double mean_batch = 0;          ///< over replicas, weighted by their busy time
  // Workloads with sessions only (SessionFigures::present()).
  bool has_sessions = false;
  std::uint64_t sessions = 0;
  std::uint64_t multi_call_sessions = 0;
  double later_call_hit_rate = 0;        ///< 0 when no call came after its session's first
  double one_replica_session_share = 0;  ///< of the multi-call sessions
  // A benchmark client's figures (runs with one: SimulationRun::client).
  bool has_client = false;
  std::uint64_t failed = 0;              ///< requests that exceeded the client's timeout
  double mean_client_wait_ms = 0;
  double p99_client_wait_ms = 0;
  std::vector<StageSummary> stages;      ///< the client's stages, warm-up left out
  // With SLO targets (the scenario's slo.*): set by the run list from the
  // run's requests (run/slo.h), never by summarize().
  bool has_slo = false;
  bool has_ttft_target = false;
  bool has_tpot_target = false;
  double ttft_attainment = 0;            ///< share of the requests sent with TTFT within the bound
  double tpot_attainment = 0;            ///< share with TPOT within the bound
  double slo_attainment = 0;             ///< share within every target
  double goodput_per_s = 0;              ///< requests within every target / the run's span
  std::uint64_t slo_met = 0;             ///< 1: every target's attainment reaches its percentile
};

/// The nearest rank of `percent` (in [1, 100]) among n > 0 sorted values,
/// 1-based: ceil(percent * n / 100) in integer arithmetic, at least 1.
std::uint64_t nearest_rank(std::uint32_t percent, std::uint64_t n);

/// Nearest-rank percentile of `sorted` (ascending, non-empty), percent in [1, 100].
Tick nearest_rank_percentile(std::span<const Tick> sorted, std::uint32_t percent);

/// The nearest-rank percentiles of `values` (non-empty) for `percents`
/// (ascending, each in [1, 100]), then the maximum: the values
/// nearest_rank_percentile() gives on the sorted values, found by selection
/// instead of a sort. Reorders `values`. Cost: O(N) per percent, expected
/// (a sort of the 4,000 TTFTs of a run cost more than a policy's choices).
std::vector<Tick> nearest_ranks_and_max(std::span<Tick> values, std::span<const std::uint32_t> percents);

RunSummary summarize(const SimulationRun& run);

}  // namespace prefixroute
