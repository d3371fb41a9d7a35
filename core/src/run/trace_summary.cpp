#include "prefixroute/run/trace_summary.h"

#include "prefixroute/base/hashing.h"
#include "prefixroute/run/replay.h"

namespace prefixroute {

TraceSummary summarize_trace(std::string_view file_name, const TraceReadResult& read, const TraceReadOptions& options,
                             const ReplayedTrace& replay) {
  TraceSummary s;
  s.name = trace_file_name(file_name);
  s.format = trace_format_name(read.format);
  s.lines = read.lines;
  s.skipped_lines = read.bad_lines;
  s.content_hash = hashing::to_hex16(read.content_hash);
  s.read_with = options;
  s.openai_fields = read.openai_fields;
  {
    const std::unique_ptr<RequestSource> source = replay.open();
    s.profile = profile_requests(*source);
  }
  const ReplayFigures& figures = replay.figures();
  if (figures.ideal) {
    s.ideal = *figures.ideal;
  } else {
    const std::unique_ptr<RequestSource> source = replay.open();
    s.ideal = ideal_bound(*source, figures.prompt_tokens);
  }
  return s;
}

}  // namespace prefixroute
