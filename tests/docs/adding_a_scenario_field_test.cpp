// docs/contributing/adding-a-scenario-field.md, proven. The page walks one
// real field, client.think_s, through every step; here (1) each code block it
// marks "<!-- quoted: FILE -->" is still in FILE, line for line and in order,
// and (2) the field itself walks the path the page describes: its row in the
// field table, --set into the config struct, the range check and the rule
// across fields naming it, the canonical document and the results JSON
// echoing it, the JSON Schema the page reads, and the generated field table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "files.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::adding_a_scenario_field_test {
namespace {

using Json = nlohmann::json;
using testsupport::read_file;
using testsupport::source_path;

const std::string kDoc = "docs/contributing/adding-a-scenario-field.md";

std::string trimmed(const std::string& s) {
  const std::size_t first = s.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(trimmed(line));
  return lines;
}

struct Quote {
  std::string file;
  std::vector<std::string> lines;
};

std::vector<Quote> quotes_of(const std::string& doc) {
  const std::string marker = "<!-- quoted: ";
  std::vector<Quote> out;
  const std::vector<std::string> lines = lines_of(doc);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (lines[i].rfind(marker, 0) != 0 || lines[i + 1] != "```cpp") continue;
    Quote q;
    q.file = lines[i].substr(marker.size(), lines[i].size() - marker.size() - 4);  // drop " -->"
    for (std::size_t j = i + 2; j < lines.size() && lines[j] != "```"; ++j)
      if (!lines[j].empty()) q.lines.push_back(lines[j]);
    out.push_back(q);
  }
  return out;
}

TEST(AddingAScenarioFieldDoc, EveryQuotedBlockIsInItsFileInOrder) {
  const std::optional<std::string> doc = read_file(source_path(kDoc));
  ASSERT_TRUE(doc) << "cannot read " << kDoc;
  const std::vector<Quote> quotes = quotes_of(*doc);
  ASSERT_EQ(quotes.size(), 5u) << kDoc << ": the page quotes five files (steps 1 to 4)";
  for (const Quote& q : quotes) {
    const std::optional<std::string> file = read_file(source_path(q.file));
    ASSERT_TRUE(file) << kDoc << " quotes " << q.file << ", which does not exist";
    const std::vector<std::string> code = lines_of(*file);
    std::size_t at = 0;
    for (const std::string& line : q.lines) {
      while (at < code.size() && code[at] != line) ++at;
      EXPECT_LT(at, code.size()) << kDoc << " quotes a line " << q.file << " no longer has (in this order):\n  "
                                 << line;
      if (at == code.size()) break;
      ++at;
    }
  }
}

TEST(AddingAScenarioFieldDoc, TheWorkedFieldHasItsRowInTheFieldTable) {
  const FieldSpec* row = nullptr;
  for (const FieldSpec& f : scenario_fields())
    if (f.key == "client.think_s") row = &f;
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->label, "Think time");
  EXPECT_EQ(row->kind, FieldKind::Number);
  EXPECT_EQ(row->min, 0);
  EXPECT_EQ(row->max, 86400);
  EXPECT_EQ(row->unit, "s");
}

TEST(AddingAScenarioFieldDoc, SetReachesTheStructAndTheEchoes) {
  const ScenarioParse parsed = parse_scenario(
      "", {{"client.kind", "closed"}, {"client.concurrency", "4"}, {"client.think_s", "1.5"},
           {"workload.requests", "200"}, {"policies", "round_robin"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error_text();
  EXPECT_EQ(parsed.scenario.client.think_s, 1.5);  // step 1: the member
  EXPECT_EQ(Json::parse(scenario_to_json(parsed.scenario))["client"]["think_s"], 1.5);
  const Json results = Json::parse(results_to_json(parsed.scenario, run_experiment(parsed.scenario)));
  EXPECT_EQ(results["scenario"]["client"]["think_s"], 1.5);
  // From a document too, read back to the same canonical text.
  const ScenarioParse again = parse_scenario(scenario_to_json(parsed.scenario), {});
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(scenario_to_json(again.scenario), scenario_to_json(parsed.scenario));
}

TEST(AddingAScenarioFieldDoc, TheRangeAndTheRuleAcrossFieldsNameIt) {
  const ScenarioParse negative = parse_scenario("", {{"client.think_s", "-1"}});
  ASSERT_EQ(negative.errors.size(), 1u);
  EXPECT_EQ(negative.errors[0].field, "client.think_s");
  EXPECT_EQ(negative.errors[0].message, "must be a number in [0, 86400] (s); got -1");
  const ScenarioParse open_loop = parse_scenario("", {{"client.think_s", "1"}});  // the default poisson client
  ASSERT_EQ(open_loop.errors.size(), 1u);
  EXPECT_EQ(open_loop.errors[0].field, "client.think_s");
  EXPECT_NE(open_loop.errors[0].message.find("applies to a closed client only"), std::string::npos);
}

TEST(AddingAScenarioFieldDoc, TheSchemaThePageReadsAndTheGeneratedTableHaveIt) {
  const Json schema = Json::parse(scenario_json_schema());
  const Json& think = schema["properties"]["client"]["properties"]["think_s"];
  EXPECT_EQ(think["type"], "number");
  EXPECT_EQ(think["minimum"], 0);
  EXPECT_EQ(think["maximum"], 86400);
  EXPECT_EQ(think["default"], 0);
  EXPECT_EQ(think["x-label"], "Think time");
  EXPECT_EQ(think["x-unit"], "s");
  const std::optional<std::string> reference = read_file(source_path("docs/reference/scenario.md"));
  ASSERT_TRUE(reference);
  EXPECT_NE(reference->find("| `client.think_s` | `0.0` | number [0.0, 86400.0] s |"), std::string::npos)
      << "the generated field table lacks the row: run npm run docs";
}

}  // namespace
}  // namespace prefixroute::adding_a_scenario_field_test
