// Timeline: a compact time series of one policy's run, so a reader can see
// herding, a hotspot forming or a cache being thrashed.
//
// The run's arrival span is cut into kTimelineWindows equal windows; each
// window holds one cell per shown replica:
//
//              replica 0   replica 1   ...   replica S-1   [other]
//   window 0   cell        cell              cell          cell
//   window 1   ...
//
// A request belongs to the cell of its arrival window and the replica it was
// routed to. Per cell:
//   requests        arrivals routed there in the window
//   mean_wait_ms    fifo engine: mean queue wait of those requests (prefill
//                   start - arrival, exact: Replica::Admission::start);
//                   batched engine: 0 (it has no single queue; see mean_batch)
//   mean_ttft_ms    their mean TTFT
//   hit_rate        their cached prompt tokens / their prompt tokens
//   mean_in_flight  the router's in-flight count, mean of the window's samples
//   mean_batch      batched engine: sequences running, mean of the samples
//   kv_use          batched engine: KV held by running requests / capacity
//                   (whole blocks, so a little above the tokens held), mean
//                   of the samples
//   groups          distinct prefix groups among the cell's requests
//   top_group       the most frequent group's index in group_keys (-1: no
//                   requests); ties go to the smaller key
//   top_share       its share of the cell's requests
// The sampled metrics read the run's kInFlightSamples snapshots
// (SimulationRun::in_flight_samples and the batched samples, taken every
// in_flight_period ticks from 0): a window is exactly kSamplesPerWindow
// consecutive sample periods, so its sampled means are means of snapshots at
// those instants (not time-weighted integrals). Requests still running after
// the last arrival show in the last windows' TTFTs, not in later windows.
//
// A prefix group is the first content run of a request's prompt: a tenant's
// prefix (tenants kind, and the system prompt of the sessions and agentic
// kinds), the system prompt of gsp (one group), a replayed trace's first
// block. group_keys lists the groups that top at least one cell, ranked by the
// requests they account for in the cells they top (descending, then key), so
// index 0 is the group that dominates most.
//
// Size: O(windows x rows). At most kTimelineMaxReplicas replicas are shown,
// in index order; a larger cluster gets one more row, `other`, that pools
// replicas kTimelineMaxReplicas and up (its requests summed, its sampled
// metrics the mean over those replicas), so no request is left out.
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/base/time.h"

namespace prefixroute {

struct SimulationRun;

inline constexpr std::uint32_t kTimelineWindows = 64;
inline constexpr std::uint32_t kTimelineMaxReplicas = 32;

struct Timeline {
  std::uint32_t windows = 0;        ///< 0: the run recorded no timeline
  Tick window_ticks = 0;            ///< every window's length; window w starts at w x window_ticks
  std::uint32_t replicas = 0;       ///< in the cluster
  std::uint32_t shown = 0;          ///< replicas with a row of their own: 0 .. shown-1
  bool other = false;               ///< row `shown` pools replicas shown .. replicas-1
  bool batched = false;             ///< mean_batch and kv_use hold values
  /// Rows per window: shown + (other ? 1 : 0). Cell (w, row) is at w x rows() + row.
  std::uint32_t rows() const { return shown + (other ? 1u : 0u); }

  std::vector<std::uint32_t> requests;
  std::vector<double> mean_wait_ms;
  std::vector<double> mean_ttft_ms;
  std::vector<double> hit_rate;
  std::vector<double> mean_in_flight;
  std::vector<double> mean_batch;
  std::vector<double> kv_use;
  std::vector<std::uint32_t> groups;
  std::vector<std::int32_t> top_group;
  std::vector<double> top_share;
  std::vector<std::uint64_t> group_keys;  ///< ranked; top_group indexes it
};

/// Builds a Timeline while the simulator runs. The simulator calls routed()
/// for each request as it is routed (arrival order, except requests a router
/// queue held), then finish() once the run is over.
/// Memory: 18 bytes per request (its window, and its (window, row, group)
/// until finish() tallies the groups), plus the Timeline.
/// Cost: O(1) per request plus O(n log n) for the n requests at finish().
class TimelineRecorder {
 public:
  /// `sample_period`: the run's in_flight_period; `requests`: the source's size.
  /// `deferred`: the sample period may still grow (a reactive client's run,
  /// simulator.h): the windows are cut at finish(), from the final period,
  /// into as many as the samples cover (at most kTimelineWindows), and each
  /// request's arrival is kept until then (26 more bytes a request).
  TimelineRecorder(std::uint32_t replicas, Tick sample_period, std::size_t requests, bool batched,
                   bool deferred = false);

  /// Request `id` (the next in arrival order) arrived at `arrival`, was
  /// routed to `replica` and waits `wait` ticks for its prefill (fifo; 0
  /// otherwise); `group` is its prompt's first content run.
  void routed(std::size_t id, Tick arrival, std::uint32_t replica, std::uint64_t group,
              std::uint64_t prompt_tokens, Tick wait);

  /// The timeline, from what routed() saw and the run's per-request TTFTs,
  /// cached tokens and samples. `capacity_tokens[r]`: replica r's KV capacity.
  Timeline finish(const SimulationRun& run, const std::vector<std::uint64_t>& capacity_tokens,
                  std::uint32_t kv_block_tokens);

  /// Samples per window: kInFlightSamples / kTimelineWindows.
  static std::uint32_t samples_per_window();

 private:
  struct Member {
    std::uint32_t window;
    std::uint32_t row;
    std::uint64_t group;
    bool operator<(const Member& o) const {
      if (window != o.window) return window < o.window;
      return row != o.row ? row < o.row : group < o.group;
    }
  };
  std::uint32_t row_of(std::uint32_t replica) const { return replica < t_.shown ? replica : t_.shown; }
  void allocate_cells();
  void tally(std::size_t id, Tick arrival, std::uint32_t replica, std::uint64_t group, std::uint64_t prompt_tokens,
             Tick wait);
  void flush_groups();

  // A deferred recorder's requests, tallied at finish().
  struct Routed {
    std::uint64_t id;
    Tick arrival;
    std::uint64_t group;
    std::uint64_t prompt_tokens;
    Tick wait;
    std::uint32_t replica;
  };
  bool deferred_ = false;
  std::vector<Routed> routed_;

  Timeline t_;
  std::vector<std::uint16_t> window_of_;   // per request
  std::vector<std::uint64_t> prompt_sum_;  // per cell
  std::vector<Tick> wait_sum_;             // per cell
  std::vector<std::uint64_t> top_key_;     // per cell, raw group key
  std::vector<std::uint32_t> top_count_;   // per cell
  // Every request's (window, row, group), tallied at finish(): a request held
  // by a router queue is routed after later arrivals, so a window's members
  // are only complete at the end of the run.
  std::vector<Member> members_;
};

}  // namespace prefixroute
