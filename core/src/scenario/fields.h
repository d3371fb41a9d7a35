// The scenario's field table, with how each field is read and written on a
// Scenario: the fixed sections' rows, and one row per parameter of every
// policy in the catalogue. Internal to core/src; scenario_fields() publishes
// the specs.
#pragma once

#include <string>
#include <vector>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute::scenario_detail {

/// A field and its accessors. Numbers (Integer, Number) travel as double:
/// every allowed integer is below 2^53, so exact. Text fields read and write
/// text (a policy's choice parameter maps its text to the choice's index).
struct Field {
  FieldSpec spec;
  // A fixed field's accessors. They capture nothing, so they are plain
  // function pointers: one small function each, where a std::function would
  // add a type-erased closure per field to the WebAssembly module.
  double (*get_number)(const Scenario&) = nullptr;
  void (*set_number)(Scenario&, double) = nullptr;
  std::string (*get_string)(const Scenario&) = nullptr;
  void (*set_string)(Scenario&, const std::string&) = nullptr;
  // A policy parameter's row: its policy and index in the policy's params
  // (read and written through Scenario::policy_params).
  const PolicySpec* policy = nullptr;
  std::size_t param = 0;
  int derived = -1;  ///< index in kDerivableFields, or -1

  /// A number field's value (Integer, Number; a policy's number parameter).
  double get(const Scenario& s) const;
  void set(Scenario& s, double value) const;
  /// A text field's value (Text; a policy's choice parameter).
  std::string get_text(const Scenario& s) const;
  void set_text(Scenario& s, const std::string& value) const;
};

/// Every field except `policies`, in field-table order (scenario_fields()).
/// Rebuilt when the catalogue changes.
const std::vector<Field>& fields();

/// The `policies` field's spec.
const FieldSpec& policies_spec();

/// The top-level keys of the canonical document, in the order it writes
/// them (schema_version first, policies last).
const std::vector<std::string>& document_order();

inline constexpr std::size_t kMaxTextLength = kMaxTextFieldLength;

/// A scenario document's "description": lines of text for people (what a
/// preset shows). It is read, checked and dropped: no run depends on it and the
/// canonical document does not echo it.
inline constexpr std::string_view kDescriptionKey = "description";
inline constexpr std::size_t kMaxDescriptionLines = 8;

/// "" when `value` is acceptable for the text field `spec`, else what is allowed.
std::string check_text(const FieldSpec& spec, const std::string& value);

/// The catalogue's policy names, comma-separated (for messages).
std::string policy_names_text();

/// What a number field allows ("must be an integer in [1, 4096]").
std::string allowed_text(const FieldSpec& spec);

/// The rules across fields of a scenario whose fields are each valid: the
/// workload kinds' size limits, the engine's, hardware.tp. Appends problems.
void check_cross_fields(const Scenario& scenario, std::vector<FieldError>& errors);

/// The topology section's rules (scenario/pool_clusters.cpp): its fields read
/// only when disaggregated, and what a disaggregated topology needs.
void check_topology(const Scenario& scenario, std::vector<FieldError>& errors);

/// Why a replayed trace refuses replicates > 1 (the `replicates` field's
/// message, for a scenario naming a trace and for check_replay).
std::string replicates_with_trace_message(std::uint32_t replicates);

}  // namespace prefixroute::scenario_detail
