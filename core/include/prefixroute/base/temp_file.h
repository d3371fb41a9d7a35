// An anonymous temporary file: created in $TMPDIR (else /tmp) and removed
// from its directory at once, so its data lives exactly as long as the
// returned descriptor and nothing is left behind if the process dies.
// The spills of long runs use it (the replayed trace's requests,
// workload/request_spill.h; per-request times, sim/tick_spill.h).
//
// Cost: one mkstemp and one unlink.
#pragma once

#include <string>

namespace prefixroute {

/// A read-write descriptor of a new unlinked file named after `stem`, or -1
/// with `error` saying which folder and why.
int open_unlinked_temp_file(const char* stem, std::string& error);

}  // namespace prefixroute
