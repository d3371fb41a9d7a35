// Files of the source tree for tests: where they are (PREFIXROUTE_SOURCE_DIR,
// set for every suite by tests/CMakeLists.txt) and their bytes.
#pragma once

#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace prefixroute::testsupport {

/// `relative` (e.g. "README.md") inside the source tree.
inline std::string source_path(std::string_view relative) {
  // Appended in place: GCC 12 at -O1 warns (-Warray-bounds, a false
  // positive) on the inlined moves of `std::string + "/" + ...`.
  std::string path(PREFIXROUTE_SOURCE_DIR);
  path += '/';
  path += relative;
  return path;
}

/// The checked-in excerpt of the Mooncake conversation trace (1000 requests).
inline const std::string kMooncakeExcerpt = source_path("scenarios/traces/mooncake-conversation-first-1000.jsonl");

/// The whole file at `path`, byte for byte; nullopt when it cannot be opened.
inline std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace prefixroute::testsupport
