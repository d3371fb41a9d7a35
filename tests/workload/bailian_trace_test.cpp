// The Qwen-Bailian trace format: the reader's lines (good, each bad field, a
// line of the other format, CRLF, BOM, huge numbers), format detection,
// sessions from the parent chain, partial last blocks as their own content,
// and a built trace whose ideal hit (one unbounded cache) equals a direct count.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::bailian_trace_test {

namespace {

using Format = TraceReadOptions::Format;

std::string line(const std::string& fields) { return "{" + fields + "}\n"; }

// A good Bailian line: 20 tokens = one full block and a partial one of 4.
const std::string kGood =
    R"({"chat_id": 7, "parent_chat_id": -1, "timestamp": 1.5, "input_length": 20, "output_length": 3, "type": "text", "turn": 1, "hash_ids": [10, 11]})";

TraceReadOptions bailian() {
  TraceReadOptions o;
  o.format = Format::Bailian;
  return o;
}

// The one problem of reading `text` as Bailian.
TraceProblem only_problem(const std::string& text) {
  const auto r = read_trace(text, bailian());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.problems.size(), 1u) << r.error_text();
  return r.problems.empty() ? TraceProblem{} : r.problems[0];
}

// kGood with one field's value replaced (or, with value "", removed).
std::string with(const std::string& field, const std::string& value) {
  std::string text = kGood;
  const auto at = text.find("\"" + field + "\"");
  auto end = text.find(field == "hash_ids" ? "]" : ",", at);
  if (field == "hash_ids") ++end;
  if (value.empty()) {
    if (text[end] == ',') ++end;
    else if (at >= 2 && text.substr(at - 2, 2) == ", ") return text.substr(0, at - 2) + text.substr(end);
    return text.substr(0, at) + text.substr(end + 1);
  }
  return text.substr(0, at) + "\"" + field + "\": " + value + text.substr(end);
}

// Tokens reused under one unbounded cache, counted from block ids alone: full
// blocks match by their chain of ids; a partial last block only matches an
// earlier partial block of the same chain and id (its own content), for the
// tokens both have.
std::uint64_t direct_count(const BlockTrace& trace) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> chain_id;
  std::map<std::uint64_t, std::uint64_t> tokens_seen;
  std::uint64_t reused = 0;
  const std::uint64_t bs = trace.block_size();
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const std::uint64_t length = trace.prompt_tokens(i);
    const auto blocks = trace.blocks_of(i);
    std::uint64_t parent = 0;
    bool matching = true;
    for (std::size_t j = 0; j < blocks.size(); ++j) {
      const std::uint64_t in_block = std::min<std::uint64_t>(bs, length - j * bs);
      const std::uint64_t key = blocks[j] | (in_block < bs ? (1ULL << 32) : 0);
      auto [it, fresh] = chain_id.try_emplace({parent, key}, chain_id.size() + 1);
      std::uint64_t& seen = tokens_seen[it->second];
      if (matching) {
        const std::uint64_t m = std::min(seen, in_block);
        reused += m;
        matching = m == in_block;
      }
      seen = std::max(seen, in_block);
      parent = it->second;
    }
  }
  return reused;
}

}  // namespace

TEST(BailianReader, ReadsAGoodLineWith16TokenBlocksAndSecondsTimestamps) {
  TraceReadOptions o = bailian();
  o.time_scale = 2.0;
  const auto r = read_trace(kGood + "\n", o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 1u);
  EXPECT_EQ(r.trace->block_size(), 16u);
  EXPECT_EQ(r.trace->kind(), BlockTrace::Kind::Sessions);
  EXPECT_EQ(r.trace->arrival(0), seconds_to_ticks(3.0));
  EXPECT_EQ(r.trace->prompt_tokens(0), 20u);
  EXPECT_EQ(r.trace->output_tokens(0), 3u);
  EXPECT_EQ(r.trace->session(0), 7u);
  EXPECT_EQ(r.trace->turn(0), 0u);
}

