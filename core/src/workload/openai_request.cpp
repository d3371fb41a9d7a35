#include "workload/openai_request.h"

#include <cmath>

#include "prefixroute/workload/text_tokenizer.h"

namespace prefixroute::openai_trace {
namespace {

std::string describe(const Json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

bool is_role(const Json& v) {
  return v.is_string() && (v == "system" || v == "developer" || v == "user" || v == "assistant" || v == "tool" ||
                           v == "function");
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

unsigned days_in_month(unsigned y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// The prompt's tokens from "messages"; false after reporting.
bool read_messages(const Json& messages, std::vector<std::uint64_t>& tokens, const Problem& problem) {
  if (!messages.is_array() || messages.empty()) {
    problem("messages", "must be a non-empty array of {\"role\", \"content\"} objects; got " + describe(messages));
    return false;
  }
  static const std::uint64_t start = TextTokenizer::special("<|im_start|>");
  static const std::uint64_t end = TextTokenizer::special("<|im_end|>");
  std::string text;
  for (std::size_t k = 0; k < messages.size(); ++k) {
    const Json& m = messages[k];
    const std::string field = "messages[" + std::to_string(k) + "]";
    if (!m.is_object()) {
      problem(field, "must be an object with role and content; got " + describe(m));
      return false;
    }
    const auto role = m.find("role");
    if (role == m.end() || !is_role(*role)) {
      problem(field + ".role", role == m.end() ? "missing (system, developer, user, assistant, tool or function)"
                                               : "must be system, developer, user, assistant, tool or function; got " +
                                                     describe(*role));
      return false;
    }
    const auto content = m.find("content");
    text.clear();
    if (content == m.end()) {
      problem(field + ".content", "missing (the message's text; null for none)");
      return false;
    } else if (content->is_string()) {
      text = content->get<std::string>();
    } else if (content->is_array()) {
      for (std::size_t p = 0; p < content->size(); ++p) {
        const Json& part = (*content)[p];
        const std::string part_field = field + ".content[" + std::to_string(p) + "]";
        const auto type = part.is_object() ? part.find("type") : part.end();
        const auto part_text = part.is_object() ? part.find("text") : part.end();
        if (!part.is_object() || type == part.end() || *type != "text" || part_text == part.end() ||
            !part_text->is_string()) {
          problem(part_field, "must be a text part {\"type\": \"text\", \"text\": \"...\"} (only text is tokenized); got " +
                                  describe(part));
          return false;
        }
        text += part_text->get_ref<const std::string&>();
      }
    } else if (!content->is_null()) {
      problem(field + ".content", "must be text, null or an array of text parts; got " + describe(*content));
      return false;
    }
    tokens.push_back(start);
    tokens.push_back(TextTokenizer::special(role->get_ref<const std::string&>()));
    TextTokenizer::tokenize("\n", tokens);
    TextTokenizer::tokenize(text, tokens);
    tokens.push_back(end);
    TextTokenizer::tokenize("\n", tokens);
  }
  tokens.push_back(start);
  tokens.push_back(TextTokenizer::special("assistant"));
  TextTokenizer::tokenize("\n", tokens);
  return true;
}

}  // namespace

bool parse_iso8601(const std::string& text, std::int64_t& ns, std::string& why) {
  const auto digits = [&](std::size_t at, std::size_t n, unsigned& out) {
    if (at + n > text.size()) return false;
    out = 0;
    for (std::size_t k = at; k < at + n; ++k) {
      if (text[k] < '0' || text[k] > '9') return false;
      out = out * 10 + static_cast<unsigned>(text[k] - '0');
    }
    return true;
  };
  const auto is = [&](std::size_t at, char c) { return at < text.size() && text[at] == c; };
  unsigned year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(0, 4, year) || !is(4, '-') || !digits(5, 2, month) || !is(7, '-') || !digits(8, 2, day) ||
      !is(10, 'T') || !digits(11, 2, hour) || !is(13, ':') || !digits(14, 2, minute) || !is(16, ':') ||
      !digits(17, 2, second)) {
    why = "is not an ISO 8601 date-time YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM]";
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 ||
      second > 59) {
    why = "is not a valid date and time (month 01-12, a day of that month, hour 00-23, minute and second 00-59)";
    return false;
  }
  std::size_t at = 19;
  std::int64_t fraction_ns = 0;
  if (is(at, '.')) {
    std::size_t n = 0;
    while (at + 1 + n < text.size() && text[at + 1 + n] >= '0' && text[at + 1 + n] <= '9') ++n;
    if (n < 1 || n > 9) {
      why = "has a fraction of " + std::to_string(n) + " digits; 1 to 9 are allowed";
      return false;
    }
    for (std::size_t k = 0; k < 9; ++k) fraction_ns = fraction_ns * 10 + (k < n ? text[at + 1 + k] - '0' : 0);
    at += 1 + n;
  }
  std::int64_t offset_s = 0;
  if (is(at, 'Z')) {
    ++at;
  } else if (is(at, '+') || is(at, '-')) {
    unsigned oh = 0, om = 0;
    if (!digits(at + 1, 2, oh) || !is(at + 3, ':') || !digits(at + 4, 2, om) || oh > 23 || om > 59) {
      why = "has an invalid UTC offset (allowed: Z, +HH:MM or -HH:MM)";
      return false;
    }
    offset_s = (static_cast<std::int64_t>(oh) * 3600 + om * 60) * (text[at] == '-' ? -1 : 1);
    at += 6;
  }
  if (at != text.size()) {
    why = "has unexpected text after the time (allowed: a fraction, then Z, +HH:MM or -HH:MM)";
    return false;
  }
  const std::int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  if (seconds < 0 || static_cast<double>(seconds) > kMaxTimestampSeconds) {
    why = "is outside 1970-01-01T00:00:00Z .. 9e9 seconds later (the year 2255)";
    return false;
  }
  ns = seconds * 1'000'000'000 + fraction_ns;
  return true;
}

bool read_request(const Json& doc, std::uint64_t max_tokens, Request& out, const Problem& problem,
                  const Mapping& mapping) {
  bool ok = true;
  const auto fail = [&](const std::string& field, const std::string& message) {
    problem(field, message);
    ok = false;
  };
  // A line of another format (Mooncake's or Bailian's fields) is refused by name.
  for (const char* other : {"hash_ids", "chat_id", "input_length"})
    if (doc.contains(other))
      fail(other, "is a Mooncake or Bailian field: this is an openai trace (a line of another format; see trace.format)");

  KeysSeen& keys = out.keys;
  keys.timestamp = doc.contains("timestamp");
  keys.created = doc.contains("created");
  keys.messages = doc.contains("messages");
  keys.prompt = doc.contains("prompt");
  keys.session_id = doc.contains("session_id");
  keys.user = doc.contains("user");

  // The arrival time: "timestamp", else "created" (Unix seconds, the field
  // OpenAI's API puts in its responses, so a log of them has it), unless
  // trace.time_field names one.
  const char* time_field = mapping.time == Mapping::Time::Created     ? "created"
                           : mapping.time == Mapping::Time::Timestamp ? "timestamp"
                           : keys.timestamp || !keys.created          ? "timestamp"
                                                                      : "created";
  out.time_field = time_field;
  const auto ts = doc.find(time_field);
  if (ts == doc.end() && mapping.time != Mapping::Time::Auto) {
    fail(time_field, std::string("missing (trace.time_field = ") + time_field + " reads the arrival time from " +
                         time_field + "; set trace.time_field = auto to take timestamp, else created)");
  } else if (ts == doc.end()) {
    fail("timestamp",
         "missing (arrival time: seconds >= 0, or an ISO 8601 date-time string; a log of OpenAI responses may give it "
         "as created, Unix seconds)");
  } else if (ts->is_string()) {
    std::string why;
    if (!parse_iso8601(ts->get_ref<const std::string&>(), out.timestamp_ns, why)) fail(time_field, describe(*ts) + " " + why);
  } else if (!ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() < 0 ||
             ts->get<double>() > kMaxTimestampSeconds) {
    fail(time_field, "must be a number of seconds in [0, 9e9] or an ISO 8601 date-time string; got " + describe(*ts));
  } else {
    // Whole seconds and fraction apart (both exact), so epoch seconds keep
    // their fraction: d * 1e9 alone would round to 256 ns at 1.7e9 s.
    const double d = ts->get<double>();
    const double whole = std::floor(d);
    out.timestamp_ns = static_cast<std::int64_t>(whole) * 1'000'000'000 + std::llround((d - whole) * 1e9);
  }

  out.tokens.clear();
  const auto messages = doc.find("messages");
  const auto prompt = doc.find("prompt");
  // Which of the two keys is read: trace.prompt_field's, else the one the line has.
  const bool use_messages = mapping.prompt == Mapping::Prompt::Messages ||
                            (mapping.prompt == Mapping::Prompt::Auto && messages != doc.end());
  out.prompt_field = use_messages ? "messages" : "prompt";
  const auto read_prompt = [&](const Json& text) {
    if (!text.is_string() || text.get_ref<const std::string&>().empty())
      fail("prompt", "must be non-empty text; got " + describe(text));
    else
      TextTokenizer::tokenize(text.get_ref<const std::string&>(), out.tokens);
  };
  if (mapping.prompt == Mapping::Prompt::Auto && messages != doc.end() && prompt != doc.end()) {
    fail("prompt", "a line has either messages (chat) or prompt (completion), not both (or choose one with "
                   "trace.prompt_field = messages or prompt)");
  } else if (mapping.prompt != Mapping::Prompt::Auto && (use_messages ? messages : prompt) == doc.end()) {
    fail(out.prompt_field, std::string("missing (trace.prompt_field = ") + out.prompt_field + " reads the prompt from " +
                               out.prompt_field + "; set trace.prompt_field = auto to take whichever a line has)");
  } else if (use_messages) {
    if (!read_messages(*messages, out.tokens, problem)) ok = false;
  } else if (prompt != doc.end()) {
    read_prompt(*prompt);
  } else {
    fail("messages", "missing (the chat's messages, or a completion's prompt; a line of another format?)");
  }
  if (out.tokens.size() > max_tokens)
    fail(out.prompt_field,
         "has " + std::to_string(out.tokens.size()) + " tokens; at most " + std::to_string(max_tokens) + " are allowed");

  const auto read_count = [&](const Json& v, const std::string& field) {
    const bool integral = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0) ||
                          (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() == std::floor(v.get<double>()));
    if (!integral || v.get<double>() > static_cast<double>(max_tokens)) {
      fail(field, "must be an integer in [0, " + std::to_string(max_tokens) + "]; got " + describe(v));
      return;
    }
    out.output_tokens = v.get<std::uint64_t>();
  };
  const auto output = doc.find("output_tokens");
  const auto usage = doc.find("usage");
  if (output != doc.end()) {
    read_count(*output, "output_tokens");
  } else if (usage != doc.end()) {
    const auto completion = usage->is_object() ? usage->find("completion_tokens") : usage->end();
    if (!usage->is_object() || completion == usage->end())
      fail("usage.completion_tokens", "missing (the output length; or give output_tokens)");
    else
      read_count(*completion, "usage.completion_tokens");
  } else {
    fail("output_tokens", "missing (the output length: output_tokens, or usage.completion_tokens)");
  }

  // The session: session_id, else user, unless trace.session_field names
  // one (a line without it is a session of its own) or none (every request is).
  out.has_session = false;
  out.session_field = "";
  using Session = Mapping::Session;
  const auto session = mapping.session == Session::Auto || mapping.session == Session::SessionId ? doc.find("session_id")
                                                                                                : doc.end();
  const auto user = mapping.session == Session::Auto || mapping.session == Session::User ? doc.find("user") : doc.end();
  if (session != doc.end()) {
    if (!session->is_string() && !session->is_number_integer())
      fail("session_id", "must be a string or an integer; got " + describe(*session));
    out.has_session = true;
    out.session_field = "session_id";
    out.session_key = "session_id:" + session->dump();
  } else if (user != doc.end()) {
    if (!user->is_string()) fail("user", "must be a string; got " + describe(*user));
    out.has_session = true;
    out.session_field = "user";
    out.session_key = "user:" + user->dump();
  }
  return ok;
}

}  // namespace prefixroute::openai_trace
