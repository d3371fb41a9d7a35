// append_pieces (prefixroute/base/content.h) against its definition: the
// stretch's pieces cut from the source one at a time and added with
// push_piece. Random sources mix pieces that continue each other in one run
// (which must merge, also with the list's existing last piece) and pieces of
// other runs; random stretches start and end inside pieces or on their
// boundaries.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/base/random.h"

namespace prefixroute::append_pieces_test {
namespace {

// Tokens [from, from + n) of `source`, piece by piece through push_piece.
std::vector<Piece> by_definition(std::vector<Piece> out, const std::vector<Piece>& source, std::size_t from,
                                 std::size_t n) {
  for (const Piece& p : source) {
    if (n == 0) break;
    if (from >= p.length) {
      from -= p.length;
      continue;
    }
    const auto take = static_cast<std::uint32_t>(std::min<std::size_t>(p.length - from, n));
    push_piece(out, Piece{p.run, p.offset + static_cast<std::uint32_t>(from), take});
    n -= take;
    from = 0;
  }
  return out;
}

TEST(AppendPieces, EqualsPushingTheStretchPieceByPiece) {
  Rng rng(5);
  for (int round = 0; round < 3000; ++round) {
    // Runs 0-2; a piece continues the previous one in its run half of the time.
    std::vector<Piece> source;
    std::size_t total = 0;
    const auto pieces = rng.uniform_int(1, 6);
    for (std::uint64_t i = 0; i < pieces; ++i) {
      const auto length = static_cast<std::uint32_t>(rng.uniform_int(1, 5));
      Piece p{rng.below(3), static_cast<std::uint32_t>(rng.below(20)), length};
      if (!source.empty() && rng.below(2) == 0) {
        p.run = source.back().run;
        p.offset = source.back().offset + source.back().length;
      }
      source.push_back(p);
      total += length;
    }
    const std::size_t from = rng.below(total);
    const std::size_t n = rng.uniform_int(0, total - from);
    // A list that already holds a piece, which the stretch may continue.
    std::vector<Piece> start;
    if (rng.below(2) == 0) start.push_back(Piece{source.front().run, 0, source.front().offset});
    if (!start.empty() && start.back().length == 0) start.clear();

    std::vector<Piece> got = start;
    append_pieces(got, Prompt{source, total, nullptr}, from, n);
    ASSERT_EQ(got, by_definition(start, source, from, n)) << "round " << round;
  }
}

}  // namespace
}  // namespace prefixroute::append_pieces_test
