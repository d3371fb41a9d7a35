#include "prefixroute/sim/timeline.h"

#include <algorithm>
#include <limits>

#include "prefixroute/sim/simulator.h"

namespace prefixroute {

static_assert(kInFlightSamples % kTimelineWindows == 0, "a window must be a whole number of sample periods");
static_assert(kTimelineWindows <= std::numeric_limits<std::uint16_t>::max(), "window indices are stored as uint16");

std::uint32_t TimelineRecorder::samples_per_window() { return kInFlightSamples / kTimelineWindows; }

TimelineRecorder::TimelineRecorder(std::uint32_t replicas, Tick sample_period, std::size_t requests, bool batched,
                                   bool deferred)
    : deferred_(deferred) {
  t_.windows = kTimelineWindows;
  t_.window_ticks = sample_period * samples_per_window();
  t_.replicas = replicas;
  t_.shown = std::min(replicas, kTimelineMaxReplicas);
  t_.other = replicas > kTimelineMaxReplicas;
  t_.batched = batched;
  if (deferred_) return;  // the cells are cut at finish()
  allocate_cells();
  window_of_.reserve(requests);
}

void TimelineRecorder::allocate_cells() {
  const std::size_t cells = static_cast<std::size_t>(t_.windows) * t_.rows();
  t_.requests.assign(cells, 0);
  t_.groups.assign(cells, 0);
  t_.top_group.assign(cells, -1);
  t_.top_share.assign(cells, 0.0);
  prompt_sum_.assign(cells, 0);
  wait_sum_.assign(cells, 0);
  top_key_.assign(cells, 0);
  top_count_.assign(cells, 0);
}

void TimelineRecorder::routed(std::size_t id, Tick arrival, std::uint32_t replica, std::uint64_t group,
                              std::uint64_t prompt_tokens, Tick wait) {
  if (deferred_) {
    routed_.push_back(Routed{id, arrival, group, prompt_tokens, wait, replica});
    return;
  }
  tally(id, arrival, replica, group, prompt_tokens, wait);
}

void TimelineRecorder::tally(std::size_t id, Tick arrival, std::uint32_t replica, std::uint64_t group,
                             std::uint64_t prompt_tokens, Tick wait) {
  // Arrivals lie in [0, last arrival] and the sample period exceeds
  // last arrival / kInFlightSamples, so the window is below kTimelineWindows;
  // the clamp only guards a source whose last_arrival() understated.
  const auto w = static_cast<std::uint32_t>(std::min<Tick>(arrival / t_.window_ticks, t_.windows - 1));
  if (window_of_.size() <= id) window_of_.resize(id + 1, 0);
  window_of_[id] = static_cast<std::uint16_t>(w);
  const std::uint32_t row = row_of(replica);
  const std::size_t cell = static_cast<std::size_t>(w) * t_.rows() + row;
  ++t_.requests[cell];
  prompt_sum_[cell] += prompt_tokens;
  wait_sum_[cell] += wait;
  members_.push_back(Member{w, row, group});
}

// Each window's groups per row: distinct count and the most frequent (ties:
// the smaller key). Sorting makes the answer independent of routing order and
// of any container's iteration order.
void TimelineRecorder::flush_groups() {
  std::sort(members_.begin(), members_.end());
  for (std::size_t i = 0; i < members_.size();) {
    const Member& m = members_[i];
    std::size_t j = i;
    while (j < members_.size() && members_[j].window == m.window && members_[j].row == m.row &&
           members_[j].group == m.group)
      ++j;
    const std::size_t cell = static_cast<std::size_t>(m.window) * t_.rows() + m.row;
    const auto count = static_cast<std::uint32_t>(j - i);
    ++t_.groups[cell];
    if (count > top_count_[cell]) {  // equal counts keep the earlier, smaller key
      top_count_[cell] = count;
      top_key_[cell] = m.group;
    }
    i = j;
  }
  members_.clear();
  members_.shrink_to_fit();
}

Timeline TimelineRecorder::finish(const SimulationRun& run, const std::vector<std::uint64_t>& capacity_tokens,
                                  std::uint32_t kv_block_tokens) {
  if (deferred_) {
    // The final sample period cuts the windows: as many as the samples fill.
    const std::uint32_t per_window = samples_per_window();
    const std::size_t taken = t_.replicas > 0 ? run.in_flight_samples.size() / t_.replicas : 0;
    t_.window_ticks = run.in_flight_period * per_window;
    t_.windows = static_cast<std::uint32_t>(std::clamp<std::size_t>((taken + per_window - 1) / per_window, 1,
                                                                    kTimelineWindows));
    allocate_cells();
    window_of_.reserve(routed_.size());
    for (const Routed& r : routed_) tally(r.id, r.arrival, r.replica, r.group, r.prompt_tokens, r.wait);
    routed_.clear();
    routed_.shrink_to_fit();
  }
  flush_groups();
  const std::uint32_t rows = t_.rows();
  const std::size_t cells = static_cast<std::size_t>(t_.windows) * rows;

  // Per-request results, by arrival window.
  std::vector<Tick> ttft_sum(cells, 0);
  std::vector<std::uint64_t> cached_sum(cells, 0);
  const std::size_t n = std::min({window_of_.size(), run.ttft.size(), run.cached_of.size(), run.replica_of.size()});
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t cell = static_cast<std::size_t>(window_of_[i]) * rows + row_of(run.replica_of[i]);
    ttft_sum[cell] += run.ttft[i];
    cached_sum[cell] += run.cached_of[i];
  }
  t_.mean_wait_ms.assign(cells, 0.0);
  t_.mean_ttft_ms.assign(cells, 0.0);
  t_.hit_rate.assign(cells, 0.0);
  for (std::size_t c = 0; c < cells; ++c) {
    const double k = t_.requests[c];
    if (k > 0) {
      t_.mean_wait_ms[c] = ticks_to_ms(wait_sum_[c]) / k;
      t_.mean_ttft_ms[c] = ticks_to_ms(ttft_sum[c]) / k;
      t_.top_share[c] = top_count_[c] / k;
    }
    if (prompt_sum_[c] > 0) t_.hit_rate[c] = static_cast<double>(cached_sum[c]) / static_cast<double>(prompt_sum_[c]);
  }

