// Content: prompts as references to immutable runs of tokens.
//
// A run is a sequence of tokens with an identity (RunId) that never changes:
// a tenant's system prompt, a user turn, a trace's 512-token block, a message
// of a conversation. A prompt is a list of pieces, each a stretch of one run:
//
//   run 7 (tenant prefix, 800 tokens)   run 42 (the user's turn, 100 tokens)
//   [===============================]   [====]
//   prompt = { (7, 0, 800), (42, 0, 100) }              900 tokens
//
// Caches, the cluster's prefix index and routers' trees keep pieces, not
// tokens, so memory grows with the content they hold (a few pieces per node),
// never with the tokens routed, and two stretches of the same run at the same
// offset are equal without reading a token. Tokens are read only where a
// comparison meets two different runs (usually one token: different content
// differs at once) or where a policy hashes them.
//
// Equality is always by tokens: two different runs with equal tokens compare
// equal, exactly as token arrays would, so every match, split and eviction is
// the token-level model's (tests/cache/radix_cache_lockstep_test.cpp drives a
// run-based cache and a token-level one with the same operations).
//
// Who resolves a run's tokens: a Content. Each source of prompts implements
// one (the synthetic workload, a trace, a TokenStore of caller-given
// tokens); every structure that keeps pieces keeps a pointer to the content
// its runs belong to, and a prompt carries its own. A Content is immutable
// while structures refer to it (TokenStore only appends), and its const
// methods keep no mutable state, so concurrent runs may share one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "prefixroute/base/token.h"

namespace prefixroute {

/// The identity of a run within its Content (its meaning is the Content's).
using RunId = std::uint64_t;

/// Tokens [offset, offset + length) of run `run`.
struct Piece {
  RunId run = 0;
  std::uint32_t offset = 0;
  std::uint32_t length = 0;

  bool operator==(const Piece&) const = default;
};

class Content;

/// A prompt (or any stretch of tokens): its pieces in order and the content
/// they belong to. A view: the pieces must outlive it. Invariant: length is
/// at most the sum of the pieces' lengths (a prompt may be the first `length`
/// tokens of its pieces: a prompt cut to a cache's budget); no piece is empty.
struct Prompt {
  std::span<const Piece> pieces;
  std::size_t length = 0;
  const Content* content = nullptr;

  std::size_t size() const { return length; }
  bool empty() const { return length == 0; }
  /// Token i (i < length). O(pieces + the content's cost of one token).
  Token token(std::size_t i) const;
  /// Writes tokens [from, from + n) into out (from + n <= length).
  void copy(std::size_t from, std::size_t n, Token* out) const;
  /// All its tokens, into `out` (replacing its contents).
  void materialize(std::vector<Token>& out) const;
};

/// Resolves runs to tokens.
class Content {
 public:
  virtual ~Content() = default;
  /// The run's tokens when this content keeps them contiguously in memory
  /// (valid while the content lives), else nullptr.
  virtual const Token* stored(RunId run) const = 0;
  /// Writes tokens [offset, offset + n) of `run` into out.
  virtual void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const = 0;
  /// Token `offset` of `run`.
  Token token(RunId run, std::uint32_t offset) const {
    if (const Token* t = stored(run)) return t[offset];
    Token out;
    copy(run, offset, 1, &out);
    return out;
  }
};

/// Appends `piece` to `pieces`, merged into the last piece when it continues
/// it in the same run (so a list built only this way never holds two pieces
/// that one piece could replace); an empty piece is skipped. O(1) amortized.
inline void push_piece(std::vector<Piece>& pieces, const Piece& piece) {
  if (piece.length == 0) return;
  if (!pieces.empty()) {
    Piece& last = pieces.back();
    if (last.run == piece.run && last.offset + last.length == piece.offset) {
      last.length += piece.length;
      return;
    }
  }
  pieces.push_back(piece);
}

/// Appends tokens [from, from + n) of `source` to `pieces` with push_piece.
/// `pieces` must not be the storage `source` views.
void append_pieces(std::vector<Piece>& pieces, const Prompt& source, std::size_t from, std::size_t n);

/// Pieces that own their storage: a prompt built by a content, or a stretch
/// of one. Converts to a Prompt view.
struct PromptPieces {
  std::vector<Piece> pieces;
  std::size_t length = 0;
  const Content* content = nullptr;

