#include "prefixroute/workload/trace_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>
#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "workload/openai_request.h"
#include "prefixroute/base/hashing.h"
#include "prefixroute/base/time.h"
#include "prefixroute/workload/workload_config.h"

namespace prefixroute {
namespace {

using Json = nlohmann::ordered_json;  // the one instantiation the core uses

constexpr std::uint64_t kMaxLength = 10'000'000;      // tokens in one request
constexpr std::uint64_t kMaxBlockId = 4294967295ULL;  // ids become 32-bit tokens
// Bailian ids leave the top bit free: a partial last block's first token is
// its id with that bit set (block_trace.h), so no full block starts with it.
constexpr std::uint64_t kMaxBailianBlockId = 2147483647ULL;
constexpr std::uint64_t kMaxChatId = 9007199254740992ULL;  // 2^53: exact as a JS number
constexpr std::uint64_t kMaxTurn = 4294967295ULL;

std::string describe(const Json& v) {
  std::string text = v.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// Reads an integer in [lo, hi] from `v`; false when it is anything else.
bool read_integer(const Json& v, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out) {
  if (v.is_number_unsigned()) {
    out = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0) return false;
    out = static_cast<std::uint64_t>(v.get<std::int64_t>());
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!(d >= 0) || d != std::floor(d) || d > 1e18) return false;
    out = static_cast<std::uint64_t>(d);
  } else {
    return false;
  }
  return out >= lo && out <= hi;
}

// Deepest [ / { nesting of a line, strings skipped. For valid JSON this is the
// exact depth; invalid JSON is refused by the parser anyway.
constexpr int kMaxNesting = 16;
int nesting_depth(std::string_view line) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : line) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxNesting) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

const char* trace_format_name(TraceReadOptions::Format format) {
  switch (format) {
    case TraceReadOptions::Format::Mooncake: return "mooncake";
    case TraceReadOptions::Format::Bailian: return "bailian";
    case TraceReadOptions::Format::OpenAI: return "openai";
    case TraceReadOptions::Format::Auto: break;
  }
  return "auto";
}

const char* trace_time_field_name(TraceReadOptions::TimeField field) {
  switch (field) {
    case TraceReadOptions::TimeField::Timestamp: return "timestamp";
    case TraceReadOptions::TimeField::Created: return "created";
    case TraceReadOptions::TimeField::Auto: break;
  }
  return "auto";
}

const char* trace_prompt_field_name(TraceReadOptions::PromptField field) {
  switch (field) {
    case TraceReadOptions::PromptField::Messages: return "messages";
    case TraceReadOptions::PromptField::Prompt: return "prompt";
    case TraceReadOptions::PromptField::Auto: break;
  }
  return "auto";
}

const char* trace_session_field_name(TraceReadOptions::SessionField field) {
  switch (field) {
    case TraceReadOptions::SessionField::SessionId: return "session_id";
    case TraceReadOptions::SessionField::User: return "user";
    case TraceReadOptions::SessionField::None: return "none";
    case TraceReadOptions::SessionField::Auto: break;
  }
  return "auto";
}

std::string TraceProblem::text() const {
  std::string where = line > 0 ? "line " + std::to_string(line) : "trace";
  if (!format.empty()) where = format + " trace, " + where;
  if (!field.empty()) where += ", " + field;
  return where + ": " + message;
}

std::string TraceReadResult::error_text() const {
  std::string text;
  for (const auto& p : problems) text += p.text() + "\n";
  if (bad_lines > problems.size()) {
    text += "(";
    text += std::to_string(bad_lines - problems.size());
    text += " more bad lines not listed)\n";
  }
  return text;
}

TraceReader::TraceReader(TraceReadOptions options, Sink sink)
    : options_(options), format_(options.format), sink_(std::move(sink)) {}

void TraceReader::problem(std::string field, std::string message) {
  line_failed_ = true;
  if (problems_.size() < kMaxProblemsKept)
    problems_.push_back({line_number_, std::move(field), std::move(message), current_format_});
}

