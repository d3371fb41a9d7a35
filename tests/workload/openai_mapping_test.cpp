// An openai log's key mapping (TraceReadOptions' time_field, prompt_field,
// session_field: the scenario's trace.* fields of those names): each choice
// read as chosen, "auto" as before, a line without the chosen key named, the
// counts of which keys the lines have and which were read, and a choice on a
// log of another format refused.
#include <gtest/gtest.h>

#include <string>

#include "prefixroute/run/replay.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::openai_mapping_test {

namespace {

using Options = TraceReadOptions;

Options openai() {
  Options o;
  o.format = Options::Format::OpenAI;
  return o;
}

// Four requests with both time keys (timestamp counts 0, 1, 2, 3 s; created
// 100, 110, 120, 130), both session keys (session_id alternates, user is
// one per pair) and a prompt.
std::string both_keys_log() {
  std::string text;
  const char* sessions[] = {"\"a\"", "\"b\"", "\"a\"", "\"b\""};
  const char* users[] = {"\"u1\"", "\"u1\"", "\"u2\"", "\"u2\""};
  for (int i = 0; i < 4; ++i)
    text += "{\"timestamp\": " + std::to_string(i) + ", \"created\": " + std::to_string(100 + 10 * i) +
            ", \"prompt\": \"same question\", \"output_tokens\": 1, \"session_id\": " + sessions[i] +
            ", \"user\": " + users[i] + "}\n";
  return text;
}

}  // namespace

TEST(OpenAiMapping, AutoReadsTimestampAndSessionIdAsBefore) {
  const auto r = read_trace(both_keys_log(), openai());
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->arrival(3), 3 * kTicksPerSecond);
  EXPECT_EQ(r.trace->session(0), r.trace->session(2));  // "a"
  EXPECT_NE(r.trace->session(0), r.trace->session(1));
  const OpenAiFieldUse& u = r.openai_fields;
  EXPECT_EQ(u.has_timestamp, 4u);
  EXPECT_EQ(u.has_created, 4u);
  EXPECT_EQ(u.time_from_timestamp, 4u);
  EXPECT_EQ(u.time_from_created, 0u);
  EXPECT_EQ(u.has_session_id, 4u);
  EXPECT_EQ(u.has_user, 4u);
  EXPECT_EQ(u.session_from_session_id, 4u);
  EXPECT_EQ(u.session_from_user, 0u);
  EXPECT_EQ(u.prompt_from_prompt, 4u);
  EXPECT_EQ(u.has_messages, 0u);
}

TEST(OpenAiMapping, TimeFromCreatedWhenChosen) {
  Options o = openai();
  o.time_field = Options::TimeField::Created;
  const auto r = read_trace(both_keys_log(), o);
  ASSERT_TRUE(r.ok()) << r.error_text();
  EXPECT_EQ(r.trace->arrival(3), 30 * kTicksPerSecond);  // 130 - 100 s
  EXPECT_EQ(r.openai_fields.time_from_created, 4u);
  EXPECT_EQ(r.openai_fields.time_from_timestamp, 0u);
}

TEST(OpenAiMapping, SessionsFromUserOrNoneWhenChosen) {
  Options o = openai();
  o.session_field = Options::SessionField::User;
  const auto by_user = read_trace(both_keys_log(), o);
  ASSERT_TRUE(by_user.ok()) << by_user.error_text();
  EXPECT_EQ(by_user.trace->session(0), by_user.trace->session(1));  // u1
  EXPECT_NE(by_user.trace->session(1), by_user.trace->session(2));
  EXPECT_EQ(by_user.trace->turn(1), 1u);
  EXPECT_EQ(by_user.openai_fields.session_from_user, 4u);
  o.session_field = Options::SessionField::None;
  const auto none = read_trace(both_keys_log(), o);
  ASSERT_TRUE(none.ok()) << none.error_text();
  for (std::size_t i = 1; i < 4; ++i) EXPECT_NE(none.trace->session(i), none.trace->session(0));
  EXPECT_EQ(none.openai_fields.own_session, 4u);
  // session_id chosen: a line without one is a session of its own, even with a user.
  o.session_field = Options::SessionField::SessionId;
  const auto ids = read_trace(R"({"timestamp": 0, "prompt": "x", "output_tokens": 1, "user": "u"})" "\n"
                              R"({"timestamp": 1, "prompt": "x", "output_tokens": 1, "user": "u"})" "\n", o);
  ASSERT_TRUE(ids.ok()) << ids.error_text();
  EXPECT_NE(ids.trace->session(0), ids.trace->session(1));
}