  Prompt view() const { return Prompt{pieces, length, content}; }
  operator Prompt() const { return view(); }  // NOLINT(google-explicit-constructor): a view of these pieces
  /// Appends tokens [from, from + n) of `source` (coalescing a piece that
  /// continues the last one in the same run).
  void append(const Prompt& source, std::size_t from, std::size_t n);
  /// Appends a whole piece (coalescing as append does).
  void push(const Piece& piece) {
    length += piece.length;
    push_piece(pieces, piece);
  }
  void clear() {
    pieces.clear();
    length = 0;
  }
};

/// A content of token arrays given by the caller: each add() copies one into
/// a new run. For tests and the library API, where prompts come as tokens.
/// Memory grows with every added run; runs are never freed while the store
/// lives. Not thread-safe while adding.
class TokenStore final : public Content {
 public:
  /// A new run holding a copy of `tokens`.
  RunId add(TokenSpan tokens);
  /// add(tokens) as a one-piece prompt of this store.
  PromptPieces prompt(TokenSpan tokens);

  const Token* stored(RunId run) const override { return runs_[static_cast<std::size_t>(run)].data(); }
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  std::size_t runs() const { return runs_.size(); }

 private:
  std::deque<std::vector<Token>> runs_;  // a deque: adding never moves earlier runs
};

/// A one-run content over a caller's token array, without copying: a prompt
/// given as tokens, for the duration of a call (a match, a choice).
class SpanContent final : public Content {
 public:
  explicit SpanContent(TokenSpan tokens) : tokens_(tokens), piece_{0, 0, static_cast<std::uint32_t>(tokens.size())} {}
  SpanContent(const SpanContent&) = delete;
  SpanContent& operator=(const SpanContent&) = delete;

  /// The whole array as a prompt of this content.
  Prompt prompt() const {
    return Prompt{tokens_.empty() ? std::span<const Piece>() : std::span<const Piece>(&piece_, 1), tokens_.size(), this};
  }
  const Token* stored(RunId) const override { return tokens_.data(); }
  void copy(RunId, std::uint32_t offset, std::uint32_t n, Token* out) const override;

 private:
  TokenSpan tokens_;
  Piece piece_;
};

/// A position inside a list of pieces, moving forward only.
/// Cost: advance() is O(pieces stepped over).
class PieceCursor {
 public:
  PieceCursor() = default;
  PieceCursor(std::span<const Piece> pieces, std::size_t position) : pieces_(pieces) { advance(position); }

  /// Moves `n` tokens forward (not past the end).
  void advance(std::size_t n) {
    while (n > 0) {
      const std::size_t left = pieces_[index_].length - within_;
      if (n < left) {
        within_ += static_cast<std::uint32_t>(n);
        return;
      }
      n -= left;
      ++index_;
      within_ = 0;
    }
  }
  /// What is left of the current piece (the run, the offset in it, the tokens left).
  Piece rest() const {
    const Piece& p = pieces_[index_];
    return Piece{p.run, p.offset + within_, p.length - within_};
  }
  bool at_end() const { return index_ >= pieces_.size(); }

 private:
  std::span<const Piece> pieces_;
  std::size_t index_ = 0;
  std::uint32_t within_ = 0;
};

/// common_prefix() without its inline first case (below).
std::size_t common_prefix_walk(const Content& ca, PieceCursor a, const Content& cb, PieceCursor b, std::size_t limit);

/// How many leading tokens two stretches share, at most `limit` (both must
/// hold at least `limit` tokens from their cursors): `a` of content `ca`,
/// `b` of content `cb`. Equal runs at equal offsets of one content count
/// without reading tokens; anything else is compared token by token.
inline std::size_t common_prefix(const Content& ca, PieceCursor a, const Content& cb, PieceCursor b, std::size_t limit) {
  if (limit == 0) return 0;
  // Inline, as it is the usual case (a cached prefix met again): one stretch
  // of one run at one offset on both sides, covering `limit`.
  const Piece pa = a.rest();
  const Piece pb = b.rest();
  if (&ca == &cb && pa.run == pb.run && pa.offset == pb.offset && pa.length >= limit && pb.length >= limit) return limit;
  return common_prefix_walk(ca, a, cb, b, limit);
}

}  // namespace prefixroute
