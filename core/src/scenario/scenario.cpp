#include "prefixroute/scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "base/json_text.h"
#include "prefixroute/base/random.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/workload/gsp_workload.h"
#include "prefixroute/workload/session_workload.h"
#include "prefixroute/workload/synthetic.h"
#include "scenario/fields.h"

namespace prefixroute {
namespace {

using json_text::describe;
using json_text::format_number;
using json_text::Json;
using scenario_detail::document_order;
using scenario_detail::Field;
using scenario_detail::fields;
using scenario_detail::kMaxTextLength;
using scenario_detail::policies_spec;

// "" when `value` is acceptable for text field `spec`, else what is allowed.
// Well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF). JSON output must be valid UTF-8: nlohmann's dump() throws on
// anything else, and an override's text arrives unchecked.
bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t n;
    std::uint32_t cp, min;
    if (b < 0x80) { ++i; continue; }
    if (b >= 0xC2 && b <= 0xDF) { n = 1; cp = b & 0x1Fu; min = 0x80; }
    else if (b >= 0xE0 && b <= 0xEF) { n = 2; cp = b & 0x0Fu; min = 0x800; }
    else if (b >= 0xF0 && b <= 0xF4) { n = 3; cp = b & 0x07u; min = 0x10000; }
    else return false;
    if (i + n >= text.size()) return false;  // truncated sequence
    for (std::size_t k = 1; k <= n; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0u) != 0x80u) return false;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n + 1;
  }
  return true;
}

std::string check_text(const FieldSpec& spec, const std::string& value) {
  if (value.size() > kMaxTextLength)
    return "must be at most " + std::to_string(kMaxTextLength) + " characters; got " +
           std::to_string(value.size());
  for (const char c : value)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return "must not contain control characters";
  if (!valid_utf8(value)) return "must be valid UTF-8 text";
  if (!spec.choices.empty()) {
    std::string_view rest = spec.choices;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      if (rest.substr(0, comma) == value) return "";
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    return "must be one of " + std::string(spec.choices) + "; got \"" + value.substr(0, 40) + "\"";
  }
  if (spec.key == "trace.content_hash" && !value.empty()) {
    bool hex = value.size() == 16;
    for (const char c : value) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!hex) return "must be 16 lowercase hex digits (or empty)";
  }
  return "";
}

std::string allowed_text(const FieldSpec& spec) {
  const char* what = spec.kind == FieldKind::Integer ? "an integer" : "a number";
  std::string text = std::string("must be ") + what + " in [" + format_number(spec.min) + ", " +
                     format_number(spec.max) + "]";
  if (!spec.unit.empty()) text += " (" + std::string(spec.unit) + ")";
  return text;
}

// Reads a JSON value as a number of `spec`'s kind. Returns false with a
// message when it is the wrong type, not integral, or out of range.
bool read_number(const FieldSpec& spec, const Json& value, double& out, std::string& error) {
  if (!value.is_number()) {
    error = allowed_text(spec) + "; got " + describe(value);
    return false;
  }
  double v;
  if (value.is_number_unsigned()) {
    v = static_cast<double>(value.get<std::uint64_t>());
  } else if (value.is_number_integer()) {
    v = static_cast<double>(value.get<std::int64_t>());
  } else {
    v = value.get<double>();
  }
  if (!std::isfinite(v) || v < spec.min || v > spec.max ||
      (spec.kind == FieldKind::Integer && v != std::floor(v))) {
    error = allowed_text(spec) + "; got " + describe(value);
    return false;
  }
  out = v;
  return true;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  // As std::getline(stream, part, ',') splits: an empty last part is dropped.
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    start = end + 1;
    const auto b = part.find_first_not_of(" \t");
    const auto e = part.find_last_not_of(" \t");
    parts.push_back(b == std::string::npos ? "" : part.substr(b, e - b + 1));
  }
  return parts;
}

std::string policy_names_text() {
  std::string names;
  for (const PolicySpec* spec : policy_catalogue()) {
    if (!names.empty()) names += ", ";
    names += spec->name();
  }
  return names;
}

