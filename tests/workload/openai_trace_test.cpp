// The openai trace format (logged chat requests): the reader's lines (good,
// each bad field, a line of another format, CRLF, BOM, huge numbers), ISO 8601
// timestamps, "created" for a missing timestamp, sessions from session_id / user, format detection, and a
// conversation whose second request reuses exactly the full blocks of the
// first one's prompt.
#include <gtest/gtest.h>

#include <string>

#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::openai_trace_test {

namespace {

using Format = TraceReadOptions::Format;

// 18 tokens: system message 5 + 3 ("Be" " brief" "."), user message 5 + 2
// ("Hi" " there"), then the generation prompt's 3.
const std::string kGood =
    R"({"timestamp": 1.5, "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi there"}], "output_tokens": 3})";

TraceReadOptions openai() {
  TraceReadOptions o;
  o.format = Format::OpenAI;
  return o;
}

TraceProblem only_problem(const std::string& text) {
  const auto r = read_trace(text, openai());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.problems.size(), 1u) << r.error_text();
  return r.problems.empty() ? TraceProblem{} : r.problems[0];
}

std::string request(const std::string& timestamp, const std::string& rest) {
  return "{\"timestamp\": " + timestamp + ", " + rest + "}\n";
}

}  // namespace

TEST(OpenAiReader, ReadsAChatLineAsChatMlTokensIn16TokenBlocks) {
  TraceReadOptions o = openai();
  o.time_scale = 2.0;
  const auto r = read_trace(kGood + "\n" + kGood + "\n", o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.trace->kind(), BlockTrace::Kind::Sessions);
  EXPECT_EQ(r.trace->block_size(), 16u);
  EXPECT_EQ(r.trace->arrival(0), 0);  // arrivals count from the first request
  EXPECT_EQ(r.trace->prompt_tokens(0), 18u);
  EXPECT_EQ(r.trace->output_tokens(0), 3u);
  ASSERT_EQ(r.trace->blocks_of(0).size(), 2u);
  // Identical requests, identical blocks; ids are dense from 0.
  EXPECT_EQ(r.trace->blocks_of(0)[0], 0u);
  EXPECT_EQ(r.trace->blocks_of(0)[1], 1u);
  EXPECT_EQ(r.trace->blocks_of(1)[0], 0u);
  EXPECT_EQ(r.trace->blocks_of(1)[1], 1u);
  // No session field: each request is a session of its own.
  EXPECT_NE(r.trace->session(0), r.trace->session(1));
  EXPECT_EQ(r.trace->turn(1), 0u);
}

TEST(OpenAiReader, ReadsAPromptLineWithoutMarkersAndUsageCompletionTokens) {
  const auto r = read_trace(request("0", R"("prompt": "Hello world", "usage": {"prompt_tokens": 9, "completion_tokens": 7})"),
                            TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->prompt_tokens(0), 2u);
  EXPECT_EQ(r.trace->output_tokens(0), 7u);
}

TEST(OpenAiReader, Iso8601TimestampsGiveArrivalsFromTheFirstRequest) {
  std::string text = request(R"("2026-03-01T23:59:59.5Z")", R"("prompt": "a", "output_tokens": 1)");
  text += request(R"("2026-03-02T01:00:01+01:00")", R"("prompt": "a", "output_tokens": 1)");  // 00:00:01Z
  text += request(R"("2026-03-02T00:00:02.000000001")", R"("prompt": "a", "output_tokens": 1)");  // no zone: UTC
  const auto r = read_trace(text, openai());
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->arrival(1), seconds_to_ticks(1.5));
  EXPECT_EQ(r.trace->arrival(2), 2'500'000'001);
}

TEST(OpenAiReader, SessionsComeFromSessionIdElseUserAndTurnsCountTheirRequests) {
  std::string text;
  text += request("0", R"("prompt": "a", "output_tokens": 1, "session_id": "s1")");
  text += request("1", R"("prompt": "a", "output_tokens": 1, "user": "bob")");
  text += request("2", R"("prompt": "a", "output_tokens": 1, "session_id": "s1", "user": "bob")");
  text += request("3", R"("prompt": "a", "output_tokens": 1)");
  text += request("4", R"("prompt": "a", "output_tokens": 1, "user": "bob")");
  text += request("5", R"("prompt": "a", "output_tokens": 1, "session_id": 42)");
  const auto r = read_trace(text, openai());
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 6u);
  EXPECT_EQ(r.trace->session(0), 0u);
  EXPECT_EQ(r.trace->session(1), 1u);
  EXPECT_EQ(r.trace->session(2), 0u);
  EXPECT_EQ(r.trace->turn(2), 1u);
  EXPECT_EQ(r.trace->session(3), 2u);
  EXPECT_EQ(r.trace->session(4), 1u);
  EXPECT_EQ(r.trace->turn(4), 1u);
  EXPECT_EQ(r.trace->session(5), 3u);
}

