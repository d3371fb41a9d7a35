#include "prefixroute/run/replay.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <optional>
#include <stdexcept>
#include <string>

#include "prefixroute/base/hashing.h"
#include "prefixroute/cache/block_ideal_bound.h"
#include "prefixroute/run/experiment.h"

namespace prefixroute {

TraceReadOptions trace_read_options(const TraceSettings& settings) {
  TraceReadOptions o;
  o.block_size = settings.block_size;
  o.time_scale = settings.time_scale;
  o.limit = settings.limit;
  o.start_s = settings.start_s;
  o.end_s = settings.end_s;
  o.on_error = settings.on_error == "skip" ? TraceReadOptions::OnError::Skip : TraceReadOptions::OnError::Stop;
  o.format = settings.format == "mooncake"  ? TraceReadOptions::Format::Mooncake
             : settings.format == "bailian" ? TraceReadOptions::Format::Bailian
             : settings.format == "openai"  ? TraceReadOptions::Format::OpenAI
                                            : TraceReadOptions::Format::Auto;
  using T = TraceReadOptions;
  o.time_field = settings.time_field == "timestamp" ? T::TimeField::Timestamp
                 : settings.time_field == "created" ? T::TimeField::Created
                                                    : T::TimeField::Auto;
  o.prompt_field = settings.prompt_field == "messages" ? T::PromptField::Messages
                   : settings.prompt_field == "prompt" ? T::PromptField::Prompt
                                                       : T::PromptField::Auto;
  o.session_field = settings.session_field == "session_id" ? T::SessionField::SessionId
                    : settings.session_field == "user"     ? T::SessionField::User
                    : settings.session_field == "none"     ? T::SessionField::None
                                                           : T::SessionField::Auto;
  return o;
}

std::vector<FieldError> differing_read_settings(const TraceSettings& want_settings, const TraceReadOptions& have) {
  const TraceReadOptions want = trace_read_options(want_settings);
  std::vector<FieldError> errors;
  const auto differs = [&](const char* field, const std::string& read_with) {
    errors.push_back({field, "the trace was read with " + read_with +
                                 "; read it again with this value to replay it so"});
  };
  if (want.block_size != have.block_size) differs("trace.block_size", std::to_string(have.block_size));
  if (want.time_scale != have.time_scale) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", have.time_scale);
    differs("trace.time_scale", text);
  }
  if (want.limit != have.limit) differs("trace.limit", std::to_string(have.limit));
  const auto seconds = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    return std::string(text);
  };
  if (want.start_s != have.start_s) differs("trace.start_s", seconds(have.start_s));
  if (want.end_s != have.end_s) differs("trace.end_s", seconds(have.end_s));
  if (want.on_error != have.on_error)
    differs("trace.on_error", have.on_error == TraceReadOptions::OnError::Skip ? "skip" : "stop");
  if (want.format != have.format) differs("trace.format", trace_format_name(have.format));
  if (want.time_field != have.time_field) differs("trace.time_field", trace_time_field_name(have.time_field));
  if (want.prompt_field != have.prompt_field) differs("trace.prompt_field", trace_prompt_field_name(have.prompt_field));
  if (want.session_field != have.session_field)
    differs("trace.session_field", trace_session_field_name(have.session_field));
  return errors;
}

std::string trace_file_name(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  return std::string((slash == std::string_view::npos ? path : path.substr(slash + 1)).substr(0, kMaxTextFieldLength));
}

std::vector<FieldError> record_replay(Scenario& scenario, std::string_view file_name, const TraceReadResult& read,
                                      double prompt_tokens) {
  ReplaySize size;
  size.prompt_tokens = prompt_tokens;
  return record_replay(scenario, file_name, read, size);
}

std::vector<FieldError> record_replay(Scenario& scenario, std::string_view file_name, const TraceReadResult& read,
                                      const ReplaySize& size) {
  const std::string name = trace_file_name(file_name);
  const std::string hash = hashing::to_hex16(read.content_hash);
  if (!scenario.trace.content_hash.empty() && scenario.trace.content_hash != hash)
    return {{"trace.content_hash", "the scenario expects " + scenario.trace.content_hash + " but " + name +
                                       " hashes to " + hash + " (a different file or version)"}};
  if (name.empty()) return {{"trace.name", "the trace has no file name; give the file's name"}};
  if (!read.ok()) return {{"(trace)", "the trace could not be read"}};
  Scenario recorded = scenario;
  recorded.trace.name = name;
  recorded.trace.lines = read.lines;
  recorded.trace.skipped_lines = read.bad_lines;
  recorded.trace.content_hash = hash;
  std::vector<FieldError> errors = check_replay(recorded, size);
  if (errors.empty()) scenario = std::move(recorded);
  return errors;
}