TEST(BailianReader, SessionIsTheRootChatIdAndTurnComesFromTurn) {
  std::string text = kGood + "\n";
  text += line(R"("chat_id": 8, "parent_chat_id": 7, "timestamp": 2, "input_length": 16, "output_length": 1, "type": "search", "turn": 2, "hash_ids": [10])");
  text += line(R"("chat_id": 9, "parent_chat_id": 8, "timestamp": 3, "input_length": 16, "output_length": 1, "type": "image", "turn": 3, "hash_ids": [10])");
  text += line(R"("chat_id": 20, "parent_chat_id": 99, "timestamp": 3, "input_length": 1, "output_length": 0, "type": "file", "turn": 5, "hash_ids": [4])");
  const auto r = read_trace(text, bailian());
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 4u);
  EXPECT_EQ(r.trace->session(1), 7u);
  EXPECT_EQ(r.trace->session(2), 7u);
  EXPECT_EQ(r.trace->turn(2), 2u);
  EXPECT_EQ(r.trace->session(3), 99u);  // a parent not in the file is the root
  EXPECT_EQ(r.trace->turn(3), 4u);
}

TEST(BailianReader, PartialLastBlockSharesNoTokenWithTheFullBlockOfItsId) {
  std::string text = line(R"("chat_id": 1, "parent_chat_id": -1, "timestamp": 0, "input_length": 32, "output_length": 1, "type": "text", "turn": 1, "hash_ids": [5, 6])");
  text += line(R"("chat_id": 2, "parent_chat_id": -1, "timestamp": 0, "input_length": 20, "output_length": 1, "type": "text", "turn": 1, "hash_ids": [5, 6])");
  const auto r = read_trace(text, bailian());
  ASSERT_TRUE(r.ok()) << r.error_text();
  std::vector<Token> full, partial;
  r.trace->materialize(0, full);
  r.trace->materialize(1, partial);
  ASSERT_EQ(partial.size(), 20u);
  EXPECT_EQ(std::vector<Token>(full.begin(), full.begin() + 16), std::vector<Token>(partial.begin(), partial.begin() + 16));
  EXPECT_EQ(partial[16], 6u | 0x80000000u);
  EXPECT_NE(partial[16], full[16]);
  EXPECT_EQ(ideal_bound(*r.trace).cached_tokens, 16u);  // the first block only
}

TEST(BailianReader, EachBadFieldIsNamedWithTheFormatAndLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"chat_id", ""},           {"chat_id", "-3"},         {"chat_id", "\"7\""},
      {"parent_chat_id", ""},    {"parent_chat_id", "-2"},  {"parent_chat_id", "7"},
      {"timestamp", ""},         {"timestamp", "-1"},       {"timestamp", "\"soon\""},
      {"input_length", ""},      {"input_length", "0"},     {"input_length", "2.5"},
      {"output_length", ""},     {"output_length", "-1"},   {"type", ""},
      {"type", "\"video\""},     {"type", "3"},             {"turn", ""},
      {"turn", "0"},             {"hash_ids", ""},          {"hash_ids", "[10]"},
      {"hash_ids", "[10, -1]"},  {"hash_ids", "[10, 2147483648]"}, {"hash_ids", "7"},
  };
  for (const auto& [field, value] : cases) {
    const std::string text = with("chat_id", "6") + "\n" + with(field, value) + "\n";
    const auto r = read_trace(text, bailian());
    SCOPED_TRACE(field + " = " + value + ": " + text);
    EXPECT_FALSE(r.ok());
    ASSERT_EQ(r.problems.size(), 1u) << r.error_text();
    EXPECT_EQ(r.problems[0].line, 2u);
    EXPECT_EQ(r.problems[0].field, field);
    EXPECT_EQ(r.problems[0].text().rfind("bailian trace, line 2, " + field + ": ", 0), 0u) << r.problems[0].text();
  }
}