  // Sampled metrics: the mean over the window's samples (and, in the other
  // row, over its replicas).
  const std::uint32_t replicas = t_.replicas;
  const std::uint32_t per_window = samples_per_window();
  const std::size_t taken = replicas > 0 ? run.in_flight_samples.size() / replicas : 0;
  const bool batched = t_.batched && run.batch_samples.size() == run.in_flight_samples.size();
  t_.mean_in_flight.assign(cells, 0.0);
  if (batched) {
    t_.mean_batch.assign(cells, 0.0);
    t_.kv_use.assign(cells, 0.0);
  }
  std::vector<std::uint32_t> count(cells, 0);
  for (std::size_t s = 0; s < taken; ++s) {
    const std::size_t w = s / per_window;
    if (w >= t_.windows) break;
    for (std::uint32_t r = 0; r < replicas; ++r) {
      const std::size_t cell = w * rows + row_of(r);
      const std::size_t at = s * replicas + r;
      ++count[cell];
      t_.mean_in_flight[cell] += run.in_flight_samples[at];
      if (batched) {
        t_.mean_batch[cell] += run.batch_samples[at];
        const double capacity = r < capacity_tokens.size() ? static_cast<double>(capacity_tokens[r]) : 0.0;
        if (capacity > 0)
          t_.kv_use[cell] += static_cast<double>(run.kv_block_samples[at]) * kv_block_tokens / capacity;
      }
    }
  }
  for (std::size_t c = 0; c < cells; ++c) {
    if (count[c] == 0) continue;
    t_.mean_in_flight[c] /= count[c];
    if (batched) {
      t_.mean_batch[c] /= count[c];
      t_.kv_use[c] /= count[c];
    }
  }

  // Rank the groups that top a cell by the requests they account for there.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> weight;  // (key, requests)
  for (std::size_t c = 0; c < cells; ++c)
    if (top_count_[c] > 0) weight.emplace_back(top_key_[c], top_count_[c]);
  std::sort(weight.begin(), weight.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (const auto& [key, k] : weight) {
    if (!merged.empty() && merged.back().first == key) merged.back().second += k;
    else merged.emplace_back(key, k);
  }
  std::sort(merged.begin(), merged.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  t_.group_keys.clear();
  for (const auto& m : merged) t_.group_keys.push_back(m.first);
  std::vector<std::pair<std::uint64_t, std::int32_t>> index_of;  // key -> rank, sorted by key
  for (std::size_t i = 0; i < t_.group_keys.size(); ++i)
    index_of.emplace_back(t_.group_keys[i], static_cast<std::int32_t>(i));
  std::sort(index_of.begin(), index_of.end());
  for (std::size_t c = 0; c < cells; ++c) {
    if (top_count_[c] == 0) continue;
    const auto it = std::lower_bound(index_of.begin(), index_of.end(), std::make_pair(top_key_[c], std::int32_t{-1}));
    t_.top_group[c] = it->second;
  }
  return std::move(t_);
}

}  // namespace prefixroute
