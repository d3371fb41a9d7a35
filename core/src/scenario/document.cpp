// The canonical scenario document and the JSON Schema, both written from the
// field table.
#include <string>

#include "base/json_text.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "scenario/fields.h"

namespace prefixroute {
namespace {

using json_text::Json;
using scenario_detail::document_order;
using scenario_detail::Field;
using scenario_detail::fields;
using scenario_detail::kDescriptionKey;
using scenario_detail::kMaxDescriptionLines;
using scenario_detail::kMaxTextLength;
using scenario_detail::policies_spec;

}  // namespace

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
    if (!f.spec.client_kinds.empty()) prop["x-client-kinds"] = split_choices(f.spec.client_kinds);
    if (!f.spec.client_needs.empty()) prop["x-client-needs"] = split_choices(f.spec.client_needs);
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
