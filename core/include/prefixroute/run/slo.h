// SLO figures of a run: how many requests met the scenario's targets on TTFT
// and TPOT (scenario.h, SloSettings), and the goodput.
//
// Definitions (the requests are those the run sent; a request that failed
// its client timeout meets no target):
//   attainment of a target: the share of the requests within its bound
//     (TTFT <= slo.ttft_ms; TPOT <= slo.tpot_ms, where a request that
//     generated at most one token has no TPOT and meets it, as vLLM's
//     benchmark counts it);
//   SLO attainment: the share within every target;
//   goodput: the requests within every target per second of the run's span
//     (first send to last completion). This is the request goodput of vLLM's
//     benchmark_serving, which takes it from DistServe (Zhong et al.,
//     "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized
//     Large Language Model Serving", OSDI 2024). DistServe's own figure, the
//     highest request rate at which the SLO attainment goal holds, is what
//     the capacity search finds (run/capacity_search.h);
//   the SLO holds (slo_met) when each target is met by at least
//     ceil(percentile x N / 100) of the N requests: exactly when the
//     target's nearest-rank percentile (sim/metrics.h) is within its bound.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/metrics.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

/// The requests of n that a target at `percentile` (at most three decimals)
/// needs within its bound: ceil(percentile x n / 100), in integer arithmetic.
std::uint64_t slo_needed(double percentile, std::uint64_t n);

/// What apply_slo found beyond the summary's figures: each target's value at
/// its percentile (nearest rank, a failed request counting as beyond every
/// bound: absent when the rank falls on one), for curves against the bound.
struct SloFigures {
  std::uint64_t requests = 0;       ///< sent
  std::uint64_t within_all = 0;     ///< within every target
  std::optional<double> ttft_ms;    ///< TTFT at slo.ttft_percentile (with a TTFT target)
  std::optional<double> tpot_ms;    ///< TPOT at slo.tpot_percentile (with a TPOT target)
};

/// Fills the summary's SLO figures (RunSummary::has_slo ...) from a finished
/// run that kept its per-request series (ttft, end_to_end; tpot_of with a
/// TPOT target: a source wrapped by record_request_sizes). Call it after the
/// run's client record is set (failed requests). `slo` must have a target.
/// O(N log N) for N requests (the percentiles sort a copy).
SloFigures apply_slo(const SloSettings& slo, const SimulationRun& run, RunSummary& summary);

/// `source`, asking the run to record per-request sizes and TPOT
/// (SourceRecording::request_sizes), which also keeps its per-request times
/// in memory: what apply_slo reads. Everything else is forwarded.
std::unique_ptr<RequestSource> record_request_sizes(std::unique_ptr<RequestSource> source);

}  // namespace prefixroute
