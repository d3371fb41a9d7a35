// Every relative link of the documentation resolves: in README.md, every
// docs/**/*.md page, and the folder READMEs (web/, wasm/, scenarios/traces/),
// each Markdown link `[text](target)` and HTML `src="target"` outside code
// blocks names a file or folder of the source tree, and a `#anchor` names a
// heading of the page it points into (GitHub's heading ids). External links
// (http, https, mailto) are not followed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "files.h"

namespace prefixroute::links_test {
namespace {

namespace fs = std::filesystem;
using testsupport::read_file;
using testsupport::source_path;

// The pages checked, relative to the source tree.
std::vector<std::string> pages() {
  std::vector<std::string> out = {"README.md", "web/README.md", "wasm/README.md", "scenarios/traces/README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(source_path("docs")))
    if (entry.is_regular_file() && entry.path().extension() == ".md")
      out.push_back(fs::relative(entry.path(), source_path("")).generic_string());
  std::sort(out.begin() + 4, out.end());
  return out;
}

// The text of `page` without fenced code blocks (their links are examples, not links).
std::string prose_of(const std::string& text) {
  std::istringstream in(text);
  std::string out;
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) out += line + "\n";
  }
  return out;
}

// GitHub's id of a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'.
std::string heading_id(const std::string& heading) {
  std::string id;
  for (const unsigned char c : heading) {
    if (c >= 0x80 || std::isalnum(c) || c == '-' || c == '_') id += static_cast<char>(std::tolower(c));
    else if (c == ' ') id += '-';
  }
  return id;
}

std::set<std::string> anchors_of(const std::string& text) {
  std::set<std::string> out;
  std::istringstream in(prose_of(text));
  for (std::string line; std::getline(in, line);) {
    std::size_t hashes = 0;
    while (hashes < line.size() && line[hashes] == '#') ++hashes;
    if (hashes == 0 || hashes > 6 || hashes >= line.size() || line[hashes] != ' ') continue;
    out.insert(heading_id(line.substr(hashes + 1)));
  }
  return out;
}

TEST(DocLinks, EveryRelativeLinkOfTheDocsResolves) {
  const std::regex link(R"(\]\(([^)\s]+)\)|src="([^"]+)\")");
  std::vector<std::string> broken;
  std::size_t checked = 0;
  for (const std::string& page : pages()) {
    const std::optional<std::string> text = read_file(source_path(page));
    ASSERT_TRUE(text) << "cannot read " << page;
    const std::string prose = prose_of(*text);
    const fs::path dir = fs::path(page).parent_path();
    for (auto it = std::sregex_iterator(prose.begin(), prose.end(), link); it != std::sregex_iterator(); ++it) {
      std::string target = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
      if (target.rfind("http://", 0) == 0 || target.rfind("https://", 0) == 0 || target.rfind("mailto:", 0) == 0)
        continue;
      ++checked;
      std::string anchor;
      if (const std::size_t hash = target.find('#'); hash != std::string::npos) {
        anchor = target.substr(hash + 1);
        target = target.substr(0, hash);
      }
      const std::string file = target.empty() ? page : (dir / target).lexically_normal().generic_string();
      if (!fs::exists(source_path(file))) {
        broken.push_back(page + ": " + (*it)[0].str() + " (no " + file + ")");
        continue;
      }
      if (!anchor.empty() && fs::path(file).extension() == ".md") {
        const std::optional<std::string> into = read_file(source_path(file));
        if (!into || anchors_of(*into).count(anchor) == 0)
          broken.push_back(page + ": " + (*it)[0].str() + " (no heading #" + anchor + " in " + file + ")");
      }
    }
  }
  EXPECT_GT(checked, 50u) << "the pages hold fewer links than expected: is the link pattern still right?";
  std::string list;
  for (const std::string& b : broken) list += "\n  " + b;
  EXPECT_TRUE(broken.empty()) << broken.size() << " broken links:" << list;
}

TEST(DocLinks, HeadingIdsFollowGitHubsRule) {
  EXPECT_EQ(heading_id("Failure modes operators report, as presets"), "failure-modes-operators-report-as-presets");
  EXPECT_EQ(heading_id("Benchmark clients and `client.*`"), "benchmark-clients-and-client");
  EXPECT_EQ(heading_id("One request's path"), "one-requests-path");
}

}  // namespace
}  // namespace prefixroute::links_test
