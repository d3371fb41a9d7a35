// Validation of a built scenario: each field within its allowed range or
// choices, and the rules across fields (the workload kinds' size limits, the
// engine's, hardware that can run).
#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/json_text.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/cumulative_workload.h"
#include "prefixroute/workload/gsp_workload.h"
#include "prefixroute/workload/session_workload.h"
#include "prefixroute/workload/shared_prefix_workload.h"
#include "prefixroute/workload/synthetic.h"
#include "scenario/fields.h"

namespace prefixroute {
namespace {

using json_text::format_number;
using scenario_detail::Field;
using scenario_detail::fields;
using scenario_detail::kMaxTextLength;

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
// The expected arrival span against its bound; `span` says how the span is
// computed, `field` names the field to change.
void check_expected_span(double span_s, const char* field, const std::string& span,
                         std::vector<FieldError>& errors) {
  if (span_s > kMaxArrivalSpanSeconds)
    errors.push_back({field, span + " (the expected arrival span) must be at most " +
                                 format_number(kMaxArrivalSpanSeconds) + " s; got " + format_number(span_s) + " s"});
}

// The longest possible prefill work (`work` prompt tokens, described by
// `what`) against its bound; whether the work is within every bound (the
// engine limits are checked only then).
bool check_prefill_work(const Scenario& s, double work, const std::string& what, std::vector<FieldError>& errors) {
  const double prefill_s = work / s.cluster.prefill.tokens_per_s;
  if (work <= kMaxTotalPromptTokens && prefill_s > kMaxPrefillSeconds)
    errors.push_back({"cluster.prefill_tokens_per_s",
                      what + " / prefill_tokens_per_s (the longest possible prefill work) must be at most " +
                          format_number(kMaxPrefillSeconds) + " s; got " + format_number(prefill_s) + " s"});
  return work <= kMaxTotalPromptTokens && prefill_s <= kMaxPrefillSeconds;
}

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
  check_expected_span(span_s, "workload.arrival_rate_per_s", "requests / arrival_rate_per_s", errors);
  const bool within = check_prefill_work(s, total, "requests x (prefix_tokens_max + turn_tokens_max)", errors);
  check_engine_limits(s, static_cast<double>(w.requests), total,
                      static_cast<double>(w.prefix_tokens_max) + static_cast<double>(w.turn_tokens_max),
                      static_cast<double>(w.output_tokens_max),
                      within, errors);
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
    check_expected_span(span_s, field,
                        "requests / session_rate_per_s + the longest possible session's expected duration", errors);
  }
  const bool within = check_prefill_work(s, total, "requests x the longest possible prompt", errors);
  check_engine_limits(s, static_cast<double>(w.requests), total, longest, static_cast<double>(sp.reply_tokens_max),
                      within, errors);
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
  check_expected_span(span_s, "workload.arrival_rate_per_s", "gsp_num_groups x gsp_prompts_per_group / arrival_rate_per_s",
                      errors);
  const bool within = check_prefill_work(s, total, "the gsp prompt tokens (" + format_number(total) + ")", errors);
  check_engine_limits(s, requests, total,
                      static_cast<double>(w.gsp.system_prompt_len) + static_cast<double>(w.gsp.question_len),
                      static_cast<double>(w.gsp.output_len),
                      requests <= kMaxGspRequests && within,
                      errors);
}