bool TraceReader::feed(std::string_view chunk) {
  for (const char c : chunk) {
    hash_ ^= static_cast<unsigned char>(c);
    hash_ *= 0x100000001B3ULL;
  }
  while (!chunk.empty() && !stopped_) {
    const auto newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (pending_.size() + piece.size() > kMaxLineBytes) {
      ++line_number_;
      problem("", "line is longer than " + std::to_string(kMaxLineBytes) + " bytes");
      fatal_ = true;  // cannot resynchronise cheaply: the rest of the line is unknown
      stopped_ = true;
      break;
    }
    pending_.append(piece);
    if (newline == std::string_view::npos) break;
    chunk.remove_prefix(newline + 1);
    ++line_number_;
    process_line(pending_);
    pending_.clear();
  }
  return !stopped_;
}

std::uint32_t TraceReader::block_size() const {
  switch (format_) {
    case TraceReadOptions::Format::Bailian: return TraceReadOptions::kBailianBlockSize;
    case TraceReadOptions::Format::OpenAI: return TraceReadOptions::kOpenAiBlockSize;
    default: return options_.block_size;
  }
}

BlockTrace::Kind TraceReader::kind() const {
  const bool sessions = format_ == TraceReadOptions::Format::Bailian || format_ == TraceReadOptions::Format::OpenAI;
  return sessions ? BlockTrace::Kind::Sessions : BlockTrace::Kind::Mooncake;
}

