#include "prefixroute/cache/cache_bounds.h"

#include <vector>

#include "prefixroute/cache/radix_cache.h"

namespace prefixroute {

CacheBound single_cache_bound(const RequestTrace& trace, std::uint64_t capacity_tokens,
                              std::uint32_t protect_after_hits) {
  RadixCache cache(capacity_tokens, protect_after_hits, &trace.content());
  CacheBound bound;
  bound.capacity_tokens = capacity_tokens;
  PromptPieces prompt;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    trace.prompt(i, prompt);
    const std::uint64_t cached = cache.insert(prompt.view()).cached_tokens;
    bound.cached_tokens += cached;
    bound.prefill_tokens += prompt.length - cached;
  }
  const std::uint64_t total = bound.cached_tokens + bound.prefill_tokens;
  bound.hit_rate = total == 0 ? 0.0 : static_cast<double>(bound.cached_tokens) / static_cast<double>(total);
  return bound;
}

CacheBound ideal_bound(const RequestTrace& trace) {
  // Everything fits: no eviction ever happens, so protection is irrelevant.
  return single_cache_bound(trace, trace.total_prompt_tokens(), 0);
}

}  // namespace prefixroute
