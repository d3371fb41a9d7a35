#include "prefixroute/base/content.h"

#include <algorithm>
#include <cstring>

#include "base/first_difference.h"

namespace prefixroute {

Token Prompt::token(std::size_t i) const {
  for (const Piece& p : pieces) {
    if (i < p.length) return content->token(p.run, p.offset + static_cast<std::uint32_t>(i));
    i -= p.length;
  }
  return 0;  // out of range: a caller's error (i < length is the contract)
}

void Prompt::copy(std::size_t from, std::size_t n, Token* out) const {
  for (const Piece& p : pieces) {
    if (n == 0) return;
    if (from >= p.length) {
      from -= p.length;
      continue;
    }
    const auto take = static_cast<std::uint32_t>(std::min<std::size_t>(n, p.length - from));
    content->copy(p.run, p.offset + static_cast<std::uint32_t>(from), take, out);
    out += take;
    n -= take;
    from = 0;
  }
}

void Prompt::materialize(std::vector<Token>& out) const {
  out.resize(length);
  if (length > 0) copy(0, length, out.data());
}

void append_pieces(std::vector<Piece>& pieces, const Prompt& source, std::size_t from, std::size_t n) {
  if (n == 0) return;
  // The stretch starts `from` tokens into piece `at` and spans `count` pieces
  // (no piece of a prompt is empty).
  const Piece* at = source.pieces.data();
  while (from >= at->length) from -= (at++)->length;
  std::size_t count = 1;
  for (std::size_t held = at->length - from; held < n; ++count) held += at[count].length;
  if (count == 1) {
    push_piece(pieces, Piece{at->run, at->offset + static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(n)});
    return;
  }
  // Written through a pointer into room made beforehand, then trimmed to
  // what was written: push_piece's rule without a capacity check per piece.
  const std::size_t kept = pieces.size();
  // Exactly the room needed, not resize()'s doubling: a radix tree keeps
  // one such list per node for the node's life.
  if (pieces.capacity() < kept + count) pieces.reserve(kept + count);
  pieces.resize(kept + count);
  Piece* const begin = pieces.data();
  Piece* out = begin + kept;  // one past the last piece written
  Piece next{at->run, at->offset + static_cast<std::uint32_t>(from),
             static_cast<std::uint32_t>(std::min<std::size_t>(at->length - from, n))};
  for (;;) {
    if (out != begin && out[-1].run == next.run && out[-1].offset + out[-1].length == next.offset) {
      out[-1].length += next.length;
    } else {
      *out++ = next;
    }
    n -= next.length;
    if (n == 0) break;
    ++at;
    next = Piece{at->run, at->offset, static_cast<std::uint32_t>(std::min<std::size_t>(at->length, n))};
  }
  pieces.resize(static_cast<std::size_t>(out - begin));
}

void PromptPieces::append(const Prompt& source, std::size_t from, std::size_t n) {
  length += n;
  append_pieces(pieces, source, from, n);
}

RunId TokenStore::add(TokenSpan tokens) {
  runs_.emplace_back(tokens.begin(), tokens.end());
  return runs_.size() - 1;
}

PromptPieces TokenStore::prompt(TokenSpan tokens) {
  PromptPieces p;
  p.content = this;
  p.push(Piece{add(tokens), 0, static_cast<std::uint32_t>(tokens.size())});
  return p;
}

void TokenStore::copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const {
  std::memcpy(out, runs_[run].data() + offset, n * sizeof(Token));
}

void SpanContent::copy(RunId, std::uint32_t offset, std::uint32_t n, Token* out) const {
  std::memcpy(out, tokens_.data() + offset, n * sizeof(Token));
}

std::size_t common_prefix_walk(const Content& ca, PieceCursor a, const Content& cb, PieceCursor b, std::size_t limit) {
  const bool same_content = &ca == &cb;
  std::size_t n = 0;
  while (n < limit) {
    const Piece pa = a.rest();
    const Piece pb = b.rest();
    const std::size_t m = std::min<std::size_t>({pa.length, pb.length, limit - n});
    if (same_content && pa.run == pb.run && pa.offset == pb.offset) {
      n += m;  // the same stretch of the same run: equal without reading it
    } else {
      const Token* ta = ca.stored(pa.run);
      const Token* tb = cb.stored(pb.run);
      std::size_t k;
      if (ta != nullptr && tb != nullptr) {
        k = first_difference(ta + pa.offset, tb + pb.offset, 0, m);
      } else {
        // Computed runs: compare in chunks (different content usually
        // differs at the first token, so the first chunk is short).
        constexpr std::size_t kChunk = 64;
        Token bufa[kChunk], bufb[kChunk];
        k = 0;
        for (std::size_t chunk = 1; k < m; chunk = std::min(kChunk, chunk * 8)) {
          const auto c = static_cast<std::uint32_t>(std::min(chunk, m - k));
          const Token* xa = ta != nullptr ? ta + pa.offset + k : bufa;
          const Token* xb = tb != nullptr ? tb + pb.offset + k : bufb;
          if (ta == nullptr) ca.copy(pa.run, pa.offset + static_cast<std::uint32_t>(k), c, bufa);
          if (tb == nullptr) cb.copy(pb.run, pb.offset + static_cast<std::uint32_t>(k), c, bufb);
          const std::size_t d = first_difference(xa, xb, 0, c);
          k += d;
          if (d < c) break;
        }
      }
      n += k;
      if (k < m) return n;
    }
    if (n >= limit) break;
    a.advance(m);
    b.advance(m);
  }
  return n;
}

}  // namespace prefixroute