TEST(BailianReader, ARepeatedChatIdIsABadLine) {
  const auto p = only_problem(kGood + "\n" + with("timestamp", "2") + "\n");
  EXPECT_EQ(p.field, "chat_id");
  EXPECT_NE(p.message.find("already seen"), std::string::npos);
}

TEST(BailianReader, AMooncakeLineInABailianFileIsABadLine) {
  const std::string mooncake = R"({"timestamp": 5, "input_length": 20, "output_length": 1, "hash_ids": [1]})";
  const auto bad = read_trace(kGood + "\n" + mooncake + "\n", bailian());
  EXPECT_FALSE(bad.ok());
  ASSERT_FALSE(bad.problems.empty());
  const TraceProblem& p = bad.problems[0];  // then every Bailian field it lacks
  EXPECT_EQ(p.line, 2u);
  EXPECT_EQ(p.field, "chat_id");
  EXPECT_EQ(p.format, "bailian");
  // Skipped under on_error = skip, and counted.
  TraceReadOptions skip = bailian();
  skip.on_error = TraceReadOptions::OnError::Skip;
  const auto r = read_trace(kGood + "\n" + mooncake + "\n", skip);
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->size(), 1u);
  EXPECT_EQ(r.bad_lines, 1u);
}

TEST(BailianReader, ABailianLineInAMooncakeFileIsABadLine) {
  const std::string mooncake = R"({"timestamp": 0, "input_length": 20, "output_length": 1, "hash_ids": [1]})";
  const auto r = read_trace(mooncake + "\n" + kGood + "\n", TraceReadOptions{});  // auto: Mooncake
  EXPECT_FALSE(r.ok());
  ASSERT_FALSE(r.problems.empty());
  EXPECT_EQ(r.problems[0].line, 2u);
  EXPECT_EQ(r.problems[0].field, "chat_id");
  EXPECT_EQ(r.problems[0].text().rfind("line 2, chat_id: ", 0), 0u) << r.problems[0].text();
}

TEST(BailianReader, AcceptsCrlfAndALeadingByteOrderMark) {
  const auto r = read_trace("\xEF\xBB\xBF" + kGood + "\r\n" + with("chat_id", "8") + "\r\n", TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.trace->kind(), BlockTrace::Kind::Sessions);
}

TEST(BailianReader, HugeNumbersAreRefusedNotWrapped) {
  EXPECT_EQ(only_problem(with("chat_id", "18446744073709551616")).field, "chat_id");
  EXPECT_EQ(only_problem(with("chat_id", "9007199254740993")).field, "chat_id");
  EXPECT_EQ(only_problem(with("input_length", "1e300")).field, "input_length");
  EXPECT_EQ(only_problem(with("turn", "4294967296")).field, "turn");
  EXPECT_EQ(only_problem(with("timestamp", "1e300")).field, "timestamp");
  EXPECT_EQ(only_problem(with("hash_ids", "[1, 99999999999999999999]")).field, "hash_ids");
}

TEST(TraceFormat, AutoDetectsFromTheFirstJsonObjectLine) {
  const std::string mooncake = R"({"timestamp": 5, "input_length": 16, "output_length": 1, "hash_ids": [1]})";
  TraceReadOptions o;
  o.block_size = 16;
  const auto m = read_trace("\n  \n" + mooncake + "\n", o);
  ASSERT_TRUE(m.ok()) << m.error_text();
  EXPECT_EQ(m.trace->kind(), BlockTrace::Kind::Mooncake);
  EXPECT_EQ(m.trace->arrival(0), seconds_to_ticks(0.005));
  const auto b = read_trace("\n" + kGood + "\n", TraceReadOptions{});
  ASSERT_TRUE(b.ok()) << b.error_text();
  EXPECT_EQ(b.trace->kind(), BlockTrace::Kind::Sessions);
  // Told explicitly, a file of the other format fails on its first line.
  o.format = Format::Mooncake;
  EXPECT_FALSE(read_trace(kGood + "\n", o).ok());
  EXPECT_FALSE(read_trace(mooncake + "\n", bailian()).ok());
}

