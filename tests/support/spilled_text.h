// A trace given as text, read through a temporary file by spill_trace (the
// reader that keeps a large trace on disk), for suites that compare the
// spilled reading with the in-memory one.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "prefixroute/run/replay.h"

namespace prefixroute::testsupport {

/// `text` as a file, read by spill_trace; a read error fails the calling test.
inline SpilledTrace spill_text(const std::string& text, const TraceReadOptions& options) {
  std::FILE* file = std::tmpfile();
  EXPECT_NE(file, nullptr);
  std::fwrite(text.data(), 1, text.size(), file);
  std::rewind(file);
  std::string error;
  SpilledTrace spilled = spill_trace(file, options, error);
  std::fclose(file);
  EXPECT_EQ(error, "");
  return spilled;
}

}  // namespace prefixroute::testsupport
