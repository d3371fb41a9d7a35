// TraceReader: reads a Mooncake-, Bailian- or openai-format JSONL trace incrementally,
// validating every line, so a browser can stream a file in chunks with
// progress and the command line can read it whole through the same code.
//
// Mooncake line: {"timestamp": ms, "input_length": n, "output_length": m,
// "hash_ids": [ids...]} with ceil(n / block_size) ids. Other keys are ignored,
// except Bailian's chat_id: such a line is refused as of the other format.
//
// Bailian line (Alibaba's Qwen-Bailian traces): {"chat_id": c,
// "parent_chat_id": p or -1, "timestamp": seconds, "input_length": n,
// "output_length": m, "type": "text"|"search"|"image"|"file", "turn": t >= 1,
// "hash_ids": [ids...]} with ceil(n / 16) ids in [0, 2^31) (blocks are always
// 16 tokens; trace.block_size is Mooncake's). A request's session is its
// chain's root chat_id (a parent not in the file counts as the root), its turn
// t - 1. Arrival = seconds x time_scale, the instant Mooncake's ms x
// time_scale / 1000 gives (the seconds are not multiplied by 1000 first). A partial last block (n not a
// multiple of 16) is its own content (block_trace.h): it shares no token with
// a full block of the same id. A chat_id seen before, or a line without
// chat_id (e.g. a Mooncake line), is a bad line whose problem names "bailian".
//
// openai line (a log of chat-completion requests): {"timestamp": seconds or
// an ISO 8601 string (else "created", Unix seconds), "messages": [{"role",
// "content"}...] or "prompt": text, "output_tokens": m or "usage":
// {"completion_tokens": m}, optionally "session_id" (string or integer) or
// "user" (string)}; the fields in detail in openai_request.h. Which key gives
// the time, the prompt and the session may be chosen (TraceReadOptions'
// time_field, prompt_field, session_field: the scenario's trace.* fields of
// those names), and the reader counts which keys the lines have and which
// were read (TraceReadResult::openai_fields), so a reader of the log sees how
// its fields were mapped. The prompt is tokenized (text_tokenizer.h: a fixed
// rule, identical text gives identical tokens), then cut into 16-token blocks
// whose ids are interned: a block's id is the first number given to its
// (previous block's chain hash, its tokens) 64-bit chain hash, so two prompts
// share exactly the full blocks of their common token prefix (as vLLM's
// block hashes do; a shared part of a block is not shared) and ids are dense
// from 0 in order of first appearance. Arrival = (timestamp - the first
// request's timestamp) x time_scale. A session is a distinct session_id
// (else user) value; a request with neither is a session of its own; a
// request's turn is the number of earlier requests of its session. A line
// with hash_ids, chat_id or input_length is of another format: a bad line.
//
// Format::Auto tells the format from the first line that is a JSON object:
// one with a chat_id key is Bailian, one with messages or prompt openai, any
// other Mooncake; every later line is read as that format.
// Every problem names its line and field: a malformed line, a missing field, a
// negative or non-integral length, an id outside [0, 2^32), a timestamp earlier
// than the previous request's, a hash list whose length disagrees with
// input_length, a line over 16 MiB. Blank lines are skipped.
//
// On a bad line the reader either stops (OnError::Stop: no trace, the problem
// reported) or skips the line (OnError::Skip: the trace keeps every good line,
// and the result counts the bad ones and keeps the first 100 problems).
// Nothing is dropped silently.
//
// Cost: O(bytes) time; memory O(requests + block ids) plus the longest line.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "prefixroute/workload/block_trace.h"

namespace prefixroute {

struct TraceReadOptions {
  enum class OnError { Stop, Skip };
  enum class Format { Auto, Mooncake, Bailian, OpenAI };
  static constexpr std::uint32_t kBailianBlockSize = 16;
  static constexpr std::uint32_t kOpenAiBlockSize = 16;
  std::uint32_t block_size = 512;  ///< Mooncake's; Bailian's and openai's are fixed (16)
  double time_scale = 1.0;   ///< arrival = timestamp_ms x time_scale
  std::uint64_t limit = 0;   ///< keep the first `limit` requests; 0 keeps all
  /// The window of the trace's own clock replayed, in seconds (Mooncake's ms
  /// / 1000, Bailian's s): requests before start_s are read (and checked) but
  /// not kept, reading stops at the first at or after end_s (0 = no end), and
  /// a kept request arrives at (its second - start_s) x time_scale.
  double start_s = 0;
  double end_s = 0;
  OnError on_error = OnError::Stop;
  Format format = Format::Auto;
  /// An openai log's keys for the time, the prompt and the session (ignored by the other formats).
  enum class TimeField { Auto, Timestamp, Created };
  enum class PromptField { Auto, Messages, Prompt };
  enum class SessionField { Auto, SessionId, User, None };
  TimeField time_field = TimeField::Auto;
  PromptField prompt_field = PromptField::Auto;
  SessionField session_field = SessionField::Auto;
};

/// An openai log's keys: how many of its requests read (the kept ones and
/// those before the window) have each key, and which key gave each part.
/// All zero for the other formats.
struct OpenAiFieldUse {
  std::uint64_t has_timestamp = 0, has_created = 0;
  std::uint64_t has_messages = 0, has_prompt = 0;
  std::uint64_t has_session_id = 0, has_user = 0;
  std::uint64_t time_from_timestamp = 0, time_from_created = 0;
  std::uint64_t prompt_from_messages = 0, prompt_from_prompt = 0;
  std::uint64_t session_from_session_id = 0, session_from_user = 0;
  std::uint64_t own_session = 0;  ///< requests that are a session of their own (no session key read)
};

/// "auto", "mooncake", "bailian" or "openai".
const char* trace_format_name(TraceReadOptions::Format format);
/// The scenario's names of the openai key choices (trace.time_field,
/// prompt_field, session_field): "auto", "timestamp", "created", ...
const char* trace_time_field_name(TraceReadOptions::TimeField field);
const char* trace_prompt_field_name(TraceReadOptions::PromptField field);
const char* trace_session_field_name(TraceReadOptions::SessionField field);

struct TraceProblem {
  std::uint64_t line = 0;  ///< 1-based; 0 for problems of the whole trace
  std::string field;       ///< "" when the line is not a JSON object at all
  std::string message;
  std::string format;      ///< "bailian" / "openai" for those formats' problems ("" for Mooncake's, whose text is unchanged)
  std::string text() const;
};

struct TraceReadResult {
  std::unique_ptr<BlockTrace> trace;  ///< the requests (null when read to a sink, or when reading failed)
  std::vector<TraceProblem> problems; ///< first 100 problems
  std::uint64_t lines = 0;            ///< lines seen (blank ones included)
  std::uint64_t bad_lines = 0;        ///< lines skipped as bad (Skip mode)
  std::uint64_t requests = 0;         ///< requests read (kept, or handed to the sink)
  std::uint64_t content_hash = 0;     ///< FNV-1a 64 of every byte fed
  /// The format read: the options', or the one told from the first line (Auto while none was).
  TraceReadOptions::Format format = TraceReadOptions::Format::Auto;
  OpenAiFieldUse openai_fields;       ///< an openai log's keys (zero for the other formats)
  bool read = false;                  ///< whether the trace was read (no fatal problem, some requests)
  bool ok() const { return read; }
  std::string error_text() const;     ///< every kept problem, one per line
};

class TraceReader {
 public:
  static constexpr std::size_t kMaxLineBytes = 16u << 20;
  static constexpr std::size_t kMaxProblemsKept = 100;

