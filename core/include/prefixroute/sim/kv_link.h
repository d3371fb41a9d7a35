// KvLink: one network link carrying KV-cache transfers, its bandwidth shared
// equally among the transfers on it at each instant (processor sharing).
//
// Model. A transfer of B bytes alone takes B / bw; n transfers at once each
// progress at bw / n. This is BLIS's --pd-transfer-contention (fair share
// bw / active transfers, inference-sim/inference-sim cmd/root.go) and
// splitwise-sim's Link (duration = size / available bandwidth,
// Mutinifni/splitwise-sim network.py). A transfer's setup latency is the
// caller's: it joins the link when its bytes start to move.
//
// Exactness. The link keeps a virtual clock V: the bytes every transfer on
// it has received since the link was built, advancing at bw / n per second.
// A transfer joining when V = v finishes when V = v + B (its tag), so the
// next to finish is the least tag, and finishing it sets V to that tag
// exactly (no drift from repeated subtraction). Times are integer ticks,
// the finish time rounded to the nearest tick; transfers with equal tags
// finish together, in the order they joined. Only + - * / and one llround:
// the same ticks natively and in WebAssembly.
//
// Cost: O(log n) per join and per finish for n transfers on the link.
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <utility>

#include "prefixroute/base/time.h"

namespace prefixroute {

class KvLink {
 public:
  static constexpr Tick kNever = std::numeric_limits<Tick>::max();

  /// A link of `bytes_per_s` (> 0).
  explicit KvLink(double bytes_per_s) : bytes_per_s_(bytes_per_s) {}

  /// Transfer `id` of `bytes` starts moving at `now` (>= the last event's time).
  void join(std::uint64_t id, double bytes, Tick now);
  /// When the next transfer finishes; kNever when none is on the link.
  Tick next_finish() const;
  /// Removes the transfer that finishes at next_finish() (the first to have
  /// joined among equal tags) and returns its id; call at that time.
  std::uint64_t finish_next();
  std::size_t active() const { return tags_.size(); }

 private:
  // Brings the virtual clock to `now`.
  void advance(Tick now);

  double bytes_per_s_;
  double virtual_bytes_ = 0;  // V
  Tick last_ = 0;             // the time V was last brought to
  std::uint64_t joined_ = 0;  // order of joining, for equal tags
  // (tag, join order, id), least first.
  std::set<std::pair<std::pair<double, std::uint64_t>, std::uint64_t>> tags_;
};

}  // namespace prefixroute
