// The trace summary JSON (schema "prefixroute.trace/1"): what was read from
// a trace file (run/trace_summary.h), written by `prefixroute --trace FILE
// --trace-summary --json PATH` and by the module's TraceLoader (the page's
// guided import), the same bytes for the same file and settings.
//
//   { "schema": "prefixroute.trace/1",
//     "name", "format" ("mooncake" | "bailian" | "openai"), "lines",
//     "skipped_lines", "content_hash",
//     "requests", "duration_s", "request_rate_per_s",
//     "prompt_tokens": { "total", "mean", "p50", "p99", "max" },
//     "output_tokens": { "total", "mean", "p50", "p99", "max" },
//     "sessions": { "count", "multi_request" } (null: the format has none),
//     "shared_prefix_tokens", "shared_prefix_share", "ideal_hit_rate",
//     "fields": null, or for an openai log, per part of a request (time,
//       prompt, session): { "chosen": the scenario's trace.*_field,
//       "read": { key: requests whose part it gave },
//       "present": { key: requests that have it } }
//       with keys timestamp / created, messages / prompt, session_id / user
//       (and under session's "read", "none": requests of a session of their own) }
#pragma once

#include <string>

#include "prefixroute/run/trace_summary.h"

namespace prefixroute {

/// The JSON of a summary (2-space indented, trailing newline).
std::string trace_summary_to_json(const TraceSummary& summary);

}  // namespace prefixroute
