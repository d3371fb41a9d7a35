// The command line's text of a trace summary (run/trace_summary.h): what
// `prefixroute --trace FILE --trace-summary` prints, a few lines a person
// reads; --json writes the figures themselves (io/trace_summary_json.h).
#pragma once

#include <string>

#include "prefixroute/run/trace_summary.h"

namespace prefixroute {

/// The summary as lines of text.
std::string format_trace_summary(const TraceSummary& summary);

}  // namespace prefixroute