TEST(TraceFormat, IsAScenarioFieldDefaultingToAuto) {
  ScenarioParse p = parse_scenario("", {});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(p.scenario.trace.format, "auto");
  EXPECT_EQ(trace_read_options(p.scenario.trace).format, Format::Auto);
  ScenarioParse b = parse_scenario("", {{"trace.format", "bailian"}});
  ASSERT_TRUE(b.ok()) << b.error_text();
  EXPECT_EQ(trace_read_options(b.scenario.trace).format, Format::Bailian);
  EXPECT_FALSE(parse_scenario("", {{"trace.format", "csv"}}).ok());
}

// A Bailian file of conversations (shared system prompts, each turn extending
// its parent's prompt, partial last blocks) replays under one unbounded cache
// with exactly the hit counted from its block ids.
TEST(BailianReplay, OneUnboundedCacheHitsTheDirectlyCountedBound) {
  std::string text;
  std::uint64_t state = 12345;
  const auto next = [&](std::uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % n;
  };
  std::map<int, std::vector<std::uint32_t>> blocks_of_chat;
  std::map<int, std::uint64_t> full_tokens_of_chat;
  std::uint32_t fresh_id = 1000;
  for (int chat = 0; chat < 300; ++chat) {
    const bool root = chat < 10 || next(3) == 0;
    const int parent = root ? -1 : static_cast<int>(next(static_cast<std::uint64_t>(chat)));
    std::vector<std::uint32_t> ids;
    int turn = 1;
    if (root) {
      ids.push_back(static_cast<std::uint32_t>(next(4)));  // one of 4 system prompts
    } else {
      const std::uint64_t full = full_tokens_of_chat[parent];
      ids.assign(blocks_of_chat[parent].begin(), blocks_of_chat[parent].begin() + static_cast<long>(full / 16));
      turn = 2;
    }
    const std::uint64_t more = 1 + next(4);
    for (std::uint64_t k = 0; k < more; ++k) ids.push_back(fresh_id++);
    const std::uint64_t input = (ids.size() - 1) * 16 + 1 + next(16);  // last block partial or full
    blocks_of_chat[chat] = ids;
    full_tokens_of_chat[chat] = input - input % 16;
    text += "{\"chat_id\": " + std::to_string(chat) + ", \"parent_chat_id\": " + std::to_string(parent) +
            ", \"timestamp\": " + std::to_string(chat * 0.25) + ", \"input_length\": " + std::to_string(input) +
            ", \"output_length\": 4, \"type\": \"text\", \"turn\": " + std::to_string(turn) + ", \"hash_ids\": [";
    for (std::size_t k = 0; k < ids.size(); ++k) text += (k ? ", " : "") + std::to_string(ids[k]);
    text += "]}\n";
  }
  const auto r = read_trace(text, TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->kind(), BlockTrace::Kind::Sessions);
  const std::uint64_t direct = direct_count(*r.trace);
  EXPECT_GT(direct, 0u);
  EXPECT_EQ(ideal_bound(*r.trace).cached_tokens, direct);

  ScenarioParse p = parse_scenario("", {{"cluster.replicas", "1"},
                                        {"policies", "round_robin"},
                                        {"cluster.cache_tokens", std::to_string(r.trace->total_prompt_tokens() * 2)}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  const InMemoryReplay replay(*r.trace);
  const auto report = run_experiment(p.scenario, {}, &replay);
  ASSERT_EQ(report.outcomes.size(), 1u);
  EXPECT_EQ(report.outcomes[0].summary.cached_tokens, direct);
  EXPECT_EQ(report.ideal.cached_tokens, direct);
}

}  // namespace prefixroute::bailian_trace_test
