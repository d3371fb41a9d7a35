#include "prefixroute/io/trace_summary_json.h"

#include <nlohmann/json.hpp>

namespace prefixroute {
namespace trace_summary_json_detail {
namespace {

using Json = nlohmann::ordered_json;

Json lengths_json(const LengthFigures& f) {
  Json out = Json::object();
  out["total"] = f.total;
  out["mean"] = f.mean;
  out["p50"] = f.p50;
  out["p99"] = f.p99;
  out["max"] = f.max;
  return out;
}

Json part_json(const char* chosen, std::initializer_list<std::pair<const char*, std::uint64_t>> read,
               std::initializer_list<std::pair<const char*, std::uint64_t>> present) {
  Json out = Json::object();
  out["chosen"] = chosen;
  Json& r = out["read"] = Json::object();
  for (const auto& [key, n] : read) r[key] = n;
  Json& p = out["present"] = Json::object();
  for (const auto& [key, n] : present) p[key] = n;
  return out;
}

}  // namespace
}  // namespace trace_summary_json_detail

std::string trace_summary_to_json(const TraceSummary& s) {
  using trace_summary_json_detail::Json;
  using trace_summary_json_detail::lengths_json;
  using trace_summary_json_detail::part_json;
  Json doc = Json::object();
  doc["schema"] = "prefixroute.trace/1";
  doc["name"] = s.name;
  doc["format"] = s.format;
  doc["lines"] = s.lines;
  doc["skipped_lines"] = s.skipped_lines;
  doc["content_hash"] = s.content_hash;
  const TraceProfile& p = s.profile;
  doc["requests"] = p.requests;
  doc["duration_s"] = p.duration_s;
  doc["request_rate_per_s"] = p.request_rate_per_s;
  doc["prompt_tokens"] = lengths_json(p.prompt_tokens);
  doc["output_tokens"] = lengths_json(p.output_tokens);
  if (p.has_sessions) {
    Json sessions = Json::object();
    sessions["count"] = p.sessions;
    sessions["multi_request"] = p.multi_request_sessions;
    doc["sessions"] = sessions;
  } else {
    doc["sessions"] = nullptr;
  }
  doc["shared_prefix_tokens"] = p.shared_prefix_tokens;
  doc["shared_prefix_share"] = p.shared_prefix_share;
  doc["ideal_hit_rate"] = s.ideal.hit_rate;
  if (s.format == "openai") {
    const OpenAiFieldUse& u = s.openai_fields;
    Json fields = Json::object();
    fields["time"] = part_json(trace_time_field_name(s.read_with.time_field),
                               {{"timestamp", u.time_from_timestamp}, {"created", u.time_from_created}},
                               {{"timestamp", u.has_timestamp}, {"created", u.has_created}});
    fields["prompt"] = part_json(trace_prompt_field_name(s.read_with.prompt_field),
                                 {{"messages", u.prompt_from_messages}, {"prompt", u.prompt_from_prompt}},
                                 {{"messages", u.has_messages}, {"prompt", u.has_prompt}});
    fields["session"] = part_json(
        trace_session_field_name(s.read_with.session_field),
        {{"session_id", u.session_from_session_id}, {"user", u.session_from_user}, {"none", u.own_session}},
        {{"session_id", u.has_session_id}, {"user", u.has_user}});
    doc["fields"] = fields;
  } else {
    doc["fields"] = nullptr;
  }
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace prefixroute
