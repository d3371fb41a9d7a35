#include "prefixroute/cache/cache_bounds.h"

#include <vector>

#include "prefixroute/cache/block_ideal_bound.h"
#include "prefixroute/cache/radix_cache.h"

namespace prefixroute {

CacheBound single_cache_bound(RequestSource& source, std::uint64_t capacity_tokens,
                              std::uint32_t protect_after_hits) {
  RadixCache cache(capacity_tokens, protect_after_hits, &source.content());
  CacheBound bound;
  bound.capacity_tokens = capacity_tokens;
  SourcedRequest request;
  while (source.next(request)) {
    const std::uint64_t cached = cache.insert(request.prompt.view()).cached_tokens;
    bound.cached_tokens += cached;
    bound.prefill_tokens += request.prompt.length - cached;
  }
  const std::uint64_t total = bound.cached_tokens + bound.prefill_tokens;
  bound.hit_rate = total == 0 ? 0.0 : static_cast<double>(bound.cached_tokens) / static_cast<double>(total);
  return bound;
}

CacheBound single_cache_bound(const RequestTrace& trace, std::uint64_t capacity_tokens,
                              std::uint32_t protect_after_hits) {
  TraceSource source(trace);
  return single_cache_bound(source, capacity_tokens, protect_after_hits);
}

CacheBound ideal_bound(RequestSource& source, std::uint64_t total_prompt_tokens) {
  // Everything fits: no eviction ever happens, so protection is irrelevant.
  return single_cache_bound(source, total_prompt_tokens, 0);
}

CacheBound ideal_bound(const RequestTrace& trace) {
  TraceSource source(trace);
  return ideal_bound(source, trace.total_prompt_tokens());
}

CacheBound ideal_bound(const std::function<std::unique_ptr<RequestSource>()>& open,
                       std::uint64_t total_prompt_tokens) {
  if (const auto bound = block_ideal_bound(*open(), total_prompt_tokens)) return *bound;
  return ideal_bound(*open(), total_prompt_tokens);
}

}  // namespace prefixroute
