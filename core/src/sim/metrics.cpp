#include "prefixroute/sim/metrics.h"

#include <algorithm>

namespace prefixroute {

std::uint64_t nearest_rank(std::uint32_t percent, std::uint64_t n) {
  return std::clamp<std::uint64_t>((static_cast<std::uint64_t>(percent) * n + 99) / 100, 1, n);
}

Tick nearest_rank_percentile(std::span<const Tick> sorted, std::uint32_t percent) {
  return sorted[nearest_rank(percent, sorted.size()) - 1];
}

std::vector<Tick> nearest_ranks_and_max(std::span<Tick> values, std::span<const std::uint32_t> percents) {
  std::vector<Tick> result(percents.size() + 1);
  // From the highest rank down: once the value of rank r is in place, the
  // r - 1 values before it are the smallest, so a lower rank is selected
  // among them alone.
  auto end = values.end();
  std::uint64_t placed = values.size() + 1;  // rank of the value at `end`, past the last
  for (std::size_t j = percents.size(); j-- > 0;) {
    const std::uint64_t rank = nearest_rank(percents[j], values.size());
    if (rank != placed) {
      const auto at = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
      std::nth_element(values.begin(), at, end);
      end = at;
      placed = rank;
    }
    result[j] = *end;
  }
  // The values from the last one placed on are not less than it.
  result.back() = *std::max_element(end, values.end());
  return result;
}

namespace {

// Mean of non-negative ticks, in ms. The sum is kept in two 64-bit words: a
// few million requests waiting hours each already pass 2^63 ns. Below 2^63 the
// result is bit-identical to converting the plain integer sum.
double mean_ms(std::uint64_t low, std::uint64_t high, std::uint64_t count) {
  const double sum = static_cast<double>(high) * 18446744073709551616.0 + static_cast<double>(low);
  return sum / 1e6 / static_cast<double>(count);
}

double mean_ms(const std::vector<Tick>& ticks) {
  std::uint64_t low = 0, high = 0;
  for (const Tick t : ticks) {
    const auto u = static_cast<std::uint64_t>(t);
    low += u;
    if (low < u) ++high;
  }
  return mean_ms(low, high, ticks.size());
}

}  // namespace

RunSummary summarize(const SimulationRun& run) {
  RunSummary s;
  s.requests = run.spilled_ttft ? run.spilled_ttft->size() : run.ttft.size();
  for (const ReplicaTotals& r : run.replicas) {
    s.prefill_tokens += r.prefill_tokens;
    s.cached_tokens += r.cached_tokens;
  }
  s.prompt_tokens = s.prefill_tokens + s.cached_tokens;
  s.hit_rate = s.prompt_tokens == 0
                   ? 0.0
                   : static_cast<double>(s.cached_tokens) / static_cast<double>(s.prompt_tokens);

  Tick busiest = 0;
  Tick total_busy = 0;
  for (const ReplicaTotals& r : run.replicas) {
    busiest = std::max(busiest, r.busy_ticks);
    total_busy += r.busy_ticks;
  }
  if (total_busy > 0) {
    s.imbalance = static_cast<double>(busiest) * static_cast<double>(run.replicas.size()) /
                  static_cast<double>(total_busy);
  }

  if (run.spilled_ttft && !run.spilled_ttft->empty()) {
    const TickSpill& t = *run.spilled_ttft;
    const std::uint32_t percents[] = {50, 90, 99};
    const std::vector<Tick> p = t.nearest_rank(percents);
    s.mean_ttft_ms = mean_ms(t.sum_low(), t.sum_high(), t.size());
    s.p50_ttft_ms = ticks_to_ms(p[0]);
    s.p90_ttft_ms = ticks_to_ms(p[1]);
    s.p99_ttft_ms = ticks_to_ms(p[2]);
    s.max_ttft_ms = ticks_to_ms(t.max());
  } else if (!run.ttft.empty()) {
    s.mean_ttft_ms = mean_ms(run.ttft);
    std::vector<Tick> values(run.ttft);
    const std::uint32_t percents[] = {50, 90, 99};
    const std::vector<Tick> p = nearest_ranks_and_max(values, percents);
    s.p50_ttft_ms = ticks_to_ms(p[0]);
    s.p90_ttft_ms = ticks_to_ms(p[1]);
    s.p99_ttft_ms = ticks_to_ms(p[2]);
    s.max_ttft_ms = ticks_to_ms(p[3]);
  }
  if (run.predicted_prompt_tokens > 0) {
    s.has_prediction = true;
    const auto denominator = static_cast<double>(run.predicted_prompt_tokens);
    s.predicted_hit_rate = static_cast<double>(run.predicted_cached_tokens) / denominator;
    s.predicted_actual_hit_rate = static_cast<double>(run.predicted_actual_cached_tokens) / denominator;
  }
  if (run.batched && !run.cancelled) {
    if (!run.tpot_ns.empty()) {
      std::vector<double> sorted(run.tpot_ns);
      std::sort(sorted.begin(), sorted.end());
      double sum = 0;
      for (const double t : sorted) sum += t;
      s.has_tpot = true;
      s.mean_tpot_ms = sum / static_cast<double>(sorted.size()) / 1e6;
      const auto rank = [&](std::uint32_t percent) { return sorted[nearest_rank(percent, sorted.size()) - 1] / 1e6; };
      s.p50_tpot_ms = rank(50);
      s.p99_tpot_ms = rank(99);
    }
    s.span_s = static_cast<double>(run.last_completion - run.first_arrival) / 1e9;
    double batch_ticks = 0;
    for (const ReplicaTotals& r : run.replicas) {
      s.output_tokens += r.output_tokens;
      s.preemptions += r.preemptions;
      s.recomputed_tokens += r.recomputed_tokens;
      batch_ticks += r.mean_batch * static_cast<double>(r.busy_ticks);
    }
    s.output_tokens_per_s = s.span_s > 0 ? static_cast<double>(s.output_tokens) / s.span_s : 0.0;
    s.mean_batch = total_busy > 0 ? batch_ticks / static_cast<double>(total_busy) : 0.0;
  }
  if (run.sessions.present()) {
    const SessionFigures& f = run.sessions;
    s.has_sessions = true;
    s.sessions = f.sessions;
    s.multi_call_sessions = f.multi_call_sessions;
    s.later_call_hit_rate = f.later_prompt_tokens == 0 ? 0.0
                                                       : static_cast<double>(f.later_cached_tokens) /
                                                             static_cast<double>(f.later_prompt_tokens);
    s.one_replica_session_share =
        static_cast<double>(f.one_replica_sessions) / static_cast<double>(f.multi_call_sessions);
  }
  if (run.spilled_end_to_end && !run.spilled_end_to_end->empty() && !run.cancelled) {
    const TickSpill& e = *run.spilled_end_to_end;
    const std::uint32_t percents[] = {50, 99};
    const std::vector<Tick> p = e.nearest_rank(percents);
    s.mean_e2e_ms = mean_ms(e.sum_low(), e.sum_high(), e.size());
    s.p50_e2e_ms = ticks_to_ms(p[0]);
    s.p99_e2e_ms = ticks_to_ms(p[1]);
  } else if (!run.end_to_end.empty() && !run.cancelled) {
    s.mean_e2e_ms = mean_ms(run.end_to_end);
    std::vector<Tick> values(run.end_to_end);
    const std::uint32_t percents[] = {50, 99};
    const std::vector<Tick> p = nearest_ranks_and_max(values, percents);
    s.p50_e2e_ms = ticks_to_ms(p[0]);
    s.p99_e2e_ms = ticks_to_ms(p[1]);
  }
  return s;
}

}  // namespace prefixroute
