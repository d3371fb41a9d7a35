#include "prefixroute/workload/request_trace.h"

#include <algorithm>

#include "prefixroute/base/fnv_stretch_memo.h"
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
  // FNV-1a over each request's arrival, prompt length and prompt tokens.
  // A prompt's tokens are fed piece by piece (the same hash: FNV-1a is a
  // stream), and a piece long enough to be worth it goes through the memo,
  // which skips hashing again the stretches prompts share (a tenant's
  // system prompt) from any low byte it has already seen them entered with.
  constexpr std::uint32_t kMemoMinTokens = 32;
  hashing::Fnv1a64 h;
  hashing::FnvStretchMemo memo;
  PromptPieces pieces;
  std::vector<Token> tokens;
  for (std::size_t i = 0; i < size(); ++i) {
    h.feed(static_cast<std::uint64_t>(arrival(i)));
    prompt(i, pieces);
    h.feed(pieces.length);
    const Content& content = *pieces.content;
    std::size_t left = pieces.length;
    for (const Piece& whole : pieces.pieces) {
      if (left == 0) break;
      Piece p = whole;
      p.length = static_cast<std::uint32_t>(std::min<std::size_t>(p.length, left));
      left -= p.length;
      const auto piece_tokens = [&] {
        if (const Token* stored = content.stored(p.run)) return stored + p.offset;
        tokens.resize(p.length);
        content.copy(p.run, p.offset, p.length, tokens.data());
        return static_cast<const Token*>(tokens.data());
      };
      if (p.length >= kMemoMinTokens) {
        memo.feed(h, hashing::FnvStretchMemo::Key{p.run, p.offset, p.length}, piece_tokens);
      } else {
        h.feed_tokens(piece_tokens(), p.length);
      }
    }
  }
  return h.value;
}

}  // namespace prefixroute