// Turn 2 re-sends turn 1's messages plus the answer and a new question: its
// prompt starts with turn 1's whole prompt (whose generation prompt is the
// answer's opening), so one unbounded cache reuses turn 1's full blocks.
TEST(OpenAiReader, ANextTurnReusesExactlyThePreviousPromptsFullBlocks) {
  const std::string system = R"({"role": "system", "content": "You are a careful assistant who answers questions about the weather in plain words."})";
  const std::string user1 = R"({"role": "user", "content": "Will it rain in Lisbon tomorrow afternoon?"})";
  const std::string answer = R"({"role": "assistant", "content": "Probably not: the forecast gives a ten percent chance."})";
  const std::string user2 = R"({"role": "user", "content": "And on Sunday?"})";
  std::string text = request("0", "\"messages\": [" + system + ", " + user1 + "], \"output_tokens\": 12, \"user\": \"u\"");
  text += request("4", "\"messages\": [" + system + ", " + user1 + ", " + answer + ", " + user2 + "], \"output_tokens\": 5, \"user\": \"u\"");
  const auto r = read_trace(text, TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  const std::uint64_t first = r.trace->prompt_tokens(0);
  ASSERT_GT(first, 32u);
  ASSERT_NE(first % 16, 0u);
  EXPECT_EQ(r.trace->turn(1), 1u);
  EXPECT_EQ(ideal_bound(*r.trace).cached_tokens, first / 16 * 16);
}

TEST(OpenAiReader, EachBadFieldIsNamedWithTheFormatAndLine) {
  const std::pair<std::string, std::string> cases[] = {
      {"timestamp", R"({"messages": [{"role": "user", "content": "x"}], "output_tokens": 1})"},
      {"timestamp", request("-1", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request("true", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("soon")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("2026-13-01T00:00:00Z")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("2026-02-29T00:00:00Z")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("2026-01-01 00:00:00Z")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("2026-01-01T00:00:00.1234567890Z")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("2026-01-01T00:00:00+24:00")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("2026-01-01T00:00:00Zulu")", R"("prompt": "x", "output_tokens": 1)")},
      {"timestamp", request(R"("1969-12-31T23:59:59Z")", R"("prompt": "x", "output_tokens": 1)")},
      {"messages", request("2", R"("output_tokens": 1)")},
      {"messages", request("2", R"("messages": [], "output_tokens": 1)")},
      {"messages", request("2", R"("messages": "hi", "output_tokens": 1)")},
      {"messages[0]", request("2", R"("messages": ["hi"], "output_tokens": 1)")},
      {"messages[0].role", request("2", R"("messages": [{"role": "robot", "content": "x"}], "output_tokens": 1)")},
      {"messages[0].role", request("2", R"("messages": [{"content": "x"}], "output_tokens": 1)")},
      {"messages[1].content", request("2", R"("messages": [{"role": "user", "content": "x"}, {"role": "user"}], "output_tokens": 1)")},
      {"messages[0].content", request("2", R"("messages": [{"role": "user", "content": 3}], "output_tokens": 1)")},
      {"messages[0].content[1]", request("2", R"("messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image_url", "image_url": {}}]}], "output_tokens": 1)")},
      {"prompt", request("2", R"("prompt": "", "output_tokens": 1)")},
      {"prompt", request("2", R"("prompt": 5, "output_tokens": 1)")},
      {"prompt", request("2", R"("prompt": "x", "messages": [{"role": "user", "content": "x"}], "output_tokens": 1)")},
      {"output_tokens", request("2", R"("prompt": "x")")},
      {"output_tokens", request("2", R"("prompt": "x", "output_tokens": -1)")},
      {"output_tokens", request("2", R"("prompt": "x", "output_tokens": 2.5)")},
      {"output_tokens", request("2", R"("prompt": "x", "output_tokens": "7")")},
      {"usage.completion_tokens", request("2", R"("prompt": "x", "usage": {"prompt_tokens": 3})")},
      {"usage.completion_tokens", request("2", R"("prompt": "x", "usage": {"completion_tokens": -2})")},
      {"session_id", request("2", R"("prompt": "x", "output_tokens": 1, "session_id": [1])")},
      {"user", request("2", R"("prompt": "x", "output_tokens": 1, "user": 5)")},
  };
  for (const auto& [field, bad] : cases) {
    const std::string text = request("1", R"("prompt": "ok", "output_tokens": 1)") + bad;
    const auto r = read_trace(text, openai());
    SCOPED_TRACE(field + ": " + bad);
    EXPECT_FALSE(r.ok());
    ASSERT_EQ(r.problems.size(), 1u) << r.error_text();
    EXPECT_EQ(r.problems[0].line, 2u);
    EXPECT_EQ(r.problems[0].field, field);
    EXPECT_EQ(r.problems[0].text().rfind("openai trace, line 2, " + field + ": ", 0), 0u) << r.problems[0].text();
  }
}

// A log of OpenAI API responses carries "created" (Unix seconds), not
// "timestamp": read as the timestamp, with the same arrivals and tokens.
TEST(OpenAiReader, ReadsCreatedAsTheTimestampWhenThereIsNone) {
  const std::string rest = R"("messages": [{"role": "user", "content": "Hi there"}], "output_tokens": 3)";
  const auto line = [&](const char* field, const char* seconds) { return std::string("{\"") + field + "\": " + seconds + ", " + rest + "}\n"; };
  const auto created = read_trace(line("created", "1700000000") + line("created", "1700000004.25"), openai());
  const auto timestamp = read_trace(line("timestamp", "1700000000") + line("timestamp", "1700000004.25"), openai());
  ASSERT_TRUE(created.ok()) << created.error_text();
  ASSERT_TRUE(timestamp.ok()) << timestamp.error_text();
  ASSERT_EQ(created.trace->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(created.trace->arrival(i), timestamp.trace->arrival(i));
    EXPECT_EQ(created.trace->prompt_tokens(i), timestamp.trace->prompt_tokens(i));
  }
  EXPECT_GT(created.trace->arrival(1), created.trace->arrival(0));
  // Told as openai from its fields, as a line with "timestamp" is.
  EXPECT_TRUE(read_trace(line("created", "1700000000"), TraceReadOptions{}).ok());
  // "timestamp" wins when a line has both.
  const auto both = read_trace(R"({"timestamp": 5, "created": 1, )" + rest + "}\n" + R"({"timestamp": 6, "created": 0, )" + rest + "}\n", openai());
  EXPECT_TRUE(both.ok()) << both.error_text();
}

TEST(OpenAiReader, ABadOrDecreasingCreatedIsNamedAndAMissingTimeSaysCreatedIsAccepted) {
  const std::string rest = R"("prompt": "x", "output_tokens": 1)";
  EXPECT_EQ(only_problem(R"({"created": "tomorrow", )" + rest + "}\n").field, "created");
  const auto p = only_problem(R"({"created": 9, )" + rest + "}\n" + R"({"created": 8, )" + rest + "}\n");
  EXPECT_EQ(p.field, "created");
  EXPECT_NE(p.message.find("earlier"), std::string::npos);
  const auto missing = only_problem("{" + rest + "}\n");
  EXPECT_EQ(missing.field, "timestamp");
  EXPECT_NE(missing.message.find("created"), std::string::npos) << missing.message;
}

TEST(OpenAiReader, TimestampsMustNotDecrease) {
  const auto p = only_problem(request("5", R"("prompt": "x", "output_tokens": 1)") +
                              request("4.5", R"("prompt": "x", "output_tokens": 1)"));
  EXPECT_EQ(p.field, "timestamp");
  EXPECT_NE(p.message.find("earlier"), std::string::npos);
}

TEST(OpenAiReader, AMooncakeOrBailianLineInAnOpenAiFileIsABadLine) {
  const std::string mooncake = R"({"timestamp": 5, "input_length": 20, "output_length": 1, "hash_ids": [1]})";
  const auto bad = read_trace(kGood + "\n" + mooncake + "\n", TraceReadOptions{});  // auto: openai
  EXPECT_FALSE(bad.ok());
  ASSERT_FALSE(bad.problems.empty());
  EXPECT_EQ(bad.problems[0].line, 2u);
  EXPECT_EQ(bad.problems[0].field, "hash_ids");
  EXPECT_EQ(bad.problems[0].format, "openai");
  TraceReadOptions skip = openai();
  skip.on_error = TraceReadOptions::OnError::Skip;
  const std::string bailian =
      R"({"chat_id": 7, "parent_chat_id": -1, "timestamp": 1.5, "input_length": 20, "output_length": 3, "type": "text", "turn": 1, "hash_ids": [10, 11]})";
  const auto r = read_trace(kGood + "\n" + mooncake + "\n" + bailian + "\n" + kGood + "\n", skip);
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.bad_lines, 2u);
}

TEST(OpenAiReader, AnOpenAiLineInAMooncakeOrBailianFileIsABadLine) {
  const std::string mooncake = R"({"timestamp": 0, "input_length": 20, "output_length": 1, "hash_ids": [1]})";
  const auto m = read_trace(mooncake + "\n" + kGood + "\n", TraceReadOptions{});
  ASSERT_FALSE(m.problems.empty());
  EXPECT_EQ(m.problems[0].line, 2u);
  EXPECT_EQ(m.problems[0].field, "messages");
  EXPECT_NE(m.problems[0].message.find("openai"), std::string::npos);
  TraceReadOptions bailian;
  bailian.format = Format::Bailian;
  const auto b = read_trace(kGood + "\n", bailian);
  ASSERT_FALSE(b.problems.empty());
  EXPECT_EQ(b.problems[0].field, "chat_id");
  EXPECT_EQ(b.problems[0].format, "bailian");
}

TEST(OpenAiReader, AcceptsCrlfAndALeadingByteOrderMark) {
  const auto r = read_trace("\xEF\xBB\xBF" + kGood + "\r\n" + kGood + "\r\n", TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.trace->prompt_tokens(1), 18u);
}

TEST(OpenAiReader, HugeNumbersAreRefusedNotWrapped) {
  const std::string ok = request("0", R"("prompt": "ok", "output_tokens": 1)");
  EXPECT_EQ(only_problem(ok + request("1e300", R"("prompt": "x", "output_tokens": 1)")).field, "timestamp");
  EXPECT_EQ(only_problem(ok + request("9000000001", R"("prompt": "x", "output_tokens": 1)")).field, "timestamp");
  EXPECT_EQ(only_problem(ok + request(R"("99999-01-01T00:00:00Z")", R"("prompt": "x", "output_tokens": 1)")).field, "timestamp");
  EXPECT_EQ(only_problem(ok + request("1", R"("prompt": "x", "output_tokens": 1e300)")).field, "output_tokens");
  EXPECT_EQ(only_problem(ok + request("1", R"("prompt": "x", "output_tokens": 18446744073709551616)")).field,
            "output_tokens");
  EXPECT_EQ(only_problem(ok + request("1", R"("prompt": "x", "output_tokens": 10000001)")).field, "output_tokens");
  // 1e400 overflows a double: the line is not JSON, and says so.
  const TraceProblem p = only_problem(ok + request("1", R"("prompt": "x", "output_tokens": 1, "session_id": 1e400)"));
  EXPECT_EQ(p.field, "");
  EXPECT_EQ(p.line, 2u);
  // Epoch seconds are fine: arrivals count from the first request.
  const auto r = read_trace(request("1764547200", R"("prompt": "x", "output_tokens": 1)") +
                                request("1764547200.25", R"("prompt": "x", "output_tokens": 1)"),
                            openai());
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->arrival(1), seconds_to_ticks(0.25));
}

TEST(TraceFormat, AutoDetectsOpenAiFromMessagesOrPromptAndTheFieldAcceptsIt) {
  const auto r = read_trace("\n" + request("0", R"("prompt": "x", "output_tokens": 1)"), TraceReadOptions{});
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->kind(), BlockTrace::Kind::Sessions);
  ScenarioParse p = parse_scenario("", {{"trace.format", "openai"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(trace_read_options(p.scenario.trace).format, Format::OpenAI);
  EXPECT_STREQ(trace_format_name(Format::OpenAI), "openai");
}

// The window on the trace's own clock (seconds since its first request):
// requests before start_s are read and count their session's turn but are
// not kept; reading stops at the first at or after end_s; kept arrivals count
// from start_s (times time_scale).
TEST(OpenAiReader, TheTimeWindowKeepsTheRequestsInsideIt) {
  std::string text;
  text += request("100", R"("prompt": "a", "output_tokens": 1, "session_id": "s1")");  // clock 0: before
  text += request("101", R"("prompt": "b", "output_tokens": 1, "session_id": "s1")");  // clock 1: kept
  text += request("102.5", R"("prompt": "c", "output_tokens": 1, "session_id": "s2")");  // clock 2.5: kept
  text += request("103", R"("prompt": "d", "output_tokens": 1, "session_id": "s1")");  // clock 3: the end
  TraceReadOptions o = openai();
  o.start_s = 1;
  o.end_s = 3;
  o.time_scale = 2;
  const auto r = read_trace(text, o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  ASSERT_EQ(r.trace->size(), 2u);
  EXPECT_EQ(r.trace->arrival(0), seconds_to_ticks(0));  // (1 - 1) x 2
  EXPECT_EQ(r.trace->arrival(1), seconds_to_ticks(3));  // (2.5 - 1) x 2
  EXPECT_EQ(r.trace->turn(0), 1u);  // s1's second request: the first, before the window, still counts
  EXPECT_EQ(r.trace->turn(1), 0u);
  EXPECT_NE(r.trace->session(0), r.trace->session(1));
}

}  // namespace prefixroute::openai_trace_test