TEST(OpenAiMapping, APromptChoiceReadsALineWithBothKeys) {
  const std::string line =
      R"({"timestamp": 0, "prompt": "Hi there", "messages": [{"role": "user", "content": "Hi there"}], "output_tokens": 1})" "\n";
  const auto refused = read_trace(line, openai());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.problems[0].field, "prompt");
  EXPECT_NE(refused.problems[0].message.find("trace.prompt_field"), std::string::npos) << refused.problems[0].message;
  Options o = openai();
  o.prompt_field = Options::PromptField::Prompt;
  const auto as_prompt = read_trace(line, o);
  ASSERT_TRUE(as_prompt.ok()) << as_prompt.error_text();
  EXPECT_EQ(as_prompt.trace->prompt_tokens(0), 2u);  // "Hi" " there", no markers
  o.prompt_field = Options::PromptField::Messages;
  const auto as_messages = read_trace(line, o);
  ASSERT_TRUE(as_messages.ok()) << as_messages.error_text();
  EXPECT_EQ(as_messages.trace->prompt_tokens(0), 10u);  // 2 + 5 for the message, 3 for the generation prompt
  EXPECT_EQ(as_messages.openai_fields.prompt_from_messages, 1u);
  EXPECT_EQ(as_messages.openai_fields.has_prompt, 1u);
}

TEST(OpenAiMapping, ALineWithoutTheChosenKeyIsNamed) {
  Options o = openai();
  o.time_field = Options::TimeField::Timestamp;
  const auto no_timestamp = read_trace(R"({"created": 5, "prompt": "x", "output_tokens": 1})" "\n", o);
  ASSERT_FALSE(no_timestamp.ok());
  EXPECT_EQ(no_timestamp.problems[0].field, "timestamp");
  EXPECT_NE(no_timestamp.problems[0].message.find("trace.time_field = timestamp"), std::string::npos);
  o = openai();
  o.prompt_field = Options::PromptField::Messages;
  const auto no_messages = read_trace(R"({"timestamp": 5, "prompt": "x", "output_tokens": 1})" "\n", o);
  ASSERT_FALSE(no_messages.ok());
  EXPECT_EQ(no_messages.problems[0].field, "messages");
  EXPECT_NE(no_messages.problems[0].message.find("trace.prompt_field = messages"), std::string::npos);
}

TEST(OpenAiMapping, AChoiceOnALogOfAnotherFormatIsRefused) {
  Options o;  // format auto: told by the first line
  o.session_field = Options::SessionField::User;
  const auto r = read_trace(R"({"timestamp": 0, "input_length": 4, "output_length": 1, "hash_ids": [1]})" "\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.problems[0].field, "trace.session_field");
  EXPECT_NE(r.problems[0].message.find("mooncake"), std::string::npos) << r.problems[0].message;
}

TEST(OpenAiMapping, TheScenarioFieldsSetTheReadingOptionsAndADifferenceIsNamed) {
  TraceSettings s;
  s.time_field = "created";
  s.prompt_field = "messages";
  s.session_field = "none";
  const Options o = trace_read_options(s);
  EXPECT_EQ(o.time_field, Options::TimeField::Created);
  EXPECT_EQ(o.prompt_field, Options::PromptField::Messages);
  EXPECT_EQ(o.session_field, Options::SessionField::None);
  TraceSettings defaults;
  EXPECT_EQ(trace_read_options(defaults).session_field, Options::SessionField::Auto);
  const auto errors = differing_read_settings(defaults, o);
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].field, "trace.time_field");
  EXPECT_NE(errors[0].message.find("created"), std::string::npos);
  EXPECT_EQ(errors[2].field, "trace.session_field");
}

}  // namespace prefixroute::openai_mapping_test
