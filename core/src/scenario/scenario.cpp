#include "prefixroute/scenario/scenario.h"

// The scenario's basics: the reference scenario, numeric fields by key, the
// hardware derivation and the published field table.
#include <mutex>

#include "scenario/fields.h"

namespace prefixroute {
namespace {

using scenario_detail::Field;
using scenario_detail::fields;
using scenario_detail::policies_spec;

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
  // hardware.mfu is read only with a hardware.model, which then derives it
  // from the GPU unless given; without one the document shows 0.5.
  s.hardware.mfu = 0.5;
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
    HardwareSettings settings = scenario.hardware;
    if (!scenario.is_given("hardware.mfu")) settings.mfu = 0;  // the GPU's calibrated default
    derived = derive_hardware(settings, scenario.cluster.kv_block_tokens);
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

}  // namespace prefixroute
