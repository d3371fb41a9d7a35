#include "prefixroute/metrics.h"

#include <algorithm>

namespace prefixroute {

Tick nearest_rank_percentile(std::span<const Tick> sorted, std::uint32_t percent) {
  const std::uint64_t n = sorted.size();
  std::uint64_t rank = (static_cast<std::uint64_t>(percent) * n + 99) / 100;
  rank = std::clamp<std::uint64_t>(rank, 1, n);
  return sorted[rank - 1];
}

RunSummary summarize(const SimulationRun& run) {
  RunSummary s;
  s.requests = run.ttft.size();
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

  if (!run.ttft.empty()) {
    std::vector<Tick> sorted(run.ttft);
    std::sort(sorted.begin(), sorted.end());
    Tick sum = 0;
    for (Tick t : sorted) sum += t;
    s.mean_ttft_ms = ticks_to_ms(sum) / static_cast<double>(sorted.size());
    s.p50_ttft_ms = ticks_to_ms(nearest_rank_percentile(sorted, 50));
    s.p90_ttft_ms = ticks_to_ms(nearest_rank_percentile(sorted, 90));
    s.p99_ttft_ms = ticks_to_ms(nearest_rank_percentile(sorted, 99));
    s.max_ttft_ms = ticks_to_ms(sorted.back());
  }
  return s;
}

}  // namespace prefixroute
