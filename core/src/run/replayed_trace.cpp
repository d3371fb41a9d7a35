#include "prefixroute/run/replayed_trace.h"

#include <algorithm>

#include "prefixroute/cache/block_ideal_bound.h"

namespace prefixroute {

ReplaySize replay_size(const RequestTrace& trace) {
  ReplaySize size;
  size.requests = static_cast<double>(trace.size());
  size.sessions = trace.has_sessions();
  PromptPieces prompt;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto tokens = static_cast<double>(trace.prompt_tokens(i));
    size.prompt_tokens += tokens;
    size.max_prompt_tokens = std::max(size.max_prompt_tokens, tokens);
    const auto output = static_cast<double>(trace.output_tokens(i));
    size.output_tokens += output;
    size.max_output_tokens = std::max(size.max_output_tokens, output);
    trace.prompt(i, prompt);
    size.pieces += static_cast<double>(prompt.pieces.size());
  }
  return size;
}

InMemoryReplay::InMemoryReplay(const RequestTrace& trace) : trace_(trace) {
  figures_.requests = trace.size();
  figures_.prompt_tokens = trace.total_prompt_tokens();
  figures_.fingerprint = trace.fingerprint();
  figures_.size = replay_size(trace);
  TraceSource source(trace);
  figures_.ideal = block_ideal_bound(source, figures_.prompt_tokens);
  figures_.size.ideal_from_block_ids = figures_.ideal.has_value();
}

std::unique_ptr<RequestSource> InMemoryReplay::open() const { return std::make_unique<TraceSource>(trace_); }

}  // namespace prefixroute
