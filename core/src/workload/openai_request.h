// One line of an openai-format trace (trace_reader.h): a logged chat or
// completion request, its fields checked and its prompt tokenized
// (text_tokenizer.h). Private to the trace reader.
//
// Fields: "timestamp" (seconds >= 0, or an ISO 8601 date-time string; a line
// without it may give "created" instead, the Unix seconds of OpenAI's API),
// "messages" (an array of {"role", "content"}) or "prompt" (text), the output
// length ("output_tokens", else "usage": {"completion_tokens"}), and an
// optional session ("session_id", a string or integer, else "user", a string).
// Which key gives the time, the prompt and the session is a choice
// (Mapping: the scenario's trace.time_field, prompt_field, session_field);
// by default ("auto") the first of each pair the line has, as above.
//
// The prompt of "messages" is ChatML, as chat models' templates render it:
// per message <|im_start|> role "\n" content <|im_end|> "\n", then the
// generation prompt <|im_start|> assistant "\n": the markers and the role
// one special token each (as a BPE vocabulary has every role name as one
// token), the rest text. A message costs its content's tokens + 5, a
// request 3 more. A "content" is a string, null (an assistant's tool
// call: no text), or an array of {"type": "text", "text"} parts, joined.
// "prompt" is tokenized as it is, without markers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::openai_trace {

using Json = nlohmann::ordered_json;

/// The timestamps accepted, in seconds: 0 (1970-01-01T00:00:00Z) to 9e9
/// (in the year 2255), so nanoseconds fit an int64 exactly.
inline constexpr double kMaxTimestampSeconds = 9e9;

/// Which key of a line gives each part of a request (trace_reader.h's
/// TraceReadOptions holds the scenario's choice). Auto: the first of the
/// pair the line has (timestamp else created; messages or prompt, a line
/// with both refused; session_id else user).
struct Mapping {
  using Time = TraceReadOptions::TimeField;
  using Prompt = TraceReadOptions::PromptField;
  using Session = TraceReadOptions::SessionField;
  Time time = Time::Auto;
  Prompt prompt = Prompt::Auto;
  Session session = Session::Auto;
};

/// Which keys a line has, and which one gave its time, prompt and session
/// (the *_used flags); the reader counts them over a log (OpenAiFieldUse).
struct KeysSeen {
  bool timestamp = false, created = false;
  bool messages = false, prompt = false;
  bool session_id = false, user = false;
};

struct Request {
  std::int64_t timestamp_ns = 0;  ///< since 1970-01-01T00:00:00Z (or since 0 for numbers)
  const char* time_field = "timestamp";  ///< the field it was read from: "timestamp" or "created"
  std::vector<std::uint64_t> tokens;
  std::uint64_t output_tokens = 0;
  bool has_session = false;
  std::string session_key;  ///< the field and its JSON text, when has_session
  const char* prompt_field = "messages";  ///< "messages" or "prompt": the key the prompt was read from
  const char* session_field = "";         ///< "session_id", "user", or "" (a session of its own)
  KeysSeen keys;                          ///< the keys the line has
};

/// Reports a problem of the line's `field`.
using Problem = std::function<void(const std::string& field, const std::string& message)>;

/// Reads `doc` (a JSON object) into `out` with the keys `mapping` chooses;
/// false after reporting each problem found. Prompts longer than
/// `max_tokens` are refused.
bool read_request(const Json& doc, std::uint64_t max_tokens, Request& out, const Problem& problem,
                  const Mapping& mapping = {});

/// Parses a strict ISO 8601 date-time: YYYY-MM-DDTHH:MM:SS, an optional
/// fraction of 1 to 9 digits, then Z, +HH:MM, -HH:MM or nothing (read as UTC:
/// only differences between timestamps matter). Nanoseconds since the epoch
/// into `ns`; false with `why` set when the text is not one.
bool parse_iso8601(const std::string& text, std::int64_t& ns, std::string& why);

}  // namespace prefixroute::openai_trace
