#include "prefixroute/workload/request_source.h"

namespace prefixroute {

bool TraceSource::next(SourcedRequest& out) {
  if (next_ >= trace_.size()) return false;
  const std::size_t i = next_++;
  out.arrival = trace_.arrival(i);
  trace_.prompt(i, out.prompt);
  // Every policy's first read of a prompt is the first token of each piece
  // (a radix walk's child lookup), and a turn's tokens are cold: each turn
  // is read once per run (4,000 of them in the reference scenario). The
  // simulator handles the events up to this arrival before it routes the
  // request, which hides the load.
  for (const Piece& p : out.prompt.pieces)
    if (const Token* tokens = out.prompt.content->stored(p.run)) __builtin_prefetch(tokens + p.offset);
  out.output_tokens = trace_.output_tokens(i);
  out.session = trace_.session(i);
  out.turn = trace_.turn(i);
  return true;
}

}  // namespace prefixroute
