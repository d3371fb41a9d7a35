#include "prefixroute/cluster/replica.h"

#include <algorithm>

namespace prefixroute {

Replica::Admission Replica::admit(const Prompt& prompt, Tick now, const PrefillModel& prefill) {
  return admit_with_decode(prompt, now, prefill, 0, 0);
}

Replica::Admission Replica::admit(TokenSpan tokens, Tick now, const PrefillModel& prefill) {
  const SpanContent content(tokens);
  return admit_with_decode(content.prompt(), now, prefill, 0, 0);
}

Replica::Admission Replica::admit_with_decode(const Prompt& prompt, Tick now, const PrefillModel& prefill,
                                              std::uint64_t output_tokens, Tick tick_per_output_token,
                                              std::size_t known_cached) {
  return admit_with_decode(prompt, now, StepModel{prefill, {}}, output_tokens, tick_per_output_token, known_cached);
}

Replica::Admission Replica::admit_with_decode(const Prompt& prompt, Tick now, const StepModel& step,
                                              std::uint64_t output_tokens, Tick tick_per_output_token,
                                              std::size_t known_cached) {
  Admission a;
  // insert() reports the cached prefix it found before adding the prompt, so
  // the prompt is walked once. Tokens past the cache budget are never cached.
  const RadixCache::InsertResult inserted = cache_.insert(prompt, known_cached);
  a.cached_tokens = inserted.cached_tokens;
  a.path = inserted.path;
  a.prefill_tokens = prompt.size() - a.cached_tokens;
  const Tick service = step.prefill_ticks(a.prefill_tokens, a.cached_tokens);
  a.start = std::max(now, busy_until_);
  a.first_token = a.start + service;
  a.completion = a.first_token + static_cast<Tick>(output_tokens) * tick_per_output_token;
  if (a.decodes()) {
    cache_.pin(a.path);
    cache_.reserve(output_tokens);
  }
  busy_until_ = a.first_token;
  starts_.push_back(a.start);
  ++requests_;
  prefill_tokens_ += a.prefill_tokens;
  cached_tokens_ += a.cached_tokens;
  busy_ticks_ += service;
  return a;
}

void Replica::complete(const Admission& admission, std::uint64_t output_tokens) {
  if (admission.decodes()) {
    cache_.unpin(admission.path);
    cache_.release(static_cast<std::size_t>(output_tokens));
  }
}

void Replica::scrape(Tick now, std::uint32_t decoding) {
  while (!starts_.empty() && starts_.front() <= now) starts_.pop_front();
  scraped_.scraped_at = now;
  scraped_.queue_length = static_cast<std::uint32_t>(starts_.size());
  // Running = in prefill or decoding; a request in prefill has started and
  // not reached its first token, which happens iff busy_until > now.
  scraped_.running = decoding + (busy_until_ > now ? 1u : 0u);
  scraped_.kv_usage = cache_.capacity() == 0
                          ? 0.0
                          : static_cast<double>(cache_.used()) / static_cast<double>(cache_.capacity());
}

}  // namespace prefixroute