// The pool kinds (shared_prefix, prefix_repetition): a pool of at most
// kMaxPoolPrompts prompts, requests sent from it, prompts that grow by a
// round per cycle when multi-turn.
void check_pool_limits(const Scenario& s, std::vector<FieldError>& errors) {
  const auto& w = s.workload;
  const bool repetition = w.kind == "prefix_repetition";
  const SharedPrefixParams& sp = w.shared_prefix;
  if (repetition) {
    const PrefixRepetitionParams& r = w.prefix_repetition;
    if (r.num_prefixes > w.requests) {
      // vLLM refuses it too (each prefix needs a prompt).
      errors.push_back({"workload.prefix_repetition_num_prefixes",
                        "must be at most workload.requests (" + std::to_string(w.requests) +
                            "): each prefix is shared by requests / num_prefixes prompts, rounded down; got " +
                            std::to_string(r.num_prefixes)});
      return;
    }
  } else {
    const std::pair<const LengthSpread*, const char*> spreads[] = {
        {&sp.system_prompt, "system_prompt_len"}, {&sp.question, "question_len"}, {&sp.output, "output_len"}};
    bool ordered = true;
    for (const auto& [spread, name] : spreads) {
      if (spread->min <= spread->max) continue;
      ordered = false;
      errors.push_back({std::string("workload.shared_prefix_") + name + "_min",
                        std::string("must be <= workload.shared_prefix_") + name + "_max (" +
                            std::to_string(spread->max) + "); got " + std::to_string(spread->min)});
    }
    const double pool = static_cast<double>(sp.num_groups) * sp.prompts_per_group;
    if (pool > kMaxPoolPrompts) {
      errors.push_back({"workload.shared_prefix_num_prompts_per_group",
                        "shared_prefix_num_groups x shared_prefix_num_prompts_per_group (the pool) must be at most " +
                            format_number(kMaxPoolPrompts) + "; got " + format_number(pool)});
      ordered = false;
    }
    if (sp.multi_turn && sp.order == PoolOrder::Random) {
      errors.push_back({"workload.shared_prefix_order",
                        "must be cycle when workload.shared_prefix_multi_turn is on (a session advances one round "
                        "per cycle of the pool; random draws would bound no session's rounds); got random"});
      ordered = false;
    }
    if (!ordered) return;  // the bounds below assume ordered spreads and a bounded pool
  }
  const double requests = SharedPrefixWorkload::requests(w);
  const double longest = SharedPrefixWorkload::max_prompt_tokens(w);
  const double total = SharedPrefixWorkload::max_total_prompt_tokens(w);
  if (total > kMaxTotalPromptTokens) {
    const bool growing = !repetition && sp.multi_turn;
    errors.push_back({"workload.requests",
                      "the prompt tokens of all requests, at most (each at most the longest possible prompt, " +
                          format_number(longest) + " tokens" +
                          (growing ? ", multi-turn prompts growing by a question and a response per cycle of the pool"
                                   : "") +
                          "), must be at most " + format_number(kMaxTotalPromptTokens) + " tokens; got " +
                          format_number(total)});
  }
  const double span_s = requests / w.arrival_rate_per_s;
  check_expected_span(span_s, "workload.arrival_rate_per_s", "requests / arrival_rate_per_s", errors);
  const bool within =
      check_prefill_work(s, total, "the longest possible prompt tokens (" + format_number(total) + ")", errors);
  const SharedPrefixParams p = SharedPrefixWorkload::params_of(w);
  check_engine_limits(s, requests, total, longest, longest_length(p.output),
                      within, errors);
}

// The cumulative kind: the sessions kind's conversations for a pool of
// pool_prompts calls, sent as requests of at most max_prompt_tokens each.
void check_cumulative_limits(const Scenario& s, std::vector<FieldError>& errors) {
  const auto& w = s.workload;
  const CumulativeParams& c = w.cumulative;
  // Every conversation's first prompt (a system prompt and a user message)
  // must survive the pruning, so the pool is never empty.
  const double first = static_cast<double>(w.prefix_tokens_max) + w.turn_tokens_max;
  if (first > c.max_prompt_tokens)
    errors.push_back({"workload.cumulative_max_prompt_tokens",
                      "must be at least workload.prefix_tokens_max + workload.turn_tokens_max (" +
                          format_number(first) +
                          ": a conversation's first prompt at most, so that no conversation is pruned whole); got " +
                          std::to_string(c.max_prompt_tokens)});
  const double requests = static_cast<double>(w.requests);
  const double longest = CumulativeWorkload::max_prompt_tokens(w);
  const double total = requests * longest;
  if (total > kMaxTotalPromptTokens)
    errors.push_back({"workload.requests",
                      "requests x the longest prompt sent (" + format_number(longest) +
                          " tokens: the least of cumulative_max_prompt_tokens and the longest conversation's "
                          "growth) must be at most " +
                          format_number(kMaxTotalPromptTokens) + " tokens; got " + format_number(total)});
  const double span_s = requests / w.arrival_rate_per_s;
  check_expected_span(span_s, "workload.arrival_rate_per_s", "requests / arrival_rate_per_s", errors);
  const bool within = check_prefill_work(s, total, "requests x the longest prompt sent", errors);
  check_engine_limits(s, requests, total, longest, static_cast<double>(w.sessions.reply_tokens_max),
                      within, errors);
  check_prefix_storage(w, errors);
}

}  // namespace