void read_policies(const Json& value, Scenario& scenario, std::vector<FieldError>& errors) {
  const std::string allowed = "a list of policy names (" + policy_names_text() + ") or \"all\"";
  std::vector<std::string> names;
  if (value.is_string()) {
    names = split_commas(value.get<std::string>());
  } else if (value.is_array()) {
    for (const Json& item : value) {
      if (!item.is_string()) {
        errors.push_back({"policies", "must be " + allowed + "; got an element " + describe(item)});
        return;
      }
      names.push_back(item.get<std::string>());
    }
  } else {
    errors.push_back({"policies", "must be " + allowed + "; got " + describe(value)});
    return;
  }
  if (names.size() == 1 && names[0] == "all") {
    names.clear();
    for (const PolicySpec* spec : policy_catalogue()) names.emplace_back(spec->name());
  }
  scenario.policies = std::move(names);
}

// Group name -> keys allowed in it, derived from the field table.
std::vector<std::string> keys_of_group(std::string_view group) {
  std::vector<std::string> keys;
  for (const FieldSpec& f : scenario_fields()) {
    const auto dot = f.key.find('.');
    if (dot != std::string_view::npos && f.key.substr(0, dot) == group)
      keys.emplace_back(f.key.substr(dot + 1));
  }
  return keys;
}

// A scenario document's "description": lines of text for people (what a
// preset shows). It is read, checked and dropped: no run depends on it and the
// canonical document does not echo it.
constexpr std::string_view kDescriptionKey = "description";
constexpr std::size_t kMaxDescriptionLines = 8;

std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys{"schema_version"};
  for (const FieldSpec& f : scenario_fields()) {
    std::string top(f.key.substr(0, f.key.find('.')));
    bool seen = false;
    for (const auto& k : keys) seen = seen || k == top;
    if (!seen) keys.push_back(top);
  }
  keys.emplace_back(kDescriptionKey);
  return keys;
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

void check_unknown_keys(const Json& doc, std::vector<FieldError>& errors) {
  const auto top = top_level_keys();
  for (const auto& [key, value] : doc.items()) {
    bool known = false;
    for (const auto& k : top) known = known || k == key;
    if (!known) {
      // An empty key ({"": ...}) still needs a visible field name.
      errors.push_back({key.empty() ? "\"\"" : key, "unknown key; allowed top-level keys: " + join(top)});
      continue;
    }
    const auto group_keys = keys_of_group(key);
    if (group_keys.empty()) continue;  // a leaf (seed, policies, schema_version)
    if (!value.is_object()) {
      errors.push_back({key, "must be an object with keys " + join(group_keys) + "; got " +
                                 describe(value)});
      continue;
    }
    for (const auto& [sub, ignored] : value.items()) {
      bool ok = false;
      for (const auto& k : group_keys) ok = ok || k == sub;
      if (!ok)
        errors.push_back({key + "." + sub, "unknown key; allowed keys in " + key + ": " +
                                               join(group_keys)});
    }
  }
}

void check_description(const Json& description, std::vector<FieldError>& errors) {
  const std::string allowed = "must be a list of at most " + std::to_string(kMaxDescriptionLines) +
                              " lines of text (strings)";
  if (!description.is_array() || description.size() > kMaxDescriptionLines) {
    errors.push_back({std::string(kDescriptionKey), allowed + "; got " + describe(description)});
    return;
  }
  const FieldSpec line_spec{};  // a plain text: no choices
  for (std::size_t i = 0; i < description.size(); ++i) {
    const std::string key = std::string(kDescriptionKey) + "[" + std::to_string(i) + "]";
    if (!description[i].is_string()) {
      errors.push_back({key, "must be a string; got " + describe(description[i])});
      continue;
    }
    const std::string problem = check_text(line_spec, description[i].get<std::string>());
    if (!problem.empty()) errors.push_back({key, problem});
  }
}

// Finds a dotted key in the document, or nullptr.
const Json* find_dotted(const Json& doc, std::string_view key) {
  const Json* node = &doc;
  while (true) {
    const auto dot = key.find('.');
    const std::string part(key.substr(0, dot));
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
    if (dot == std::string_view::npos) return node;
    key.remove_prefix(dot + 1);
  }
}

