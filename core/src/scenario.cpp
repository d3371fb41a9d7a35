#include "prefixroute/scenario.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "prefixroute/policies/policy_registry.h"

namespace prefixroute {
namespace {

using Json = nlohmann::ordered_json;

// A field of the table together with how to read and write it on a Scenario.
// Integers travel as double: every allowed integer is below 2^53, so exact.
struct Field {
  FieldSpec spec;
  double (*get)(const Scenario&);
  void (*set)(Scenario&, double);
};

#define PR_FIELD(KEY, LABEL, KIND, MIN, MAX, UNIT, DESC, MEMBER, TYPE)                                  \
  Field {                                                                                     \
    FieldSpec{KEY, LABEL, FieldKind::KIND, MIN, MAX, UNIT, DESC},                                    \
        [](const Scenario& s) { return static_cast<double>(s.MEMBER); },                      \
        [](Scenario& s, double v) { s.MEMBER = static_cast<TYPE>(v); }                        \
  }

constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 - 1: exact in JSON and JS

const std::vector<Field>& fields() {
  static const std::vector<Field> table = {
      PR_FIELD("seed", "Seed", Integer, 0, kMaxSafeInteger, "", "Seed of the workload generator.", seed,
               std::uint64_t),
      PR_FIELD("workload.requests", "Requests", Integer, 1, 1e7, "requests", "Requests in the trace.",
               workload.requests, std::uint64_t),
      PR_FIELD("workload.tenants", "Tenants", Integer, 1, 1e5, "tenants",
               "Tenants, each with its own shared prompt prefix.", workload.tenants, std::uint32_t),
      PR_FIELD("workload.zipf_s", "Zipf skew", Number, 0, 10, "",
               "Zipf exponent of tenant popularity (0 = uniform).", workload.zipf_s, double),
      PR_FIELD("workload.arrival_rate_per_s", "Arrival rate", Number, 1e-3, 1e7, "requests/s",
               "Mean Poisson arrival rate of the whole cluster.", workload.arrival_rate_per_s,
               double),
      PR_FIELD("workload.prefix_tokens_min", "Prefix length, min", Integer, 0, 1e6, "tokens",
               "Shortest tenant prefix (drawn uniformly per tenant).", workload.prefix_tokens_min,
               std::uint32_t),
      PR_FIELD("workload.prefix_tokens_max", "Prefix length, max", Integer, 0, 1e6, "tokens", "Longest tenant prefix.",
               workload.prefix_tokens_max, std::uint32_t),
      PR_FIELD("workload.turn_tokens_min", "Turn length, min", Integer, 1, 1e6, "tokens",
               "Shortest unique user turn (drawn uniformly per request).", workload.turn_tokens_min,
               std::uint32_t),
      PR_FIELD("workload.turn_tokens_max", "Turn length, max", Integer, 1, 1e6, "tokens", "Longest unique user turn.",
               workload.turn_tokens_max, std::uint32_t),
      PR_FIELD("workload.vocab_size", "Vocabulary size", Integer, 2, 4294967295.0, "tokens",
               "Token ids are drawn from [0, vocab_size).", workload.vocab_size, std::uint32_t),
      PR_FIELD("workload.output_tokens_min", "Output length, min", Integer, 0, 1e6, "tokens",
               "Shortest output (decode) length; used when cluster.decode_ms_per_token > 0.",
               workload.output_tokens_min, std::uint32_t),
      PR_FIELD("workload.output_tokens_max", "Output length, max", Integer, 0, 1e6, "tokens", "Longest output length.",
               workload.output_tokens_max, std::uint32_t),
      PR_FIELD("cluster.replicas", "Replicas", Integer, 1, 4096, "replicas", "Serving replicas.",
               cluster.replicas, std::uint32_t),
      PR_FIELD("cluster.cache_tokens", "Cache per replica", Integer, 0, 1e9, "tokens",
               "Prefix-cache budget of each replica.", cluster.cache_tokens, std::uint64_t),
      PR_FIELD("cluster.prefill_tokens_per_s", "Prefill rate", Number, 1, 1e9, "tokens/s",
               "Prefill speed of one replica.", cluster.prefill.tokens_per_s, double),
      PR_FIELD("cluster.protect_after_hits", "Protect after hits", Integer, 0, 4294967295.0, "hits",
               "A cache node reused this many times is evicted only after unprotected ones "
               "(0 = no protection).",
               cluster.protect_after_hits, std::uint32_t),
      PR_FIELD("cluster.decode_ms_per_token", "Decode time per token", Number, 0, 1e4, "ms",
               "Time per output token (0 = no decode: requests complete at their first token).",
               cluster.decode_ms_per_token, double),
      PR_FIELD("router.scrape_period_ms", "Metrics scrape period", Number, 1, 3.6e6, "ms",
               "The router scrapes engine metrics (queue, running, KV usage) this often.",
               router.scrape_period_ms, double),
      PR_FIELD("router.kv_event_lag_ms", "KV event lag", Number, 0, 3.6e6, "ms",
               "The router's precise cache view lags the engines' caches by this.",
               router.kv_event_lag_ms, double),
      PR_FIELD("sglang_cache_aware.balance_abs", "Imbalance gate, absolute", Number, 0, 1e9, "requests",
               "Imbalance gate: max - min in-flight above this (and the relative test) -> least loaded.",
               sglang.balance_abs, double),
      PR_FIELD("sglang_cache_aware.balance_rel", "Imbalance gate, relative", Number, 1, 1e6, "",
               "Imbalance gate: max in-flight above this x min (and the absolute test).",
               sglang.balance_rel, double),
      PR_FIELD("sglang_cache_aware.cache_threshold", "Cache threshold", Number, 0, 1, "",
               "Matched / prompt above this routes to the replica holding the match.",
               sglang.cache_threshold, double),
      PR_FIELD("sglang_cache_aware.eviction_interval_s", "Tree trim interval", Number, 1e-3, 1e6, "s",
               "How often the router trims its approximate trees.", sglang.eviction_interval_s, double),
      PR_FIELD("sglang_cache_aware.max_tree_tokens", "Tree size after trim", Integer, 1, 1e10, "tokens",
               "Per-replica approximate tree size after a trim.", sglang.max_tree_tokens, std::uint64_t),
      PR_FIELD("sglang_cache_aware.smallest_tree_fallback", "Smallest-tree fallback", Integer, 0, 1, "",
               "1: below the threshold route to the smallest tree (older rule); 0: least loaded.",
               sglang.smallest_tree_fallback, std::uint32_t),
      PR_FIELD("dynamo_kv.block_size", "Block size", Integer, 1, 65536, "tokens", "KV block size.",
               dynamo.block_size, std::uint32_t),
      PR_FIELD("dynamo_kv.overlap_weight", "Overlap weight", Number, 0, 1e6, "",
               "Weight of the prefill-blocks term in the cost.", dynamo.overlap_weight, double),
      PR_FIELD("dynamo_kv.temperature", "Temperature", Number, 0, 1e6, "",
               "0: lowest cost wins; > 0: softmax sampling over normalised costs (seeded).",
               dynamo.temperature, double),
      PR_FIELD("llmd_epp.block_size", "Block size", Integer, 1, 65536, "tokens", "Prefix index block size.",
               llmd.block_size, std::uint32_t),
      PR_FIELD("llmd_epp.max_prefix_blocks", "Prefix blocks considered", Integer, 1, 1e6, "blocks",
               "Prompt blocks the prefix scorer considers.", llmd.max_prefix_blocks, std::uint32_t),
      PR_FIELD("llmd_epp.lru_blocks_per_replica", "Index blocks per replica", Integer, 1, 1e9, "blocks",
               "Capacity of the approximate per-replica block index (LRU).", llmd.lru_blocks_per_replica,
               std::uint64_t),
      PR_FIELD("llmd_epp.prefix_weight", "Prefix scorer weight", Number, 0, 1e6, "", "Weight of the prefix scorer.",
               llmd.prefix_weight, double),
      PR_FIELD("llmd_epp.queue_weight", "Queue scorer weight", Number, 0, 1e6, "", "Weight of the queue scorer.",
               llmd.queue_weight, double),
      PR_FIELD("llmd_epp.kv_weight", "KV scorer weight", Number, 0, 1e6, "", "Weight of the KV-usage scorer.",
               llmd.kv_weight, double),
      PR_FIELD("chwbl.key_tokens", "Key length", Integer, 1, 1e6, "tokens",
               "The prompt's first this many tokens are hashed onto the ring.", chwbl.key_tokens,
               std::uint32_t),
      PR_FIELD("chwbl.virtual_nodes", "Virtual nodes", Integer, 1, 65536, "", "Ring points per replica.",
               chwbl.virtual_nodes, std::uint32_t),
      PR_FIELD("chwbl.load_factor", "Load factor", Number, 1, 1e6, "",
               "A replica takes a key while its in-flight <= factor x (total + 1) / replicas.",
               chwbl.load_factor, double),
      PR_FIELD("preble_e2.window_s", "Load window", Number, 1e-3, 1e6, "s", "Load history window.", preble.window_s,
               double),
      PR_FIELD("preble_e2.rebalance_ratio", "Rebalance ratio", Number, 1, 1e6, "",
               "Rebalance when the heaviest replica's load exceeds this x the lightest's.",
               preble.rebalance_ratio, double),
      PR_FIELD("expected_ttft.cache_credit", "Cache credit", Number, 0, 1e3, "",
               "Extra credit per cached token, in prefill tokens (0 = plain minimum expected TTFT).",
               expected_ttft.cache_credit, double),
      PR_FIELD("expected_ttft.prefill_tokens_per_s", "Router's prefill rate", Number, 0, 1e9, "tokens/s",
               "The router's estimate of the prefill rate (0 = the cluster's true rate).",
               expected_ttft.prefill_tokens_per_s, double),
      PR_FIELD("expected_ttft.home_key_tokens", "Home key length", Integer, 0, 1e6, "tokens",
               "On a full miss, a cost tie goes to the replica that last took a prompt with the same "
               "first this many tokens (its home); 0 = no homes.",
               expected_ttft.home_key_tokens, std::uint32_t),
      PR_FIELD("trace.block_size", "Trace block size", Integer, 1, 1048576, "tokens",
               "Tokens per block id in the replayed trace (Mooncake: 512).", trace.block_size,
               std::uint32_t),
      PR_FIELD("trace.time_scale", "Time scale", Number, 1e-6, 1e6, "",
               "Arrival time = trace timestamp x time_scale (2 = half the rate).", trace.time_scale,
               double),
      PR_FIELD("trace.limit", "Request limit", Integer, 0, 1e9, "requests",
               "Replay only the first this many requests (0 = all).", trace.limit, std::uint64_t),
      PR_FIELD("trace.lines", "Lines read", Integer, 0, 1e12, "lines", "Lines read from the trace file (recorded).",
               trace.lines, std::uint64_t),
      PR_FIELD("trace.skipped_lines", "Lines skipped", Integer, 0, 1e12, "lines",
               "Bad lines skipped under on_error = skip (recorded).", trace.skipped_lines,
               std::uint64_t),
      PR_FIELD("affinity_balanced.load_slack_s", "Load slack", Number, 0, 3600, "s",
               "AffinityBalanced prefers cache only among replicas whose wait is within this "
               "of the least busy one.",
               affinity_balanced_load_slack_s, double),
  };
  return table;
}

#undef PR_FIELD

// Text fields: a spec and a reference to the member it sets.
constexpr std::size_t kMaxTextLength = 256;

struct TextAccess {
  FieldSpec spec;
  std::string& (*ref)(Scenario&);
  const std::string& (*cref)(const Scenario&);
};

const std::vector<TextAccess>& text_fields() {
  static const std::vector<TextAccess> table = {
      {FieldSpec{"trace.on_error", "On a bad line", FieldKind::Text, 0, 0, "",
                 "On a bad trace line: stop with its message, or skip it (bad lines are counted).",
                 "stop,skip"},
       [](Scenario& s) -> std::string& { return s.trace.on_error; },
       [](const Scenario& s) -> const std::string& { return s.trace.on_error; }},
      {FieldSpec{"trace.name", "Trace file", FieldKind::Text, 0, 0, "",
                 "File name of the replayed trace (recorded; empty = synthetic workload)."},
       [](Scenario& s) -> std::string& { return s.trace.name; },
       [](const Scenario& s) -> const std::string& { return s.trace.name; }},
      {FieldSpec{"trace.content_hash", "Trace content hash", FieldKind::Text, 0, 0, "",
                 "FNV-1a 64 of the trace file's bytes, 16 hex digits (recorded; a given hash must "
                 "match the file)."},
       [](Scenario& s) -> std::string& { return s.trace.content_hash; },
       [](const Scenario& s) -> const std::string& { return s.trace.content_hash; }},
  };
  return table;
}

const FieldSpec kPoliciesSpec{"policies", "Policies to run", FieldKind::PolicyList, 0, 0, "",
                              "Policies to run, in report order (or \"all\")."};

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

std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
    return std::to_string(static_cast<long long>(v));
  }
  // %.10g in the C locale: what an ostream with precision(10) writes.
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

std::string allowed_text(const FieldSpec& spec) {
  const char* what = spec.kind == FieldKind::Integer ? "an integer" : "a number";
  std::string text = std::string("must be ") + what + " in [" + format_number(spec.min) + ", " +
                     format_number(spec.max) + "]";
  if (!spec.unit.empty()) text += " (" + std::string(spec.unit) + ")";
  return text;
}

std::string describe(const Json& value) {
  // Containers are named, never dumped: dump() recurses, and an override key
  // with many dots builds nesting that no depth check has seen.
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  // Replace, don't throw: a plain-text override may hold any bytes.
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  if (value.is_string()) return text + " (a string)";
  if (value.is_boolean()) return text + " (a boolean)";
  if (value.is_null()) return "null";
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

// Records nlohmann's parse error (position and reason) without exceptions,
// so the same code runs where exceptions are off (the wasm build).
struct SyntaxCheck : nlohmann::json_sax<Json> {
  std::string error;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth <= kMaxDepth || too_deep(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { --depth; return true; }
  bool start_array(std::size_t) override { return ++depth <= kMaxDepth || too_deep(); }
  bool end_array() override { --depth; return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    error = ex.what();
    return false;
  }
  bool too_deep() {
    error = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
    return false;
  }
  static constexpr int kMaxDepth = 16;
  int depth = 0;
};

constexpr std::size_t kMaxDocumentBytes = 1 << 20;

bool parse_json(std::string_view text, Json& out, std::string& error) {
  if (text.size() > kMaxDocumentBytes) {
    error = "document is " + std::to_string(text.size()) + " bytes; at most " +
            std::to_string(kMaxDocumentBytes) + " allowed";
    return false;
  }
  SyntaxCheck check;
  if (!Json::sax_parse(text.begin(), text.end(), &check) || !check.error.empty()) {
    error = check.error.empty() ? "not valid JSON" : check.error;
    return false;
  }
  out = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) {
    error = "not valid JSON";
    return false;
  }
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
  for (const auto& info : policy_catalogue()) {
    if (!names.empty()) names += ", ";
    names += info.name;
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
    for (const auto& info : policy_catalogue()) names.emplace_back(info.name);
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

std::vector<std::string> top_level_keys() {
  std::vector<std::string> keys{"schema_version"};
  for (const FieldSpec& f : scenario_fields()) {
    std::string top(f.key.substr(0, f.key.find('.')));
    bool seen = false;
    for (const auto& k : keys) seen = seen || k == top;
    if (!seen) keys.push_back(top);
  }
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
  if (!parse_json(o.second, value, not_json)) value = o.second;  // plain text: a string
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
  const double storage = static_cast<double>(w.tenants) * static_cast<double>(w.prefix_tokens_max);
  if (storage > kMaxPrefixStorageTokens)
    errors.push_back({"workload.tenants",
                      "tenants x prefix_tokens_max must be at most " +
                          format_number(kMaxPrefixStorageTokens) + " tokens; got " + format_number(storage)});
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

Scenario Scenario::reference() {
  // The seed write-up's four policies; "all" adds the production routers' and
  // prefixroute's own.
  Scenario s;
  s.policies = {"round_robin", "least_loaded", "affinity", "affinity_balanced"};
  return s;
}

std::string ScenarioParse::error_text() const {
  std::string text;
  for (const auto& e : errors) text += e.field + ": " + e.message + "\n";
  return text;
}

const std::vector<FieldSpec>& scenario_fields() {
  static const std::vector<FieldSpec> specs = [] {
    std::vector<FieldSpec> out;
    for (const Field& f : fields()) out.push_back(f.spec);
    for (const TextAccess& t : text_fields()) out.push_back(t.spec);
    out.push_back(kPoliciesSpec);
    return out;
  }();
  return specs;
}

std::vector<FieldError> validate(const Scenario& scenario) {
  std::vector<FieldError> errors;
  for (const Field& f : fields()) {
    const double v = f.get(scenario);
    if (!std::isfinite(v) || v < f.spec.min || v > f.spec.max)
      errors.push_back({std::string(f.spec.key), allowed_text(f.spec) + "; got " + format_number(v)});
  }
  for (const TextAccess& t : text_fields()) {
    const std::string problem = check_text(t.spec, t.cref(scenario));
    if (!problem.empty()) errors.push_back({std::string(t.spec.key), problem});
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
    if (!parse_json(json_text, doc, error)) {
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
  check_unknown_keys(doc, errors);
  for (const Field& f : fields()) {
    const Json* value = find_dotted(doc, f.spec.key);
    if (value == nullptr) continue;
    double v = 0;
    std::string error;
    if (read_number(f.spec, *value, v, error)) {
      f.set(result.scenario, v);
    } else {
      errors.push_back({std::string(f.spec.key), error});
    }
  }
  for (const TextAccess& t : text_fields()) {
    const Json* value = find_dotted(doc, t.spec.key);
    if (value == nullptr) continue;
    if (!value->is_string()) {
      errors.push_back({std::string(t.spec.key), "must be a string; got " + describe(*value)});
      continue;
    }
    const std::string text = value->get<std::string>();
    const std::string problem = check_text(t.spec, text);
    if (problem.empty()) t.ref(result.scenario) = text;
    else errors.push_back({std::string(t.spec.key), problem});
  }
  if (const Json* policies = find_dotted(doc, "policies")) read_policies(*policies, result.scenario, errors);
  if (errors.empty()) check_cross_fields(result.scenario, errors);
  return result;
}

namespace {

Json scenario_json(const Scenario& scenario) {
  Json doc = Json::object();
  doc["schema_version"] = kScenarioVersion;
  for (const Field& f : fields()) {
    const auto dot = f.spec.key.find('.');
    Json& slot = dot == std::string_view::npos
                     ? doc[std::string(f.spec.key)]
                     : doc[std::string(f.spec.key.substr(0, dot))][std::string(f.spec.key.substr(dot + 1))];
    const double v = f.get(scenario);
    if (f.spec.kind == FieldKind::Integer) {
      slot = static_cast<std::uint64_t>(v);
    } else {
      slot = v;
    }
  }
  for (const TextAccess& t : text_fields()) {
    const auto dot = t.spec.key.find('.');
    doc[std::string(t.spec.key.substr(0, dot))][std::string(t.spec.key.substr(dot + 1))] = t.cref(scenario);
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

std::string scenario_json_schema() {
  const Scenario defaults = Scenario::reference();
  Json schema = Json::object();
  schema["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  schema["title"] = "prefixroute scenario";
  schema["type"] = "object";
  schema["additionalProperties"] = false;
  Json& props = schema["properties"];
  props["schema_version"] = Json{{"const", kScenarioVersion}};
  for (const Field& f : fields()) {
    Json prop = Json::object();
    prop["type"] = f.spec.kind == FieldKind::Integer ? "integer" : "number";
    prop["minimum"] = f.spec.min;
    prop["maximum"] = f.spec.max;
    const double def = f.get(defaults);
    if (f.spec.kind == FieldKind::Integer) prop["default"] = static_cast<std::uint64_t>(def);
    else prop["default"] = def;
    if (!f.spec.unit.empty()) prop["x-unit"] = f.spec.unit;
    prop["x-label"] = f.spec.label;
    prop["description"] = f.spec.description;
    const auto dot = f.spec.key.find('.');
    if (dot == std::string_view::npos) {
      props[std::string(f.spec.key)] = prop;
    } else {
      Json& group = props[std::string(f.spec.key.substr(0, dot))];
      group["type"] = "object";
      group["additionalProperties"] = false;
      group["properties"][std::string(f.spec.key.substr(dot + 1))] = prop;
    }
  }
  for (const TextAccess& t : text_fields()) {
    Json prop = Json::object();
    prop["type"] = "string";
    prop["maxLength"] = kMaxTextLength;
    if (!t.spec.choices.empty()) {
      Json choices = Json::array();
      std::string_view rest = t.spec.choices;
      while (true) {
        const auto comma = rest.find(',');
        choices.push_back(std::string(rest.substr(0, comma)));
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
      prop["enum"] = choices;
    }
    prop["default"] = t.cref(defaults);
    prop["x-label"] = t.spec.label;
    prop["description"] = t.spec.description;
    const auto dot = t.spec.key.find('.');
    Json& group = props[std::string(t.spec.key.substr(0, dot))];
    group["properties"][std::string(t.spec.key.substr(dot + 1))] = prop;
  }
  Json names = Json::array();
  for (const auto& info : policy_catalogue()) names.push_back(info.name);
  props["policies"] = Json{{"type", "array"},
                           {"items", Json{{"enum", names}}},
                           {"minItems", 1},
                           {"uniqueItems", true},
                           {"default", defaults.policies},
                           {"x-label", kPoliciesSpec.label},
                           {"description", kPoliciesSpec.description}};
  return schema.dump(2);
}

}  // namespace prefixroute