namespace scenario_detail {

std::string policy_names_text() {
  std::string names;
  for (const PolicySpec* spec : policy_catalogue()) {
    if (!names.empty()) names += ", ";
    names += spec->name();
  }
  return names;
}

// "" when `value` is acceptable for text field `spec`, else what is allowed.
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


namespace {

// Whether a client field holds a value: every client field but client.kind
// defaults to 0 or empty, which is what "not given" means for it.
bool client_field_given(const Field& f, const Scenario& s) {
  return f.spec.kind == FieldKind::Text ? !f.get_text(s).empty() : f.get(s) != 0;
}

// The names of a comma-separated list.
std::vector<std::string_view> list_names(std::string_view list) {
  std::vector<std::string_view> names;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    names.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return names;
}

// The names joined for a sentence: "a", "a or b", "a, b or c".
std::string either_text(std::string_view list) {
  const std::vector<std::string_view> names = list_names(list);
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

// The client fields set where the field table (FieldSpec::client_kinds and
// client_needs, the schema's x-client-kinds and x-client-needs) says they are
// not read: each refused by name.
void check_client_field_use(const Scenario& s, std::vector<FieldError>& errors) {
  const std::string& kind = s.client.kind;
  for (const Field& f : fields()) {
    if (f.spec.client_kinds.empty() || !client_field_given(f, s)) continue;
    const char* leave = f.spec.kind == FieldKind::Text ? "leave it empty" : "leave it at 0";
    const std::vector<std::string_view> kinds = list_names(f.spec.client_kinds);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
      errors.push_back({f.spec.key, "applies to a " + either_text(f.spec.client_kinds) +
                                        " client only; client.kind is " + kind + " (" + leave +
                                        ", or change client.kind)"});
      continue;
    }
    if (f.spec.client_needs.empty()) continue;
    const std::vector<std::string_view> needs = list_names(f.spec.client_needs);
    bool needed_given = false;
    for (const Field& g : fields())
      if (std::find(needs.begin(), needs.end(), g.spec.key) != needs.end())
        needed_given = needed_given || client_field_given(g, s);
    if (!needed_given)
      errors.push_back({f.spec.key, "applies to a client with stages only (" + either_text(f.spec.client_needs) +
                                        " given); " + leave + ", or give the stages"});
  }
}

}  // namespace

// The client: each field used by the kind it applies to, the stages well
// formed, and (synthetic workloads) enough requests for the open-loop stages.
void check_client(const Scenario& s, std::vector<FieldError>& errors) {
  const ClientConfig& c = s.client;
  const ClientKind kind = client_kind(c.kind);
  const bool closed = kind == ClientKind::Closed;
  check_client_field_use(s, errors);
  std::vector<ClientStage> stages, warmup;
  std::string error;
  if (!c.stages.empty() && !parse_client_stages(c.stages, closed, stages, error))
    errors.push_back({"client.stages", error});
  if (!c.warmup.empty()) {
    if (!parse_client_stages(c.warmup, closed, warmup, error)) {
      errors.push_back({"client.warmup", error});
    } else if (warmup.size() != 1) {
      errors.push_back({"client.warmup", "must be one stage LOADxSECONDS; got " + std::to_string(warmup.size())});
    }
  }
  if (kind == ClientKind::Constant && c.rate_per_s == 0 && c.stages.empty())
    errors.push_back({"client.rate_per_s", "must be > 0 for a constant client (or give client.stages)"});
  if (closed && c.concurrency == 0 && c.stages.empty())
    errors.push_back({"client.concurrency", "must be at least 1 for a closed client (or give client.stages)"});
  if (!c.warmup.empty() && c.stages.empty())
    errors.push_back({"client.warmup", "warms up for client.stages: give the stages too (or leave it empty)"});
  // An open loop's stages send int(rate x duration) requests each.
  double seconds = 0, needed = 0;
  for (const auto* list : {&warmup, &stages})
    for (const ClientStage& st : *list) {
      seconds += st.duration_s + c.stage_interval_s;
      if (!closed) needed += std::floor(st.load * st.duration_s);
    }
  if (seconds > kMaxArrivalSpanSeconds)
    errors.push_back({"client.stages", "the stages and their pauses last " + format_number(seconds) +
                                           " s; at most " + format_number(kMaxArrivalSpanSeconds) + " s"});
  if (!closed && needed > 0 && !s.replays_trace()) {
    const double have = synthetic_bounds(s.workload).requests;
    if (needed > have)
      errors.push_back({s.workload.kind == "gsp" ? "workload.gsp_prompts_per_group" : "workload.requests",
                        "the client's stages send " + format_number(needed) + " requests (int(rate x seconds) "
                        "each) but the workload has " + format_number(have) + ": give it at least " +
                            format_number(needed)});
  }
}

// The SLO's targets: percentiles of at most three decimals (the count of
// requests a target needs is then exact integer arithmetic, run/slo.h), and a
// TPOT target only where runs measure TPOT.
void check_slo(const Scenario& s, std::vector<FieldError>& errors) {
  const auto thousandths = [&](const char* field, double percentile) {
    const double scaled = percentile * 1000;
    if (std::fabs(scaled - std::round(scaled)) > 1e-6 * scaled)
      errors.push_back({field, "must have at most three decimals (e.g. 99.9); got " + format_number(percentile)});
  };
  thousandths("slo.ttft_percentile", s.slo.ttft_percentile);
  thousandths("slo.tpot_percentile", s.slo.tpot_percentile);
  if (s.slo.tpot_ms > 0 && s.cluster.engine != EngineKind::Batched)
    errors.push_back({"slo.tpot_ms", "a TPOT target needs cluster.engine = batched (the fifo engine measures no "
                                     "per-request TPOT: its decode takes cluster.decode_ms_per_token per token); got " +
                                         format_number(s.slo.tpot_ms)});
}

void check_cross_fields(const Scenario& s, std::vector<FieldError>& errors) {
  check_client(s, errors);
  check_slo(s, errors);
  check_topology(s, errors);
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
  // The openai key choices read only an openai log: under another named
  // format they would be silently ignored.
  if (s.trace.format == "mooncake" || s.trace.format == "bailian") {
    const std::pair<const char*, const std::string*> choices[] = {{"trace.time_field", &s.trace.time_field},
                                                                   {"trace.prompt_field", &s.trace.prompt_field},
                                                                   {"trace.session_field", &s.trace.session_field}};
    for (const auto& [key, value] : choices)
      if (*value != "auto")
        errors.push_back({key, "chooses a key of an openai log, but trace.format is " + s.trace.format +
                                   ", whose lines have fixed keys: set it to auto, or trace.format to auto or "
                                   "openai; got " + *value});
  }
  if (is_session_kind(w.kind)) check_session_limits(s, errors);
  else if (w.kind == "gsp") check_gsp_limits(s, errors);
  else if (is_pool_kind(w.kind)) check_pool_limits(s, errors);
  else if (w.kind == "cumulative") check_cumulative_limits(s, errors);
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


}  // namespace scenario_detail

using scenario_detail::allowed_text;
using scenario_detail::check_cross_fields;
using scenario_detail::check_text;

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


}  // namespace prefixroute
