// The scenario's field table, with how each field is read and written on a
// Scenario: the fixed sections' rows, and one row per parameter of every
// policy in the catalogue. Internal to core/src; scenario_fields() publishes
// the specs.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "prefixroute/scenario.h"

namespace prefixroute::scenario_detail {

/// A field and its accessors. Numbers (Integer, Number) travel as double:
/// every allowed integer is below 2^53, so exact. Text fields read and write
/// text (a policy's choice parameter maps its text to the choice's index).
struct Field {
  FieldSpec spec;
  std::function<double(const Scenario&)> get;
  std::function<void(Scenario&, double)> set;
  std::function<std::string(const Scenario&)> get_text;
  std::function<void(Scenario&, const std::string&)> set_text;
  int derived = -1;  ///< index in kDerivableFields, or -1
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

/// Why a replayed trace refuses replicates > 1 (the `replicates` field's
/// message, for a scenario naming a trace and for check_replay).
std::string replicates_with_trace_message(std::uint32_t replicates);

}  // namespace prefixroute::scenario_detail