void apply_override(Json& doc, const Override& o, std::vector<FieldError>& errors) {
  const std::string& key = o.first;
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos) {
    errors.push_back({key.empty() ? "(override)" : key, "malformed key; use dotted keys such as workload.requests"});
    return;
  }
  if (key.size() > kMaxTextLength) {  // each dot nests an object: bound the nesting and the memory
    errors.push_back({key.substr(0, 40) + "...", "key longer than " + std::to_string(kMaxTextLength) +
                                                    " characters; use dotted keys such as workload.requests"});
    return;
  }
  // Same size and depth limits as a document: an unchecked deeply nested value
  // overflowed the stack when an error message dumped it.
  Json value;
  std::string not_json;
  if (!json_text::parse(o.second, value, not_json)) value = o.second;  // plain text: a string
  Json* node = &doc;
  std::string_view rest = key;
  while (true) {
    const auto dot = rest.find('.');
    const std::string part(rest.substr(0, dot));
    if (dot == std::string_view::npos) {
      (*node)[part] = std::move(value);
      return;
    }
    Json& next = (*node)[part];
    if (next.is_null()) next = Json::object();
    if (!next.is_object()) {
      errors.push_back({key, "cannot set a key inside " + part + ", which is not an object"});
      return;
    }
    node = &next;
    rest.remove_prefix(dot + 1);
  }
}

// The engine's rules, for every workload kind: the step model's worst-case
// busy time (every request at the longest prompt and output; checked once the
// kind's own prompt and prefill bounds hold, `bounded`), hardware.tp, and the
// batched engine's cross-field rules.
void check_engine_limits(const Scenario& s, double requests, double total, double prompt_max, double output_max,
                         bool bounded, std::vector<FieldError>& errors) {
  const ClusterConfig& c = s.cluster;
  const bool batched = c.engine == EngineKind::Batched;
  if (bounded && (batched || !(c.step == StepCosts{}))) {
    const double outputs = batched ? output_max : 0.0;
    const double busy = worst_busy_seconds(c, requests, total, prompt_max, requests * outputs, outputs);
    if (!(busy <= kMaxPrefillSeconds))
      errors.push_back({"cluster.prefill_tokens_per_s",
                        "the longest possible busy time under the step model (every request at the longest "
                        "prompt and output, every step at the slowest the cluster allows) must be at most " +
                            format_number(kMaxPrefillSeconds) + " s; got " + format_number(busy) +
                            " s: raise the prefill rate, lower the step costs or run fewer requests"});
  }
  const std::uint32_t tp = s.hardware.tp;
  if (tp != 1 && tp != 2 && tp != 4 && tp != 8)
    errors.push_back({"hardware.tp", "must be 1, 2, 4 or 8 (GPUs per replica); got " + std::to_string(tp)});
  if (batched && c.decode_ms_per_token > 0)
    errors.push_back({"cluster.decode_ms_per_token",
                      "applies to the fifo engine only (0 under cluster.engine = batched, whose decode steps the "
                      "step model times: cluster.weight_read_ms, cluster.kv_read_ns_per_token, ...); got " +
                          format_number(c.decode_ms_per_token)});
  if (batched && c.max_batched_tokens < c.max_running)
    errors.push_back({"cluster.max_batched_tokens",
                      "must be at least cluster.max_running (" + std::to_string(c.max_running) +
                          ") under the batched engine, as vLLM requires; got " +
                          std::to_string(c.max_batched_tokens)});
}

// Tenants' (or sessions' system) prompts are stored once each: their total
// is bounded whatever the kind that draws them.
void check_prefix_storage(const WorkloadConfig& w, std::vector<FieldError>& errors) {
  const double storage = static_cast<double>(w.tenants) * static_cast<double>(w.prefix_tokens_max);
  if (storage > kMaxPrefixStorageTokens)
    errors.push_back({"workload.tenants",
                      "tenants x prefix_tokens_max must be at most " +
                          format_number(kMaxPrefixStorageTokens) + " tokens; got " + format_number(storage)});
}

