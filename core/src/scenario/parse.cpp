// Parsing a scenario document and its overrides: every key read through the
// field table, each problem reported with its field.
#include <cmath>
#include <string>
#include <vector>

#include "base/json_text.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "scenario/fields.h"

namespace prefixroute {
namespace {

using json_text::describe;
using json_text::format_number;
using json_text::Json;
using scenario_detail::allowed_text;
using scenario_detail::check_cross_fields;
using scenario_detail::check_text;
using scenario_detail::document_order;
using scenario_detail::Field;
using scenario_detail::fields;
using scenario_detail::kDescriptionKey;
using scenario_detail::kMaxDescriptionLines;
using scenario_detail::kMaxTextLength;
using scenario_detail::policy_names_text;

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

}  // namespace

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

}  // namespace prefixroute