void TraceReader::process_line(std::string_view line) {
  using Format = TraceReadOptions::Format;
  if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank
  line_failed_ = false;
  // A UTF-8 byte order mark before the first line is an editor's, not JSON.
  if (line_number_ == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  // A deeply nested line would cost ~80 bytes of tree per input byte and
  // overflow the stack when a message dumps it: refuse it before parsing.
  const bool too_deep = nesting_depth(line) > kMaxNesting;
  const Json doc = too_deep ? Json(nullptr) : json_text::parse_unbounded(line);
  const bool object = !too_deep && !doc.is_discarded() && doc.is_object();
  if (format_ == Format::Auto && object)
    format_ = doc.contains("chat_id")                              ? Format::Bailian
              : doc.contains("messages") || doc.contains("prompt") ? Format::OpenAI
                                                                   : Format::Mooncake;
  const bool bailian = format_ == Format::Bailian;
  const bool openai = format_ == Format::OpenAI;
  current_format_ = bailian ? "bailian" : openai ? "openai" : "";
  if (object && !openai && !mapping_checked_) {
    // The openai key choices on a log of fixed keys: say so rather than ignore them.
    mapping_checked_ = true;
    const std::pair<const char*, const char*> chosen[] = {
        {"trace.time_field", trace_time_field_name(options_.time_field)},
        {"trace.prompt_field", trace_prompt_field_name(options_.prompt_field)},
        {"trace.session_field", trace_session_field_name(options_.session_field)}};
    for (const auto& [key, value] : chosen)
      if (std::string_view(value) != "auto") {
        problem(key, std::string("is ") + value + ", a key of an openai log, but this is a " +
                         trace_format_name(format_) + " trace, whose lines have fixed keys: set it to auto");
        fatal_ = stopped_ = true;
        count_bad_line();
        return;
      }
  }
  if (openai && object) {
    if (!accept_openai(doc)) count_bad_line();
    return;
  }
  double seconds = 0, timestamp = 0;
  std::uint64_t input = 0, output = 0, chat_id = 0, session = 0;
  std::uint32_t turn = 0;
  if (too_deep) {
    problem("", "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
  } else if (doc.is_discarded() || !doc.is_object()) {
    problem("", doc.is_discarded() ? "not valid JSON" : "not a JSON object");
  } else if (!bailian) {
    auto ts = doc.find("timestamp");
    if (ts == doc.end()) {
      problem("timestamp", "missing (arrival time in ms, a number >= 0)");
    } else if (!ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() < 0) {
      problem("timestamp", "must be a number >= 0 (ms); got " + describe(*ts));
    } else {
      timestamp = ts->get<double>();
      if (timestamp * options_.time_scale / 1000.0 > kMaxArrivalSpanSeconds) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", kMaxArrivalSpanSeconds * 1000.0 / options_.time_scale);
        problem("timestamp", "must be at most " + std::string(limit) +
                                 " ms at this time_scale (simulated time stops at 1e9 s); got " + describe(*ts));
      } else if (requests_ + earlier_ > 0 && timestamp < last_timestamp_)
        problem("timestamp", "is " + describe(*ts) + ", earlier than the previous request's; timestamps must not decrease");
    }
    seconds = timestamp * options_.time_scale / 1000.0;
    if (doc.contains("chat_id"))
      problem("chat_id", "is a Bailian field: this is a Mooncake trace (a line of another format; see trace.format)");
    if (!doc.contains("input_length") && (doc.contains("messages") || doc.contains("prompt")))
      problem(doc.contains("messages") ? "messages" : "prompt",
              "is an openai field: this is a Mooncake trace (a line of another format; see trace.format)");
  } else {
    auto id = doc.find("chat_id");
    if (id == doc.end()) problem("chat_id", "missing (the request's id, an integer >= 0; a line of another format?)");
    else if (!read_integer(*id, 0, kMaxChatId, chat_id))
      problem("chat_id", "must be an integer in [0, 2^53]; got " + describe(*id));
    else if (roots_.count(chat_id) != 0)
      problem("chat_id", "is " + describe(*id) + ", already seen on an earlier line; chat ids must be unique");
    auto parent = doc.find("parent_chat_id");
    std::uint64_t parent_id = 0;
    bool root = false;
    if (parent == doc.end()) {
      problem("parent_chat_id", "missing (the chat_id this request continues, or -1 for a root)");
    } else if (parent->is_number_integer() && parent->get<std::int64_t>() == -1) {
      root = true;
    } else if (!read_integer(*parent, 0, kMaxChatId, parent_id)) {
      problem("parent_chat_id", "must be -1 or an integer in [0, 2^53]; got " + describe(*parent));
    } else if (!line_failed_ && parent_id == chat_id) {
      problem("parent_chat_id", "equals the line's chat_id; a request cannot continue itself");
    }
    auto ts = doc.find("timestamp");
    if (ts == doc.end()) {
      problem("timestamp", "missing (arrival time in seconds, a number >= 0)");
    } else if (!ts->is_number() || !std::isfinite(ts->get<double>()) || ts->get<double>() < 0) {
      problem("timestamp", "must be a number >= 0 (seconds); got " + describe(*ts));
    } else {
      timestamp = ts->get<double>();
      if (timestamp * options_.time_scale > kMaxArrivalSpanSeconds) {
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", kMaxArrivalSpanSeconds / options_.time_scale);
        problem("timestamp", "must be at most " + std::string(limit) +
                                 " s at this time_scale (simulated time stops at 1e9 s); got " + describe(*ts));
      } else if (requests_ + earlier_ > 0 && timestamp < last_timestamp_)
        problem("timestamp", "is " + describe(*ts) + ", earlier than the previous request's; timestamps must not decrease");
    }
    seconds = timestamp * options_.time_scale;
    auto type = doc.find("type");
    if (type == doc.end()) {
      problem("type", "missing (text, search, image or file)");
    } else if (!type->is_string() || (*type != "text" && *type != "search" && *type != "image" && *type != "file")) {
      problem("type", "must be \"text\", \"search\", \"image\" or \"file\"; got " + describe(*type));
    }
    auto t = doc.find("turn");
    std::uint64_t turn_value = 0;
    if (t == doc.end()) problem("turn", "missing (the request's turn in its conversation, 1 for the first)");
    else if (!read_integer(*t, 1, kMaxTurn, turn_value))
      problem("turn", "must be an integer in [1, " + std::to_string(kMaxTurn) + "]; got " + describe(*t));
    turn = static_cast<std::uint32_t>(turn_value > 0 ? turn_value - 1 : 0);
    if (!line_failed_) {
      if (root) {
        session = chat_id;
      } else {
        const auto found = roots_.find(parent_id);
        session = found != roots_.end() ? found->second : parent_id;  // an absent parent is the root
      }
    }
  }
  if (!too_deep && !doc.is_discarded() && doc.is_object()) {
    auto in = doc.find("input_length");
    if (in == doc.end()) problem("input_length", "missing (prompt tokens, an integer >= 1)");
    else if (!read_integer(*in, 1, kMaxLength, input))
      problem("input_length", "must be an integer in [1, " + std::to_string(kMaxLength) + "]; got " + describe(*in));
    auto out = doc.find("output_length");
    if (out == doc.end()) problem("output_length", "missing (output tokens, an integer >= 0)");
    else if (!read_integer(*out, 0, kMaxLength, output))
      problem("output_length", "must be an integer in [0, " + std::to_string(kMaxLength) + "]; got " + describe(*out));
    auto ids = doc.find("hash_ids");
    const std::size_t first_block = block_ids_.size();
    const std::uint64_t max_id = bailian ? kMaxBailianBlockId : kMaxBlockId;
    const std::uint32_t block = block_size();
    if (ids == doc.end()) {
      problem("hash_ids", "missing (the prompt's block ids)");
    } else if (!ids->is_array()) {
      problem("hash_ids", "must be an array of block ids; got " + describe(*ids));
    } else {
      for (const Json& id : *ids) {
        std::uint64_t value = 0;
        if (!read_integer(id, 0, max_id, value)) {
          problem("hash_ids", "ids must be integers in [0, " + std::to_string(max_id) + "]; got " + describe(id));
          break;
        }
        block_ids_.push_back(static_cast<std::uint32_t>(value));
      }
      if (!line_failed_ && input > 0) {
        const std::uint64_t want = (input + block - 1) / block;
        if (ids->size() != want)
          problem("hash_ids", "has " + std::to_string(ids->size()) + " ids, but input_length " +
                                  std::to_string(input) + " needs " + std::to_string(want) +
                                  " blocks of " + std::to_string(block) + " tokens");
      }
    }
    if (!line_failed_ && static_cast<double>(total_tokens_ + input) > kMaxTotalPromptTokens) {
      problem("input_length", "the trace exceeds the limit of 2e10 prompt tokens in all");
      fatal_ = true;
    }
    // The window (options_.start_s, end_s) on the trace's own clock.
    const double clock_s = bailian ? timestamp : timestamp / 1000.0;
    if (!line_failed_ && options_.end_s > 0 && clock_s >= options_.end_s) {
      block_ids_.resize(first_block);
      done_ = true;
      stopped_ = true;
      return;
    }
    if (!line_failed_ && clock_s < options_.start_s) {
      // Read and checked, not kept: a later request may continue its chat.
      block_ids_.resize(first_block);
      if (bailian) roots_.emplace(chat_id, session);
      last_timestamp_ = timestamp;
      ++earlier_;
      return;
    }
    if (line_failed_) {
      block_ids_.resize(first_block);
    } else {
      BlockTrace::Entry e;
      // std::max: the product's rounding must not put the window's first request before 0.
      e.arrival = options_.start_s > 0 ? seconds_to_ticks(std::max(0.0, seconds - options_.start_s * options_.time_scale))
                                       : seconds_to_ticks(seconds);
      e.input_tokens = static_cast<std::uint32_t>(input);
      e.output_tokens = static_cast<std::uint32_t>(output);
      e.first_block = first_block;
      e.blocks = static_cast<std::uint32_t>(block_ids_.size() - first_block);
      if (bailian) {
        e.session = session;
        e.turn = turn;
        roots_.emplace(chat_id, session);
      }
      last_timestamp_ = timestamp;
      store(e);
      return;
    }
  }
  count_bad_line();
}

void TraceReader::count_bad_line() {
  ++bad_lines_;
  if (options_.on_error == TraceReadOptions::OnError::Stop || fatal_) {
    fatal_ = true;
    stopped_ = true;
  }
}

void TraceReader::store(BlockTrace::Entry e) {
  total_tokens_ += e.input_tokens;
  ++requests_;
  if (sink_) {
    const std::span<const std::uint32_t> blocks(block_ids_.data() + e.first_block, e.blocks);
    e.first_block = 0;
    if (!sink_(e, blocks)) {
      problem("", "the request could not be stored");
      fatal_ = true;
      stopped_ = true;
    }
    block_ids_.clear();
  } else {
    entries_.push_back(e);
  }
  if (options_.limit > 0 && requests_ >= options_.limit) done_ = stopped_ = true;
}

bool TraceReader::accept_openai(const nlohmann::ordered_json& doc) {
  openai_trace::Request request;
  request.tokens = std::move(openai_tokens_);  // reuse the buffer
  openai_trace::Mapping mapping;
  mapping.time = options_.time_field;
  mapping.prompt = options_.prompt_field;
  mapping.session = options_.session_field;
  const bool read = openai_trace::read_request(
      doc, kMaxLength, request,
      [&](const std::string& field, const std::string& message) { problem(field, message); }, mapping);
  openai_tokens_ = std::move(request.tokens);
  if (!read) return false;
  const auto count_keys = [&] {
    OpenAiFieldUse& use = openai_fields_;
    const openai_trace::KeysSeen& keys = request.keys;
    use.has_timestamp += keys.timestamp;
    use.has_created += keys.created;
    use.has_messages += keys.messages;
    use.has_prompt += keys.prompt;
    use.has_session_id += keys.session_id;
    use.has_user += keys.user;
    const std::string_view time(request.time_field), prompt(request.prompt_field), session(request.session_field);
    use.time_from_timestamp += time == "timestamp";
    use.time_from_created += time == "created";
    use.prompt_from_messages += prompt == "messages";
    use.prompt_from_prompt += prompt == "prompt";
    use.session_from_session_id += session == "session_id";
    use.session_from_user += session == "user";
    use.own_session += session.empty();
  };
  const bool first = requests_ + earlier_ == 0;
  const std::int64_t first_ns = first ? request.timestamp_ns : openai_first_ns_;
  if (!first && request.timestamp_ns < openai_last_ns_) {
    problem(request.time_field, "is earlier than the previous request's; timestamps must not decrease");
    return false;
  }
  const double seconds = static_cast<double>(request.timestamp_ns - first_ns) / 1e9 * options_.time_scale;
  if (seconds > kMaxArrivalSpanSeconds) {
    problem(request.time_field, "is more than 1e9 s after the first request's at this time_scale (simulated time stops at 1e9 s)");
    return false;
  }
  // The window (options_.start_s, end_s) on the trace's own clock: seconds since the first request.
  const double clock_s = static_cast<double>(request.timestamp_ns - first_ns) / 1e9;
  if (options_.end_s > 0 && clock_s >= options_.end_s) {
    done_ = stopped_ = true;
    return true;
  }
  if (clock_s < options_.start_s) {
    // Read and checked, not kept; its session still counts the turn.
    if (request.has_session) {
      auto [it, fresh] = openai_sessions_.try_emplace(request.session_key, openai_next_session_, 0);
      if (fresh) ++openai_next_session_;
      if (it->second.second < 0xFFFFFFFFu) ++it->second.second;
    }
    openai_first_ns_ = first_ns;
    openai_last_ns_ = request.timestamp_ns;
    ++earlier_;
    count_keys();
    return true;
  }
  const std::size_t input = openai_tokens_.size();
  if (static_cast<double>(total_tokens_ + input) > kMaxTotalPromptTokens) {
    problem(request.prompt_field, "the trace exceeds the limit of 2e10 prompt tokens in all");
    fatal_ = true;
    return false;
  }
  // Blocks: each id interned from the chain hash of every token up to the
  // block's end (and the block's length, so a partial block is its own).
  const std::uint32_t block = TraceReadOptions::kOpenAiBlockSize;
  const std::size_t first_block = block_ids_.size();
  std::uint64_t chain = hashing::kFnvOffset;
  for (std::size_t from = 0; from < input; from += block) {
    const std::size_t to = std::min(input, from + block);
    hashing::Fnv1a64 h{chain};
    for (std::size_t k = from; k < to; ++k) h.feed(openai_tokens_[k]);
    h.feed(to - from);
    chain = hashing::fmix64(h.value);
    const auto found = openai_blocks_.try_emplace(chain, static_cast<std::uint32_t>(openai_blocks_.size()));
    if (openai_blocks_.size() > kMaxBailianBlockId + 1) {
      problem("", "the trace has more than 2^31 distinct 16-token blocks");
      fatal_ = true;
      block_ids_.resize(first_block);
      return false;
    }
    block_ids_.push_back(found.first->second);
  }
  BlockTrace::Entry e;
  // std::max: the product's rounding must not put the window's first request before 0.
  e.arrival = seconds_to_ticks(std::max(0.0, seconds - options_.start_s * options_.time_scale));
  e.input_tokens = static_cast<std::uint32_t>(input);
  e.output_tokens = static_cast<std::uint32_t>(request.output_tokens);
  e.first_block = first_block;
  e.blocks = static_cast<std::uint32_t>(block_ids_.size() - first_block);
  if (request.has_session) {
    auto [it, fresh] = openai_sessions_.try_emplace(request.session_key, openai_next_session_, 0);
    if (fresh) ++openai_next_session_;
    e.session = it->second.first;
    e.turn = it->second.second;
    if (it->second.second < 0xFFFFFFFFu) ++it->second.second;
  } else {
    e.session = openai_next_session_++;
    e.turn = 0;
  }
  openai_first_ns_ = first_ns;
  openai_last_ns_ = request.timestamp_ns;
  count_keys();
  store(e);
  return true;
}

TraceReadResult TraceReader::finish() {
  if (!stopped_ && !pending_.empty()) {  // a last line without a newline
    ++line_number_;
    process_line(pending_);
    pending_.clear();
  }
  TraceReadResult result;
  result.lines = line_number_;
  result.bad_lines = bad_lines_;
  result.content_hash = hash_;
  result.requests = requests_;
  result.format = format_;
  result.openai_fields = openai_fields_;
  if (!fatal_ && requests_ == 0 && problems_.empty()) {
    if (options_.start_s > 0 || options_.end_s > 0) {
      const std::string end = options_.end_s > 0 ? describe(Json(options_.end_s)) + " s" : "the end";
      problems_.push_back({0, "", "no request is in the window trace.start_s = " + describe(Json(options_.start_s)) +
                                      " s to trace.end_s = " + end + " (" + std::to_string(earlier_) +
                                      " requests before it)", ""});
    } else {
      problems_.push_back({0, "", "the trace has no requests", ""});
    }
  }
  result.problems = std::move(problems_);
  result.read = !fatal_ && requests_ > 0;
  if (result.read && !sink_)
    result.trace = std::make_unique<BlockTrace>(block_size(), std::move(entries_), std::move(block_ids_),
                                                kind());
  return result;
}

TraceReadResult read_trace(std::string_view text, const TraceReadOptions& options) {
  TraceReader reader(options);
  reader.feed(text);
  return reader.finish();
}

}  // namespace prefixroute