// The tenants kind: requests x (prefix + turn) tokens, requests / rate seconds.
void check_tenant_limits(const Scenario& s, std::vector<FieldError>& errors) {
  const auto& w = s.workload;
  const double total = static_cast<double>(w.requests) *
                       (static_cast<double>(w.prefix_tokens_max) + static_cast<double>(w.turn_tokens_max));
  if (total > kMaxTotalPromptTokens)
    errors.push_back({"workload.requests",
                      "requests x (prefix_tokens_max + turn_tokens_max) must be at most " +
                          format_number(kMaxTotalPromptTokens) + " tokens; got " + format_number(total)});
  // Simulated time is int64 nanoseconds (292 years). Bounding the expected
  // arrival span and the total prefill work keeps every arrival, queue end
  // and TTFT far inside that range (the realised span exceeds the expected by
  // a few standard deviations of a sum of exponentials at most).
  const double span_s = static_cast<double>(w.requests) / w.arrival_rate_per_s;
  if (span_s > kMaxArrivalSpanSeconds)
    errors.push_back({"workload.arrival_rate_per_s",
                      "requests / arrival_rate_per_s (the expected arrival span) must be at most " +
                          format_number(kMaxArrivalSpanSeconds) + " s; got " + format_number(span_s) + " s"});
  const double prefill_s = total / s.cluster.prefill.tokens_per_s;
  if (total <= kMaxTotalPromptTokens && prefill_s > kMaxPrefillSeconds)
    errors.push_back({"cluster.prefill_tokens_per_s",
                      "requests x (prefix_tokens_max + turn_tokens_max) / prefill_tokens_per_s (the "
                      "longest possible prefill work) must be at most " +
                          format_number(kMaxPrefillSeconds) + " s; got " + format_number(prefill_s) + " s"});
  check_engine_limits(s, static_cast<double>(w.requests), total,
                      static_cast<double>(w.prefix_tokens_max) + static_cast<double>(w.turn_tokens_max),
                      static_cast<double>(w.output_tokens_max),
                      total <= kMaxTotalPromptTokens && prefill_s <= kMaxPrefillSeconds, errors);
  check_prefix_storage(w, errors);
}

// The session kinds. A session re-sends its history, so its prompts grow
// (quadratically in total) until compaction caps them: the total is bounded
// by requests x the longest possible prompt (SessionWorkload::max_prompt_tokens).
void check_session_limits(const Scenario& s, std::vector<FieldError>& errors) {
  const auto& w = s.workload;
  const SessionParams& sp = w.sessions;
  const double longest = SessionWorkload::max_prompt_tokens(w);
  const double total = static_cast<double>(w.requests) * longest;
  if (total > kMaxTotalPromptTokens)
    errors.push_back({"workload.requests",
                      "requests x the longest possible prompt (" + format_number(longest) +
                          " tokens: the least of max(context_tokens_max, prefix_tokens_max + summary_tokens + the "
                          "longest message) and the longest session's uncompacted growth) must be at most " +
                          format_number(kMaxTotalPromptTokens) + " tokens; got " + format_number(total)});
  const double span_s = SessionWorkload::max_expected_span_s(w);
  if (span_s > kMaxArrivalSpanSeconds) {
    // Name the field of the largest term: session starts, nominal decode or waits.
    const double starts = static_cast<double>(w.requests) / sp.session_rate_per_s;
    const double decode = sp.reply_tokens_max * sp.nominal_tpot_ms / 1000.0;
    const double wait = std::max(sp.think_s_mean, w.kind == "agentic" ? sp.tool_s_mean : 0.0);
    const char* field = "workload.session_rate_per_s";
    if (span_s - starts > starts)
      field = decode > wait ? "workload.nominal_tpot_ms"
                            : (sp.think_s_mean >= wait ? "workload.think_s_mean" : "workload.tool_s_mean");
    errors.push_back({field,
                      "requests / session_rate_per_s + the longest possible session's expected duration (the "
                      "expected arrival span) must be at most " +
                          format_number(kMaxArrivalSpanSeconds) + " s; got " + format_number(span_s) + " s"});
  }
  const double prefill_s = total / s.cluster.prefill.tokens_per_s;
  if (total <= kMaxTotalPromptTokens && prefill_s > kMaxPrefillSeconds)
    errors.push_back({"cluster.prefill_tokens_per_s",
                      "requests x the longest possible prompt / prefill_tokens_per_s (the longest possible prefill "
                      "work) must be at most " +
                          format_number(kMaxPrefillSeconds) + " s; got " + format_number(prefill_s) + " s"});
  check_engine_limits(s, static_cast<double>(w.requests), total, longest, static_cast<double>(sp.reply_tokens_max),
                      total <= kMaxTotalPromptTokens && prefill_s <= kMaxPrefillSeconds, errors);
  check_prefix_storage(w, errors);
}