std::unique_ptr<RequestSource> SpilledTrace::open() const {
  std::unique_ptr<RequestSource> source =
      spill_ && read_.ok() ? spill_->open(BlockContent::instance(), has_sessions_) : nullptr;
  if (!source) throw std::runtime_error("the trace was not read into a temporary file: nothing to replay");
  return source;
}

namespace {

// Destroyed last in spill_trace, after the reader, the read buffer and the
// ideal bound's lists: glibc keeps the pages they freed in the main thread's
// heap, where runs on other threads (each with an arena of its own) never
// reuse them. Handing them back makes the process's peak the larger of
// reading and running, not their sum.
struct ReturnFreedPages {
  ReturnFreedPages() = default;
  ReturnFreedPages(const ReturnFreedPages&) = delete;
  ReturnFreedPages& operator=(const ReturnFreedPages&) = delete;
  ~ReturnFreedPages() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
  }
};

}  // namespace

SpilledTrace spill_trace(std::FILE* file, const TraceReadOptions& options, std::string& error) {
  const ReturnFreedPages trim_when_done;
  SpilledTrace out;
  out.spill_ = RequestSpill::create(error);
  if (!out.spill_) return out;
  // The format (and so the block size) is known once the first request is
  // read (Format::Auto): the fingerprint starts then.
  std::optional<BlockTraceFingerprint> fingerprint;
  // The ideal bound from the block ids as the requests go by, so its lists
  // are freed before any run starts (replayed_trace.h, ReplayFigures::ideal).
  std::optional<BlockIdealBound> ideal(std::in_place);
  ReplayFigures& figures = out.figures_;
  SourcedRequest request;
  std::uint64_t index = 0;
  const TraceReader* reading = nullptr;
  TraceReader reader(options, [&](const BlockTrace::Entry& e, std::span<const std::uint32_t> blocks) {
    const bool sessions = reading->kind() == BlockTrace::Kind::Sessions;
    if (!fingerprint) fingerprint.emplace(reading->block_size());
    fingerprint->add(e.arrival, e.input_tokens, e.output_tokens, blocks);
    if (sessions) fingerprint->add_session(e.session, e.turn);
    request.arrival = e.arrival;
    request.output_tokens = e.output_tokens;
    request.session = sessions ? e.session : index;  // Mooncake: every request a session of its own
    request.turn = sessions ? e.turn : 0;
    ++index;
    BlockTrace::prompt_of(blocks, reading->block_size(), e.input_tokens, request.prompt,
                          reading->kind());
    if (ideal && !ideal->add(request.prompt.view())) ideal.reset();
    figures.requests += 1;
    figures.prompt_tokens += e.input_tokens;
    figures.size.max_prompt_tokens = std::max(figures.size.max_prompt_tokens, static_cast<double>(e.input_tokens));
    figures.size.pieces += static_cast<double>(request.prompt.pieces.size());
    figures.size.output_tokens += static_cast<double>(e.output_tokens);
    figures.size.max_output_tokens = std::max(figures.size.max_output_tokens, static_cast<double>(e.output_tokens));
    return out.spill_->append(request);
  });
  reading = &reader;
  std::vector<char> chunk(1 << 20);
  for (;;) {
    const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), file);
    if (n == 0) break;
    // After trace.limit requests (or past trace.end_s) the reader only
    // hashes: keep reading, so the content hash is the whole file's.
    reader.feed(std::string_view(chunk.data(), n));
  }
  const bool file_failed = std::ferror(file) != 0;
  const int file_errno = errno;
  out.read_ = reader.finish();
  out.has_sessions_ = reader.kind() == BlockTrace::Kind::Sessions;
  figures.size.sessions = out.has_sessions_;
  figures.fingerprint = fingerprint ? fingerprint->value() : BlockTraceFingerprint(options.block_size).value();
  figures.size.requests = static_cast<double>(figures.requests);
  figures.size.prompt_tokens = static_cast<double>(figures.prompt_tokens);
  if (ideal) figures.ideal = ideal->bound(figures.prompt_tokens);
  figures.size.ideal_from_block_ids = figures.ideal.has_value();
  if (file_failed) {
    error = std::string("cannot read the file: ") + std::strerror(file_errno);
    out.read_.read = false;
  } else if (!out.spill_->finish()) {
    error = "cannot write the temporary file that holds the trace's requests";
    out.read_.read = false;
  }
  if (!out.read_.ok()) out.spill_.reset();  // nothing to replay: free the disk now
  return out;
}

}  // namespace prefixroute
