#include "prefixroute/replica.h"

#include <algorithm>

namespace prefixroute {

Replica::Admission Replica::admit(TokenSpan tokens, Tick now, const PrefillModel& prefill) {
  Admission a;
  // insert() reports the cached prefix it found before adding the prompt, so
  // the prompt is walked once. Tokens past the cache budget are never cached.
  a.cached_tokens = cache_.insert(tokens).cached_tokens;
  a.prefill_tokens = tokens.size() - a.cached_tokens;
  const Tick service = prefill.prefill_ticks(a.prefill_tokens);
  a.start = std::max(now, busy_until_);
  a.first_token = a.start + service;
  busy_until_ = a.first_token;
  ++requests_;
  prefill_tokens_ += a.prefill_tokens;
  cached_tokens_ += a.cached_tokens;
  busy_ticks_ += service;
  return a;
}

}  // namespace prefixroute
