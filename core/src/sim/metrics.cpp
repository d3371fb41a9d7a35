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

// Nearest-rank percentile of unsorted doubles (copied).
double percentile(std::vector<double> values, std::uint32_t percent) {
  std::sort(values.begin(), values.end());
  return values[nearest_rank(percent, values.size()) - 1];
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (const double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

bool failed(const SimulationRun& run, std::size_t i) {
  return run.client.timeout > 0 && i < run.end_to_end.size() && run.end_to_end[i] > run.client.timeout;
}

// With a timeout that some requests exceeded: the TTFT, end-to-end and TPOT
// figures over the requests that did not.
void without_failures(const SimulationRun& run, RunSummary& s) {
  std::vector<Tick> ttft, e2e;
  std::vector<double> tpot;
  for (std::size_t i = 0; i < run.ttft.size(); ++i) {
    if (failed(run, i)) continue;
    ttft.push_back(run.ttft[i]);
    if (i < run.end_to_end.size()) e2e.push_back(run.end_to_end[i]);
    if (i < run.tpot_of.size() && run.tpot_of[i] >= 0) tpot.push_back(run.tpot_of[i]);
  }
  if (!ttft.empty()) {
    const std::uint32_t percents[] = {50, 90, 99};
    s.mean_ttft_ms = mean_ms(ttft);
    const std::vector<Tick> p = nearest_ranks_and_max(ttft, percents);
    s.p50_ttft_ms = ticks_to_ms(p[0]);
    s.p90_ttft_ms = ticks_to_ms(p[1]);
    s.p99_ttft_ms = ticks_to_ms(p[2]);
    s.max_ttft_ms = ticks_to_ms(p[3]);
  }
  if (!e2e.empty() && !run.cancelled) {
    const std::uint32_t percents[] = {50, 99};
    s.mean_e2e_ms = mean_ms(e2e);
    const std::vector<Tick> p = nearest_ranks_and_max(e2e, percents);
    s.p50_e2e_ms = ticks_to_ms(p[0]);
    s.p99_e2e_ms = ticks_to_ms(p[1]);
  }
  if (run.batched && !run.cancelled) {
    s.has_tpot = !tpot.empty();
    if (s.has_tpot) {
      s.mean_tpot_ms = mean(tpot) / 1e6;
      s.p50_tpot_ms = percentile(tpot, 50) / 1e6;
      s.p99_tpot_ms = percentile(tpot, 99) / 1e6;
    }
  }
}

// One stage's figures from its requests (ids first .. first + sent - 1) and
// the KV samples in its span.
StageSummary stage_summary(const SimulationRun& run, const StageWindow& w) {
  StageSummary st;
  st.load = w.load;
  st.duration_s = w.duration_s;
  st.start_s = static_cast<double>(w.start) / 1e9;
  st.end_s = static_cast<double>(w.end) / 1e9;
  st.requests = w.sent;
  std::vector<Tick> ttft, e2e;
  std::vector<double> tpot, wait;
  std::uint64_t done = 0, prompt = 0, cached = 0, input = 0, output = 0;
  for (std::uint64_t i = w.first; i < w.first + w.sent && i < run.ttft.size(); ++i) {
    prompt += run.prompt_tokens_of[i];
    cached += run.cached_of[i];
    if (!run.client.wait.empty()) wait.push_back(ticks_to_ms(run.client.wait[i]));
    if (failed(run, i)) {
      ++st.failed;
      continue;
    }
    ++done;
    ttft.push_back(run.ttft[i]);
    if (i < run.end_to_end.size()) e2e.push_back(run.end_to_end[i]);
    if (run.tpot_of[i] >= 0) tpot.push_back(run.tpot_of[i]);
    input += run.prompt_tokens_of[i];
    output += run.output_tokens_of[i];
  }
  const double span = st.end_s - st.start_s;
  if (span > 0) {
    st.completed_per_s = static_cast<double>(done) / span;
    st.input_tokens_per_s = static_cast<double>(input) / span;
    st.output_tokens_per_s = static_cast<double>(output) / span;
  }
  if (!ttft.empty()) {
    const std::uint32_t percents[] = {50, 90, 99};
    st.mean_ttft_ms = mean_ms(ttft);
    if (!e2e.empty()) st.mean_e2e_ms = mean_ms(e2e);
    const std::vector<Tick> p = nearest_ranks_and_max(ttft, percents);
    st.p50_ttft_ms = ticks_to_ms(p[0]);
    st.p90_ttft_ms = ticks_to_ms(p[1]);
    st.p99_ttft_ms = ticks_to_ms(p[2]);
  }
  st.has_tpot = !tpot.empty();
  if (st.has_tpot) {
    st.mean_tpot_ms = mean(tpot) / 1e6;
    st.p90_tpot_ms = percentile(tpot, 90) / 1e6;
  }
  st.hit_rate = prompt == 0 ? 0.0 : static_cast<double>(cached) / static_cast<double>(prompt);
  if (!wait.empty()) st.mean_client_wait_ms = mean(wait);
  // KV samples: sample k was taken at k x period.
  const std::size_t replicas = run.replicas.size();
  if (run.kv_sample_period > 0 && replicas > 0) {
    std::vector<double> kv;
    const std::size_t samples = run.kv_samples.size() / replicas;
    for (std::size_t k = 0; k < samples; ++k) {
      const Tick at = static_cast<Tick>(k) * run.kv_sample_period;
      if (at < w.start || at >= w.end) continue;
      for (std::size_t r = 0; r < replicas; ++r) kv.push_back(run.kv_samples[k * replicas + r]);
    }
    st.has_kv = !kv.empty();
    if (st.has_kv) {
      st.mean_kv_use = mean(kv);
      st.p90_kv_use = percentile(kv, 90);
    }
  }
  return st;
}

void client_figures(const SimulationRun& run, RunSummary& s) {
  s.has_client = true;
  for (std::size_t i = 0; i < run.ttft.size(); ++i) s.failed += failed(run, i) ? 1 : 0;
  if (s.failed > 0) without_failures(run, s);
  if (!run.client.wait.empty()) {
    std::vector<double> wait;
    for (const Tick w : run.client.wait) wait.push_back(ticks_to_ms(w));
    s.mean_client_wait_ms = mean(wait);
    s.p99_client_wait_ms = percentile(wait, 99);
  }
  if (run.prompt_tokens_of.size() != run.ttft.size()) return;  // no per-request sizes: no stages
  for (const StageWindow& w : run.client.stages)
    if (!w.warmup) s.stages.push_back(stage_summary(run, w));
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

  // Over the replicas the policy chooses among: a disaggregated run's
  // prefill pool (its replicas come first), else all.
  const std::size_t chosen = run.pools.empty() ? run.replicas.size() : run.pools.front().replicas;
  Tick busiest = 0;
  Tick total_busy = 0;
  for (std::size_t i = 0; i < chosen; ++i) {
    busiest = std::max(busiest, run.replicas[i].busy_ticks);
    total_busy += run.replicas[i].busy_ticks;
  }
  if (total_busy > 0) {
    s.imbalance = static_cast<double>(busiest) * static_cast<double>(chosen) / static_cast<double>(total_busy);
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
  if (run.client.present) client_figures(run, s);
  return s;
}

}  // namespace prefixroute