// The gsp kind: groups x prompts per group requests of a fixed length.
void check_gsp_limits(const Scenario& s, std::vector<FieldError>& errors) {
  const auto& w = s.workload;
  const double requests = GspWorkload::requests(w);
  if (requests > kMaxGspRequests)
    errors.push_back({"workload.gsp_prompts_per_group",
                      "gsp_num_groups x gsp_prompts_per_group (the requests) must be at most " +
                          format_number(kMaxGspRequests) + "; got " + format_number(requests)});
  const double total =
      requests * (static_cast<double>(w.gsp.system_prompt_len) + static_cast<double>(w.gsp.question_len));
  if (total > kMaxTotalPromptTokens)
    errors.push_back({"workload.gsp_system_prompt_len",
                      "gsp_num_groups x gsp_prompts_per_group x (gsp_system_prompt_len + gsp_question_len) must be "
                      "at most " +
                          format_number(kMaxTotalPromptTokens) + " tokens; got " + format_number(total)});
  const double span_s = requests / w.arrival_rate_per_s;
  if (span_s > kMaxArrivalSpanSeconds)
    errors.push_back({"workload.arrival_rate_per_s",
                      "gsp_num_groups x gsp_prompts_per_group / arrival_rate_per_s (the expected arrival span) must "
                      "be at most " +
                          format_number(kMaxArrivalSpanSeconds) + " s; got " + format_number(span_s) + " s"});
  const double prefill_s = total / s.cluster.prefill.tokens_per_s;
  if (total <= kMaxTotalPromptTokens && prefill_s > kMaxPrefillSeconds)
    errors.push_back({"cluster.prefill_tokens_per_s",
                      "the gsp prompt tokens (" + format_number(total) +
                          ") / prefill_tokens_per_s (the longest possible prefill work) must be at most " +
                          format_number(kMaxPrefillSeconds) + " s; got " + format_number(prefill_s) + " s"});
  check_engine_limits(s, requests, total,
                      static_cast<double>(w.gsp.system_prompt_len) + static_cast<double>(w.gsp.question_len),
                      static_cast<double>(w.gsp.output_len),
                      requests <= kMaxGspRequests && total <= kMaxTotalPromptTokens && prefill_s <= kMaxPrefillSeconds,
                      errors);
}

