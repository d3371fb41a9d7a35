#include "prefixroute/workload/request_trace.h"

#include "prefixroute/base/hashing.h"

namespace prefixroute {

std::uint64_t RequestTrace::total_prompt_tokens() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < size(); ++i) total += prompt_tokens(i);
  return total;
}

void RequestTrace::materialize(std::size_t i, std::vector<Token>& out) const {
  PromptPieces pieces;
  prompt(i, pieces);
  pieces.view().materialize(out);
}

std::uint64_t RequestTrace::fingerprint() const {
  hashing::Fnv1a64 h;
  PromptPieces pieces;
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < size(); ++i) {
    h.feed(static_cast<std::uint64_t>(arrival(i)));
    prompt(i, pieces);
    pieces.view().materialize(tokens);
    h.feed(tokens.size());
    h.feed_tokens(tokens.data(), tokens.size());
  }
  return h.value;
}

}  // namespace prefixroute
