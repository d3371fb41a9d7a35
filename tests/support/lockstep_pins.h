// Pins held in a RadixCache and in its ReferenceRadixCache alike, for the two
// lockstep drivers (radix_cache_test's RadixCacheLockstep and
// fuzz/radix_lockstep_fuzzer.cpp): the cache is pinned by handle, the model by
// path, and both must be released together or they drift apart.
#pragma once

#include <cstddef>
#include <vector>

#include "prefixroute/cache/radix_cache.h"
#include "reference_radix_cache.h"

namespace prefixroute::reference {

/// The paths pinned in both, oldest first. pin() follows an insert (the
/// simulator's pattern) and unpins the oldest beyond `max_pinned`, so most of
/// the cache stays evictable.
class LockstepPins {
 public:
  explicit LockstepPins(std::size_t max_pinned) : max_pinned_(max_pinned) {}

  /// Pins `path`, just inserted (its end is `handle` in `cache`), in both.
  void pin(RadixCache& cache, ReferenceRadixCache& model, RadixCache::PathHandle handle, const Tokens& path) {
    cache.pin(handle);
    model.pin(path);
    pinned_.push_back({handle, path});
    if (pinned_.size() > max_pinned_) unpin(cache, model, 0);
  }

  /// Unpins the k-th oldest pin in both.
  void unpin(RadixCache& cache, ReferenceRadixCache& model, std::size_t k) {
    cache.unpin(pinned_[k].handle);
    model.unpin(pinned_[k].path);
    pinned_.erase(pinned_.begin() + static_cast<std::ptrdiff_t>(k));
  }

  bool empty() const { return pinned_.empty(); }
  std::size_t size() const { return pinned_.size(); }
  const Tokens& path(std::size_t k) const { return pinned_[k].path; }

 private:
  struct Pinned {
    RadixCache::PathHandle handle;
    Tokens path;
  };
  std::size_t max_pinned_;
  std::vector<Pinned> pinned_;
};

}  // namespace prefixroute::reference