void check_cross_fields(const Scenario& s, std::vector<FieldError>& errors) {
  const auto& w = s.workload;
  if (w.prefix_tokens_min > w.prefix_tokens_max)
    errors.push_back({"workload.prefix_tokens_min",
                      "must be <= workload.prefix_tokens_max (" + std::to_string(w.prefix_tokens_max) +
                          "); got " + std::to_string(w.prefix_tokens_min)});
  if (w.output_tokens_min > w.output_tokens_max)
    errors.push_back({"workload.output_tokens_min",
                      "must be <= workload.output_tokens_max (" + std::to_string(w.output_tokens_max) +
                          "); got " + std::to_string(w.output_tokens_min)});
  if (w.turn_tokens_min > w.turn_tokens_max)
    errors.push_back({"workload.turn_tokens_min",
                      "must be <= workload.turn_tokens_max (" + std::to_string(w.turn_tokens_max) +
                          "); got " + std::to_string(w.turn_tokens_min)});
  const SessionParams& sp = w.sessions;
  if (sp.reply_tokens_min > sp.reply_tokens_max)
    errors.push_back({"workload.reply_tokens_min",
                      "must be <= workload.reply_tokens_max (" + std::to_string(sp.reply_tokens_max) + "); got " +
                          std::to_string(sp.reply_tokens_min)});
  if (sp.tool_tokens_min > sp.tool_tokens_max)
    errors.push_back({"workload.tool_tokens_min",
                      "must be <= workload.tool_tokens_max (" + std::to_string(sp.tool_tokens_max) + "); got " +
                          std::to_string(sp.tool_tokens_min)});
  if (s.trace.end_s > 0 && s.trace.end_s <= s.trace.start_s)
    errors.push_back({"trace.end_s", "must be 0 (to the end) or > trace.start_s (" + format_number(s.trace.start_s) +
                                         "); got " + format_number(s.trace.end_s)});
  if (is_session_kind(w.kind)) check_session_limits(s, errors);
  else if (w.kind == "gsp") check_gsp_limits(s, errors);
  else check_tenant_limits(s, errors);
  // The last replicate's seed must stay a field value (exact in JSON and JS).
  if (s.replicates > 1 && s.seed > 9007199254740991ULL - (s.replicates - 1))
    errors.push_back({"replicates", "seed + replicates - 1 (the last replicate's seed) must be at most "
                                    "9007199254740991; got seed " + std::to_string(s.seed) + " and replicates " +
                                        std::to_string(s.replicates)});
  if (s.replays_trace() && s.replicates > 1)
    errors.push_back({"replicates", scenario_detail::replicates_with_trace_message(s.replicates)});
  if (s.policies.empty())
    errors.push_back({"policies", "must name at least one policy (" + policy_names_text() + ")"});
  for (std::size_t i = 0; i < s.policies.size(); ++i) {
    if (!is_known_policy(s.policies[i])) {
      errors.push_back({"policies", "unknown policy \"" + s.policies[i].substr(0, 40) +
                                        "\"; allowed: " + policy_names_text() + " or all"});
      continue;
    }
    for (std::size_t j = 0; j < i; ++j)
      if (s.policies[j] == s.policies[i])
        errors.push_back({"policies", "lists \"" + s.policies[i] + "\" twice"});
  }
}

}  // namespace

std::string scenario_detail::replicates_with_trace_message(std::uint32_t replicates) {
  return "must be 1 when a trace is replayed: a trace's arrivals and prompts are fixed by its file, so no seed "
         "changes them and every replicate would repeat the first; got " + std::to_string(replicates);
}

Scenario Scenario::reference() {
  // The four baseline policies (the original write-up's); "all" adds the
  // production routers' and prefixroute's own.
  Scenario s;
  s.policies = {"round_robin", "least_loaded", "affinity", "affinity_balanced"};
  return s;
}

std::string ScenarioParse::error_text() const {
  std::string text;
  for (const auto& e : errors) text += e.field + ": " + e.message + "\n";
  return text;
}

PolicyContext policy_context(const Scenario& scenario) {
  return PolicyContext{scenario.seed, scenario.cluster, scenario.router};
}

bool set_number(Scenario& scenario, std::string_view key, double value) {
  for (const Field& f : fields()) {
    if (f.spec.key != key || f.spec.kind == FieldKind::Text) continue;
    f.set(scenario, value);
    if (f.derived >= 0) scenario.given |= 1u << f.derived;
    if (key.substr(0, 9) == "hardware." || key == "cluster.kv_block_tokens") apply_hardware(scenario);
    return true;
  }
  return false;
}

bool Scenario::is_given(std::string_view key) const {
  for (std::size_t i = 0; i < kDerivableCount; ++i)
    if (kDerivableFields[i] == key) return (given >> i & 1u) != 0;
  return false;
}

std::vector<FieldError> apply_hardware(Scenario& scenario) {
  const Scenario defaults = Scenario::reference();
  HardwareDerivation derived;
  std::vector<FieldError> errors;
  if (scenario.hardware.enabled()) {
    derived = derive_hardware(scenario.hardware, scenario.cluster.kv_block_tokens);
    if (!derived.ok()) errors.push_back({derived.error_field, derived.error});
  }
  for (const Field& f : fields()) {
    if (f.derived < 0 || (scenario.given >> f.derived & 1u) != 0) continue;
    double value = f.get(defaults);
    if (derived.ok() && scenario.hardware.enabled())
      for (const DerivedField& d : derived.fields)
        if (d.key == f.spec.key) value = d.value;
    f.set(scenario, value);
  }
  return errors;
}

std::optional<double> get_number(const Scenario& scenario, std::string_view key) {
  for (const Field& f : fields())
    if (f.spec.key == key && f.spec.kind != FieldKind::Text) return f.get(scenario);
  return std::nullopt;
}

