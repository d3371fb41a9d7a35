// The policy catalogue: every routing policy prefixroute knows, in report
// order, as specs (policy_spec.h). The scenario schema, the JSON Schema, the
// field table (docs/reference/scenario.md), the results JSON's labels and the module's
// policyCatalogue() are all generated from it.
//
// The built-in policies are listed once, in core/src/policies/catalogue.cpp.
// A program (or a test) may add its own with register_policy() before it
// parses or runs any scenario: a registered policy is a policy like the
// others (its fields appear in the schema, "all" runs it, results name it).
//
// Thread safety: the catalogue is read-only once registration is over;
// register_policy() must not run concurrently with anything that reads it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/routing_policy.h"

namespace prefixroute {

/// Every known policy, in report order: the built-in ones, then the registered.
const std::vector<const PolicySpec*>& policy_catalogue();

/// The spec named `name`, or null.
const PolicySpec* find_policy(std::string_view name);

/// Whether `name` is in the catalogue.
bool is_known_policy(std::string_view name);

/// Adds `spec` (which must outlive the catalogue: a function-local static, as
/// the built-in specs are) at the end of the catalogue. Returns "" on success,
/// else why it was refused: a name that is not [a-z][a-z0-9_]* (at most 40
/// characters), a name already taken (by a policy or a scenario section), a
/// parameter key that is not [a-z][a-z0-9_]* or repeats, a range that is
/// empty or contains no default, a missing factory.
std::string register_policy(const PolicySpec& spec);

/// Changes whenever the catalogue does (a registration), so tables derived
/// from it (the scenario's fields) know when to rebuild.
std::uint64_t catalogue_generation();

/// A fresh instance of `spec`'s policy with `values` (its parameters' values,
/// as PolicyParameters::of gives them) and `context`.
std::unique_ptr<RoutingPolicy> make_policy(const PolicySpec& spec, std::span<const double> values,
                                           const PolicyContext& context);

/// A fresh instance of the catalogue's policy `name` with its parameters from
/// `params` and `context`; null when no policy has that name.
std::unique_ptr<RoutingPolicy> make_policy(std::string_view name, const PolicyParameters& params,
                                           const PolicyContext& context);

/// context.router.instances fresh instances of policy `name` (one per router
/// replica; at least one); empty when no policy has that name. Instance 0 gets
/// context.seed, so one instance is exactly make_policy(); instance k > 0 gets a
/// seed mixed from it and k, so seeded policies draw independent streams per
/// router.
std::vector<std::unique_ptr<RoutingPolicy>> make_router_instances(std::string_view name,
                                                                  const PolicyParameters& params,
                                                                  const PolicyContext& context);

/// The policy prefixroute recommends: the built-in policy with the smallest
/// worst-case p99 TTFT regret over the grid (scripts/grid.mjs writes
/// docs/grid.json; scripts/grid_regret.mjs computes the regrets and generates
/// this mark from it). Always a built-in policy's name.
std::string_view recommended_policy();

/// That policy's worst-case p99 TTFT regret over the grid: its p99 over the best
/// policy's, minus one, in the cell where that ratio is largest (0.5: 50 % worse).
double recommended_policy_worst_regret();

/// The catalogue as JSON: [{ "name", "label", "description",
/// "colours": {"light", "dark"}, "params": ["<name>.<key>", ...],
/// "recommended": true|false }, ...], what the module's policyCatalogue()
/// returns; exactly one entry is recommended, and it alone also carries
/// "worst_p99_regret" (recommended_policy_worst_regret()).
std::string policy_catalogue_json();

}  // namespace prefixroute
