#include "prefixroute/workload/request_trace.h"

#include "prefixroute/base/hashing.h"

namespace prefixroute {

std::uint64_t RequestTrace::total_prompt_tokens() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < size(); ++i) total += prompt_tokens(i);
  return total;
}

std::uint64_t RequestTrace::fingerprint() const {
  hashing::Fnv1a64 h;
  std::vector<Token> prompt;
  for (std::size_t i = 0; i < size(); ++i) {
    h.feed(static_cast<std::uint64_t>(arrival(i)));
    materialize(i, prompt);
    h.feed(prompt.size());
    for (Token t : prompt) h.feed(t);
  }
  return h.value;
}

}  // namespace prefixroute