const std::vector<FieldSpec>& scenario_fields() {
  // Rebuilt with the field table (a policy registered since the last call).
  static std::vector<FieldSpec> specs;
  static const std::vector<Field>* built_from = nullptr;
  static std::size_t built_size = 0;
  static std::mutex building;
  const std::lock_guard<std::mutex> lock(building);
  const std::vector<Field>& table = fields();
  if (built_from != &table || built_size != table.size()) {
    specs.clear();
    for (const Field& f : table) specs.push_back(f.spec);
    specs.push_back(policies_spec());
    built_from = &table;
    built_size = table.size();
  }
  return specs;
}

std::vector<FieldError> validate(const Scenario& scenario) {
  std::vector<FieldError> errors;
  for (const Field& f : fields()) {
    if (f.spec.kind == FieldKind::Text) {
      const std::string problem = check_text(f.spec, f.get_text(scenario));
      if (!problem.empty()) errors.push_back({f.spec.key, problem});
      continue;
    }
    const double v = f.get(scenario);
    if (!std::isfinite(v) || v < f.spec.min || v > f.spec.max ||
        (f.spec.kind == FieldKind::Integer && v != std::floor(v)))
      errors.push_back({f.spec.key, allowed_text(f.spec) + "; got " + format_number(v)});
  }
  if (scenario.hardware.enabled()) {
    const HardwareDerivation derived = derive_hardware(scenario.hardware, scenario.cluster.kv_block_tokens);
    if (!derived.ok()) errors.push_back({derived.error_field, derived.error});
  }
  check_cross_fields(scenario, errors);
  return errors;
}

ScenarioParse parse_scenario(std::string_view json_text, const std::vector<Override>& overrides) {
  ScenarioParse result;
  result.scenario = Scenario::reference();
  auto& errors = result.errors;

  Json doc = Json::object();
  if (json_text.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    std::string error;
    if (!json_text::parse(json_text, doc, error)) {
      errors.push_back({"(document)", error});
      return result;
    }
    if (!doc.is_object()) {
      errors.push_back({"(document)", "must be a JSON object; got " + describe(doc)});
      return result;
    }
  }
  for (const Override& o : overrides) apply_override(doc, o, errors);
  if (!errors.empty()) return result;

  if (const Json* version = find_dotted(doc, "schema_version")) {
    if (!version->is_number_integer() || version->get<std::int64_t>() != kScenarioVersion)
      errors.push_back({"schema_version", "must be " + std::to_string(kScenarioVersion) +
                                              " (the only version so far); got " + describe(*version)});
  }
  if (const Json* description = find_dotted(doc, kDescriptionKey)) check_description(*description, errors);
  check_unknown_keys(doc, errors);
  for (const Field& f : fields()) {
    const Json* value = find_dotted(doc, f.spec.key);
    if (value == nullptr) continue;
    if (f.spec.kind == FieldKind::Text) {
      if (!value->is_string()) {
        errors.push_back({f.spec.key, "must be a string; got " + describe(*value)});
        continue;
      }
      const std::string text = value->get<std::string>();
      const std::string problem = check_text(f.spec, text);
      if (problem.empty()) f.set_text(result.scenario, text);
      else errors.push_back({f.spec.key, problem});
      continue;
    }
    if (f.derived >= 0 && value->is_null()) continue;  // not given: derived or default
    double v = 0;
    std::string error;
    if (read_number(f.spec, *value, v, error)) {
      f.set(result.scenario, v);
      if (f.derived >= 0) result.scenario.given |= 1u << f.derived;
    } else {
      errors.push_back({f.spec.key, error});
    }
  }
  if (const Json* policies = find_dotted(doc, "policies")) read_policies(*policies, result.scenario, errors);
  if (errors.empty()) {
    for (FieldError& e : apply_hardware(result.scenario)) errors.push_back(std::move(e));
  }
  if (errors.empty()) check_cross_fields(result.scenario, errors);
  return result;
}

