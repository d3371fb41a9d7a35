// TraceSummary: what was read from a trace file, as a reader of it is told
// before replaying it (the page's guided import, `prefixroute --trace FILE
// --trace-summary`): the file (name, format, lines, bad lines skipped,
// content hash), its figures (workload/trace_profile.h: requests, duration,
// rate, prompt and output lengths, sessions, the share of prompt tokens in
// shared prefixes), the ideal hit rate (cache_bounds.h: one cache holding
// every prompt; the same number as the results' bounds.ideal), and for an
// openai log how its keys were mapped (which key gave the time, the prompt
// and the session, and which keys its lines have: trace_reader.h,
// OpenAiFieldUse). The JSON is io/trace_summary_json.h's.
//
// Both faces compute it from the same ReplayedTrace the runs replay, so the
// module's summary of a file equals the command line's.
#pragma once

#include <string>
#include <string_view>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/workload/trace_profile.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute {

struct TraceSummary {
  std::string name;          ///< the file's name (trace_file_name)
  std::string format;        ///< the format read: "mooncake", "bailian" or "openai"
  std::uint64_t lines = 0;
  std::uint64_t skipped_lines = 0;
  std::string content_hash;  ///< FNV-1a 64 of the file's bytes, 16 hex digits
  TraceProfile profile;
  CacheBound ideal;          ///< one cache holding every prompt
  /// The key choices it was read with (trace.time_field, prompt_field, session_field).
  TraceReadOptions read_with;
  OpenAiFieldUse openai_fields;  ///< an openai log's keys (zero for the other formats)
};

/// The summary of a trace read successfully (`read.ok()`) with `options`
/// and replayed as `replay`. Cost: one pass over the requests
/// (profile_requests), plus one for the ideal bound when the trace's figures
/// do not hold it already (ReplayFigures::ideal).
TraceSummary summarize_trace(std::string_view file_name, const TraceReadResult& read, const TraceReadOptions& options,
                             const ReplayedTrace& replay);

}  // namespace prefixroute