  /// Receives each accepted request as it is read: the entry (its
  /// first_block is 0) and its block ids, valid during the call. Returns
  /// false to stop reading (e.g. its own storage failed).
  using Sink = std::function<bool(const BlockTrace::Entry& entry, std::span<const std::uint32_t> blocks)>;

  /// A reader that keeps the requests (finish() returns them as a
  /// BlockTrace), or, with a sink, hands each to it and keeps none: memory is
  /// then O(longest line) whatever the trace's length.
  explicit TraceReader(TraceReadOptions options, Sink sink = {});

  /// Feeds the next chunk (split anywhere). Returns false once reading has
  /// stopped (a fatal problem, `limit` reached, or a request at or after
  /// end_s); further input is ignored except by the content hash.
  bool feed(std::string_view chunk);

  /// Ends the input and builds the trace.
  TraceReadResult finish();

  std::uint64_t lines() const { return line_number_; }
  std::uint64_t requests() const { return requests_; }
  /// Whether reading ended as asked (`limit` requests kept, or end_s
  /// passed): the rest of the input only goes into the content hash.
  bool done() const { return done_; }
  /// The format read: options' format, or once told (Auto) the detected one.
  TraceReadOptions::Format format() const { return format_; }
  /// Tokens per block of the format read (Mooncake's while still Auto).
  std::uint32_t block_size() const;
  /// The kind of BlockTrace the format read makes (Bailian's and openai's
  /// requests carry sessions).
  BlockTrace::Kind kind() const;

 private:
  void process_line(std::string_view line);
  void problem(std::string field, std::string message);
  /// Counts the current line as bad; stops reading under OnError::Stop.
  void count_bad_line();
  /// An openai line, parsed: true when it was stored.
  bool accept_openai(const nlohmann::ordered_json& doc);
  /// Keeps (or hands to the sink) a request whose block ids are
  /// block_ids_[e.first_block..]; stops at options' limit.
  void store(BlockTrace::Entry e);

  TraceReadOptions options_;
  TraceReadOptions::Format format_;
  std::unordered_map<std::uint64_t, std::uint64_t> roots_;  ///< Bailian chat_id -> its session (lookups only)
  /// openai: a block's chain hash -> its id; a session key -> (session, requests so far) (lookups only).
  std::unordered_map<std::uint64_t, std::uint32_t> openai_blocks_;
  std::unordered_map<std::string, std::pair<std::uint64_t, std::uint32_t>> openai_sessions_;
  std::uint64_t openai_next_session_ = 0;
  std::int64_t openai_first_ns_ = 0;   ///< the first request's timestamp
  std::int64_t openai_last_ns_ = 0;    ///< the previous request's
  std::vector<std::uint64_t> openai_tokens_;
  OpenAiFieldUse openai_fields_;
  std::string pending_;
  Sink sink_;
  std::vector<BlockTrace::Entry> entries_;
  std::uint64_t requests_ = 0;
  std::vector<std::uint32_t> block_ids_;
  std::vector<TraceProblem> problems_;
  std::uint64_t line_number_ = 0;
  std::uint64_t bad_lines_ = 0;
  std::uint64_t total_tokens_ = 0;
  std::uint64_t hash_ = 0xCBF29CE484222325ULL;
  double last_timestamp_ = 0;  ///< in the format's unit (Mooncake ms, Bailian s)
  bool stopped_ = false;
  bool done_ = false;      ///< stopped by limit or end_s (not by a problem)
  std::uint64_t earlier_ = 0;  ///< good requests before start_s (read, not kept)
  bool fatal_ = false;
  bool line_failed_ = false;
  bool mapping_checked_ = false;  ///< the openai key choices were checked against a line of another format
  std::string current_format_;  ///< names the format in the current line's problems ("" = Mooncake)
};

/// Reads a whole trace held in memory.
TraceReadResult read_trace(std::string_view text, const TraceReadOptions& options);

}  // namespace prefixroute