namespace {

Json scenario_json(const Scenario& scenario) {
  Json doc = Json::object();
  // Every top-level key in the canonical order first (a placeholder keeps
  // its place), then the values in field order.
  for (const std::string& key : document_order()) doc[key] = nullptr;
  doc["schema_version"] = kScenarioVersion;
  for (const Field& f : fields()) {
    const auto dot = f.spec.key.find('.');
    Json& slot = dot == std::string::npos ? doc[f.spec.key] : doc[f.spec.key.substr(0, dot)][f.spec.key.substr(dot + 1)];
    if (f.spec.kind == FieldKind::Text) {
      slot = f.get_text(scenario);
    } else if (f.derived >= 0 && scenario.hardware.enabled() && (scenario.given >> f.derived & 1u) == 0) {
      slot = nullptr;  // derived from hardware.*: parsing this document derives it again
    } else if (f.spec.kind == FieldKind::Integer) {
      slot = static_cast<std::uint64_t>(f.get(scenario));
    } else {
      slot = f.get(scenario);
    }
  }
  doc["policies"] = scenario.policies;
  return doc;
}

}  // namespace

std::string scenario_to_json(const Scenario& scenario, int indent) {
  // A scenario built in code (not parsed) may hold text that is not UTF-8,
  // e.g. a trace's file name: replace it rather than throw.
  return scenario_json(scenario).dump(indent, ' ', false, Json::error_handler_t::replace);
}

namespace {
// "a,b,c" as a JSON array of strings.
Json split_choices(std::string_view list) {
  Json out = Json::array();
  while (true) {
    const auto comma = list.find(',');
    out.push_back(std::string(list.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}
}  // namespace

std::string scenario_json_schema() {
  const Scenario defaults = Scenario::reference();
  Json schema = Json::object();
  schema["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  schema["title"] = "prefixroute scenario";
  schema["type"] = "object";
  schema["additionalProperties"] = false;
  Json& props = schema["properties"];
  props["schema_version"] = Json{{"const", kScenarioVersion}};
  props[kDescriptionKey] = Json{{"type", "array"},
                                {"items", Json{{"type", "string"}, {"maxLength", kMaxTextLength}}},
                                {"maxItems", kMaxDescriptionLines},
                                {"description", "Lines of text for people: what the scenario shows (not echoed in results)."}};
  for (const Field& f : fields()) {
    Json prop = Json::object();
    if (f.spec.kind == FieldKind::Text) {
      prop["type"] = "string";
      prop["maxLength"] = kMaxTextLength;
      if (!f.spec.choices.empty()) prop["enum"] = split_choices(f.spec.choices);
      prop["default"] = f.get_text(defaults);
    } else {
      prop["type"] = f.spec.kind == FieldKind::Integer ? "integer" : "number";
      // Also null (derive from hardware.*). The type stays a single word:
      // readers of this schema (the page's controls) key on it.
      if (f.derived >= 0) prop["x-derived-from"] = "hardware";
      prop["minimum"] = f.spec.min;
      prop["maximum"] = f.spec.max;
      const double def = f.get(defaults);
      if (f.spec.kind == FieldKind::Integer) prop["default"] = static_cast<std::uint64_t>(def);
      else prop["default"] = def;
      if (!f.spec.unit.empty()) prop["x-unit"] = f.spec.unit;
    }
    prop["x-label"] = f.spec.label;
    if (!f.spec.policy.empty()) prop["x-policy"] = f.spec.policy;
    if (!f.spec.kinds.empty()) prop["x-kinds"] = split_choices(f.spec.kinds);
    prop["description"] = f.spec.description;
    const auto dot = f.spec.key.find('.');
    if (dot == std::string::npos) {
      props[f.spec.key] = prop;
    } else {
      Json& group = props[f.spec.key.substr(0, dot)];
      group["type"] = "object";
      group["additionalProperties"] = false;
      group["properties"][f.spec.key.substr(dot + 1)] = prop;
    }
  }
  Json names = Json::array();
  for (const PolicySpec* spec : policy_catalogue()) names.push_back(spec->name());
  const FieldSpec& policies = policies_spec();
  props["policies"] = Json{{"type", "array"},
                           {"items", Json{{"enum", names}}},
                           {"minItems", 1},
                           {"uniqueItems", true},
                           {"default", defaults.policies},
                           {"x-label", policies.label},
                           {"description", policies.description}};
  return schema.dump(2);
}

}  // namespace prefixroute
