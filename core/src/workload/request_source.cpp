#include "prefixroute/workload/request_source.h"

namespace prefixroute {

bool TraceSource::next(SourcedRequest& out) {
  if (next_ >= trace_.size()) return false;
  const std::size_t i = next_++;
  out.arrival = trace_.arrival(i);
  trace_.prompt(i, out.prompt);
  out.output_tokens = trace_.output_tokens(i);
  out.session = trace_.session(i);
  out.turn = trace_.turn(i);
  return true;
}

}  // namespace prefixroute
