// The libraries page's C++ example stays compiled and true:
//   LibraryExample  runs the built quickstart example (its path compiled in as
//                   PREFIXROUTE_QUICKSTART by tests/CMakeLists.txt) and checks
//                   what it prints.
//   LibraryDoc      the ```cpp block after the line
//                   "<!-- example: examples/quickstart.cpp -->" in
//                   docs/reference/libraries.md is that file, byte for byte.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "files.h"

namespace prefixroute::library_example_test {
namespace {

using testsupport::read_file;
using testsupport::source_path;

const std::string kDoc = "docs/reference/libraries.md";
const std::string kMarker = "<!-- example: examples/quickstart.cpp -->";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Runs `command`, returning its standard output and exit status.
bool run(const std::string& command, std::string& output, int& status) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  status = pclose(pipe);
  return true;
}

TEST(LibraryExample, QuickstartRoutesThreeRequestsAndServesTheSharedPrefixFromCache) {
#ifndef PREFIXROUTE_QUICKSTART
  GTEST_SKIP() << "this build has no quickstart example (PREFIXROUTE_BUILD_TOOLS off)";
#else
  const std::string exe = PREFIXROUTE_QUICKSTART;
  std::string output;
  int status = -1;
  ASSERT_TRUE(run("'" + exe + "'", output, status)) << "cannot run " << exe;
  ASSERT_EQ(status, 0) << "quickstart exited with status " << status << "; output:\n" << output;

  const std::vector<std::string> lines = lines_of(output);
  ASSERT_EQ(lines.size(), 3u) << "output:\n" << output;
  const std::regex line_format(
      R"(request (\d+): routed to replica (\d+) cached_prefix=(\d+) tokens prefill=(\d+) tokens)");
  // The prompts are the 50-token system prompt plus 3, 2 and 4 turn tokens.
  const unsigned turn_tokens[] = {3, 2, 4};
  for (unsigned r = 0; r < 3; ++r) {
    SCOPED_TRACE(lines[r]);
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[r], m, line_format));
    EXPECT_EQ(std::stoul(m[1]), r);
    EXPECT_LT(std::stoul(m[2]), 4u);  // four replicas
    const unsigned long cached = std::stoul(m[3]);
    const unsigned long prefill = std::stoul(m[4]);
    EXPECT_EQ(cached + prefill, 50 + turn_tokens[r]);
    EXPECT_EQ(cached, r == 0 ? 0u : 50u) << "requests 1 and 2 must find the system prompt cached";
  }
#endif
}

TEST(LibraryDoc, ItsCppExampleIsExamplesQuickstartCpp) {
  const std::optional<std::string> doc = read_file(source_path(kDoc));
  ASSERT_TRUE(doc) << "cannot read " << kDoc;
  const std::optional<std::string> source = read_file(source_path("examples/quickstart.cpp"));
  ASSERT_TRUE(source) << "cannot read examples/quickstart.cpp";

  const std::vector<std::string> lines = lines_of(*doc);
  std::size_t i = 0;
  while (i < lines.size() && lines[i] != kMarker) ++i;
  ASSERT_LT(i, lines.size()) << kDoc << " has no line \"" << kMarker
                             << "\" marking the C++ example; add it right above the ```cpp block "
                                "that shows examples/quickstart.cpp";
  ++i;
  ASSERT_LT(i, lines.size()) << kDoc << " ends right after the example marker";
  ASSERT_EQ(lines[i], "```cpp") << "the line after the example marker must open a ```cpp block";
  std::string block;
  for (++i; i < lines.size() && lines[i] != "```"; ++i) block += lines[i] + "\n";
  ASSERT_LT(i, lines.size()) << "the ```cpp block after the example marker is never closed";
  EXPECT_EQ(block, *source) << kDoc << "'s example differs from examples/quickstart.cpp; npm run docs "
                                       "copies the file into the page";
}

}  // namespace
}  // namespace prefixroute::library_example_test
