// TickSpill: a run's per-request times (TTFT, end-to-end) kept on disk, with
// what the summary needs computed from them in bounded memory.
//
// A long run's per-request results are most of its memory (24 bytes per
// request per run: SimulationRun::kBytesPerRequest). When the caller needs
// no per-request series, the simulator appends each time here instead
// (simulate's spill_results_above): values go to a temporary file created and
// unlinked at once, as the replayed trace's spill is (request_spill.h), in
// whatever order they come (completion order); the count, the exact sum and
// the extremes are kept as they arrive. If no temporary file can be made, or
// a write fails, the values from then on stay in memory: the figures are the
// same either way.
//
// nearest_rank() gives exact nearest-rank percentiles (metrics.h) without
// sorting: a radix select over the values' order-preserving 64-bit keys,
// 12 bits per pass from the highest bit in which the smallest and largest
// values differ, each pass reading the file once and counting, per asked
// rank, the values that share the rank's prefix so far. Equal to sorting and
// indexing, ties included.
//
// Cost: append O(1) (a write per 8,192 values); nearest_rank O(passes x N)
// reads for at most 6 passes, memory 32 KiB per asked rank plus a 64 KiB
// read buffer (16-bit digits would save a pass or two over a file read back
// from the page cache, at 16 times the counts: 1.5 MiB for a run's three
// percentiles). Not thread-safe; one run owns it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "prefixroute/base/time.h"

namespace prefixroute {

class TickSpill {
 public:
  /// Opens the temporary file (in $TMPDIR, else /tmp); none: values stay in memory.
  TickSpill();
  ~TickSpill();
  TickSpill(const TickSpill&) = delete;
  TickSpill& operator=(const TickSpill&) = delete;

  void append(Tick value);

  std::uint64_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// The sum of the values as unsigned 64-bit integers, in two words (as
  /// metrics' mean does: a few million waits of hours pass 2^63 ns).
  std::uint64_t sum_low() const { return sum_low_; }
  std::uint64_t sum_high() const { return sum_high_; }
  Tick min() const { return min_; }
  Tick max() const { return max_; }
  /// Whether some values are on disk (none: no file could be made, or none written yet).
  bool on_disk() const { return written_ > 0; }

  /// The values of nearest-rank percentiles `percents` (each in [1, 100]):
  /// out[j] = the value at 1-based rank clamp(ceil(percents[j] x N / 100), 1, N)
  /// of the sorted values. Requires !empty().
  std::vector<Tick> nearest_rank(std::span<const std::uint32_t> percents) const;

 private:
  // Calls f on every value (file first, then the memory tail) in blocks.
  template <class F>
  void for_each_block(F&& f) const;
  void flush();

  int fd_ = -1;
  std::uint64_t written_ = 0;  // values in the file
  bool failed_ = false;        // a write failed: the rest stays in memory
  std::vector<Tick> buffer_;   // values not yet written (all of them once failed_)
  std::uint64_t count_ = 0;
  std::uint64_t sum_low_ = 0, sum_high_ = 0;
  Tick min_ = 0, max_ = 0;
};

}  // namespace prefixroute
