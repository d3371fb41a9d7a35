#include "prefixroute/request_trace.h"

namespace prefixroute {

std::uint64_t RequestTrace::total_prompt_tokens() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < size(); ++i) total += prompt_tokens(i);
  return total;
}

std::uint64_t RequestTrace::fingerprint() const {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  auto feed = [&h](std::uint64_t v) {
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xFF;
      h *= 0x100000001B3ULL;
    }
  };
  std::vector<Token> prompt;
  for (std::size_t i = 0; i < size(); ++i) {
    feed(static_cast<std::uint64_t>(arrival(i)));
    materialize(i, prompt);
    feed(prompt.size());
    for (Token t : prompt) feed(t);
  }
  return h;
}

}  // namespace prefixroute
