#include "trace_summary_text.h"

#include <cstdarg>
#include <cstdio>

namespace prefixroute {
namespace {

std::string line(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

std::string lengths(const char* what, const LengthFigures& f) {
  return line("%-15s mean %.1f, p50 %llu, p99 %llu, max %llu tokens\n", what, f.mean,
              static_cast<unsigned long long>(f.p50), static_cast<unsigned long long>(f.p99),
              static_cast<unsigned long long>(f.max));
}

}  // namespace

std::string format_trace_summary(const TraceSummary& s) {
  const TraceProfile& p = s.profile;
  std::string out = line("trace %s: %s format, %llu lines (%llu skipped), content hash %s\n", s.name.c_str(),
                         s.format.c_str(), static_cast<unsigned long long>(s.lines),
                         static_cast<unsigned long long>(s.skipped_lines), s.content_hash.c_str());
  out += line("requests        %llu over %.3f s (%.3f requests/s)\n", static_cast<unsigned long long>(p.requests),
              p.duration_s, p.request_rate_per_s);
  out += lengths("prompt", p.prompt_tokens);
  out += lengths("output", p.output_tokens);
  if (p.has_sessions)
    out += line("sessions        %llu (%llu of more than one request)\n", static_cast<unsigned long long>(p.sessions),
                static_cast<unsigned long long>(p.multi_request_sessions));
  else
    out += "sessions        none (every request is its own)\n";
  out += line("shared prefixes %.2f %% of prompt tokens (%llu)\n", p.shared_prefix_share * 100,
              static_cast<unsigned long long>(p.shared_prefix_tokens));
  out += line("ideal hit rate  %.2f %%\n", s.ideal.hit_rate * 100);
  if (s.format == "openai") {
    const OpenAiFieldUse& u = s.openai_fields;
    out += line("fields          time from timestamp %llu / created %llu (trace.time_field = %s); prompt from messages "
                "%llu / prompt %llu (trace.prompt_field = %s); session from session_id %llu / user %llu / none %llu "
                "(trace.session_field = %s)\n",
                static_cast<unsigned long long>(u.time_from_timestamp),
                static_cast<unsigned long long>(u.time_from_created), trace_time_field_name(s.read_with.time_field),
                static_cast<unsigned long long>(u.prompt_from_messages),
                static_cast<unsigned long long>(u.prompt_from_prompt),
                trace_prompt_field_name(s.read_with.prompt_field),
                static_cast<unsigned long long>(u.session_from_session_id),
                static_cast<unsigned long long>(u.session_from_user), static_cast<unsigned long long>(u.own_session),
                trace_session_field_name(s.read_with.session_field));
  }
  return out;
}

}  // namespace prefixroute
