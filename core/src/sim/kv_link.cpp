#include "prefixroute/sim/kv_link.h"

#include <algorithm>
#include <cmath>

namespace prefixroute {

void KvLink::advance(Tick now) {
  if (now <= last_) return;
  if (!tags_.empty())
    virtual_bytes_ += static_cast<double>(now - last_) / 1e9 * bytes_per_s_ / static_cast<double>(tags_.size());
  last_ = now;
}

void KvLink::join(std::uint64_t id, double bytes, Tick now) {
  advance(now);
  tags_.insert({{virtual_bytes_ + bytes, joined_++}, id});
}

Tick KvLink::next_finish() const {
  if (tags_.empty()) return kNever;
  const double remaining = std::max(0.0, tags_.begin()->first.first - virtual_bytes_);
  const double ns = remaining * static_cast<double>(tags_.size()) / bytes_per_s_ * 1e9;
  return last_ + static_cast<Tick>(std::llround(ns));
}

std::uint64_t KvLink::finish_next() {
  const Tick at = next_finish();
  const auto first = tags_.begin();
  const std::uint64_t id = first->second;
  // V reaches the tag exactly when the transfer finishes.
  virtual_bytes_ = std::max(virtual_bytes_, first->first.first);
  last_ = std::max(last_, at);
  tags_.erase(first);
  return id;
}

}  // namespace prefixroute
