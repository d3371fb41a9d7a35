// PolicySpec: everything prefixroute knows about one routing policy, kept
// beside its code: its name, label, one-line description and colours, its
// tunable parameters, and how to build it.
//
// Everything else is generated from the specs in the catalogue
// (catalogue.h): the scenario's fields `<name>.<param>` with their ranges,
// defaults, units and help; the JSON Schema; the field table (docs/reference/scenario.md); the
// page's policy checkboxes, colours and parameter controls; the results
// JSON's labels. So adding a policy touches its own files, one line of the
// catalogue and its test (docs/contributing/adding-a-policy.md).
//
// Parameters follow one convention. A policy has a plain struct of its
// parameters whose default member initialisers are the published defaults
// (`struct DynamoKvParams { std::uint32_t block_size = 16; ... }`); its spec
// lists them with param<&Params::member>(...), which binds each row to its
// member; policy_spec<Params>(...) takes the defaults from `Params{}` and
// wraps the factory so that it receives a filled-in `Params`. A policy
// without parameters uses NoParams.
//
//   const PolicySpec& RoundRobin::spec() {
//     static const PolicySpec spec = policy_spec<NoParams>(
//         {"round_robin", "Round robin", "Replicas in turn.", {"#8792a2", "#9aa5b5"}}, {},
//         [](const NoParams&, const PolicyContext&) -> std::unique_ptr<RoutingPolicy> {
//           return std::make_unique<RoundRobin>();
//         });
//     return spec;
//   }
//
// Values travel as double (every allowed integer is below 2^53, so exact);
// a choice parameter's value is the index of its choice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "prefixroute/policies/routing_policy.h"
#include "prefixroute/cluster/cluster_config.h"

namespace prefixroute {

enum class ParamKind : std::uint8_t {
  Integer,  ///< a whole number in [min, max]
  Number,   ///< a finite number in [min, max]
  Choice,   ///< one of `choices` (comma-separated), written as text; the value is its index
};

/// One tunable parameter of a policy: the row the scenario field
/// `<policy>.<key>` is generated from.
struct ParamSpec {
  std::string_view key;    ///< within the policy's section, e.g. "load_slack_s"
  std::string_view label;  ///< short human name, e.g. "Load slack"
  ParamKind kind = ParamKind::Number;
  double min = 0;          ///< allowed range, inclusive (Integer, Number)
  double max = 0;
  std::string_view unit;   ///< "s", "tokens", ... ("" = none)
  std::string_view help;   ///< one sentence: what it does
  std::string_view choices = {};  ///< Choice: the allowed texts, comma-separated
  /// Reads and writes the member of the policy's Params struct (type-erased:
  /// the pointer is always to the Params type of the spec that holds this row).
  double (*get)(const void* params) = nullptr;
  void (*set)(void* params, double value) = nullptr;
};

/// What a policy may know of the scenario besides its own parameters.
struct PolicyContext {
  std::uint64_t seed = 0;  ///< the scenario seed (a policy derives its own random stream)
  ClusterConfig cluster;
  RouterConfig router;
};

/// The size of what a run routes, for memory estimates.
struct RoutedSize {
  double requests = 0;
  double prompt_tokens = 0;  ///< summed over the requests
  double prompt_pieces = 0;  ///< content pieces of the prompts, summed (PromptPieces)
};

/// The policy's colour in charts and swatches (CSS hex), on a light and a dark page.
struct PolicyColours {
  std::string_view light;
  std::string_view dark;
};

/// Who the policy is, for people: the fixed part of a spec.
struct PolicyIdentity {
  std::string_view name;         ///< as in scenarios and results JSON: [a-z][a-z0-9_]*
  std::string_view label;        ///< for tables and charts
  std::string_view description;  ///< one line: what it does
  PolicyColours colours;
};

/// A policy's spec. Invariant: defaults.size() == params.size(), and
/// make(values, context) accepts any values within the params' ranges.
///
/// The factory and the state estimate are held as plain function pointers
/// (a per-Params thunk plus the policy's own function), not std::function:
/// one small function per policy instead of a type-erased closure copying the
/// parameter rows, which keeps the WebAssembly module small.
struct PolicySpec {
  /// A policy's own function, type-erased; only its thunk calls it, cast back
  /// to the type it was stored from.
  using ErasedFunction = void (*)();

  PolicyIdentity identity;
  std::vector<ParamSpec> params;
  std::vector<double> defaults;  ///< params' values in a default-constructed Params

  std::string_view name() const { return identity.name; }
  std::string_view label() const { return identity.label; }

  /// The policy with these parameter values (in params' order).
  std::unique_ptr<RoutingPolicy> make(std::span<const double> values, const PolicyContext& context) const {
    return make_thunk(*this, values, context);
  }
  /// Whether the policy estimates its own state (state_bytes).
  bool has_state_estimate() const { return state_thunk != nullptr; }
  /// An upper estimate of the heap the policy's own state can reach on a
  /// run of `size` (beyond what every run holds: caches, results, and one
  /// tree of the routed prompts, which estimated_peak_bytes counts for all);
  /// 0 for a policy whose state is small. Checked against measured heap
  /// use in tests/experiment_memory_test.cpp.
  double state_bytes(std::span<const double> values, const PolicyContext& context, const RoutedSize& size) const {
    return state_thunk != nullptr ? state_thunk(*this, values, context, size) : 0.0;
  }

  // Set by policy_spec<Params>().
  std::unique_ptr<RoutingPolicy> (*make_thunk)(const PolicySpec&, std::span<const double>, const PolicyContext&) =
      nullptr;
  double (*state_thunk)(const PolicySpec&, std::span<const double>, const PolicyContext&, const RoutedSize&) = nullptr;
  ErasedFunction make_function = nullptr;
  ErasedFunction state_function = nullptr;
};

/// The Params of a policy without parameters.
struct NoParams {};

namespace detail {
template <typename T>
struct MemberOf;
template <typename C, typename M>
struct MemberOf<M C::*> {
  using Class = C;
  using Type = M;
};
}  // namespace detail

/// A parameter row bound to `Member` (a pointer to a data member of the
/// policy's Params struct). Integral members are Integer parameters, floating
/// ones Number; `min`/`max` bound the values a scenario may give.
template <auto Member>
ParamSpec param(std::string_view key, std::string_view label, double min, double max, std::string_view unit,
                std::string_view help) {
  using Params = typename detail::MemberOf<decltype(Member)>::Class;
  using T = typename detail::MemberOf<decltype(Member)>::Type;
  static_assert(std::is_arithmetic_v<T>, "param<>: use choice<> for an enum member");
  ParamSpec p{key, label, std::is_integral_v<T> ? ParamKind::Integer : ParamKind::Number, min, max, unit, help};
  p.get = [](const void* params) { return static_cast<double>(static_cast<const Params*>(params)->*Member); };
  p.set = [](void* params, double v) { static_cast<Params*>(params)->*Member = static_cast<T>(v); };
  return p;
}

/// A choice parameter bound to `Member`, an enum (or integer) whose values
/// 0, 1, ... are the comma-separated `choices` in order.
template <auto Member>
ParamSpec choice(std::string_view key, std::string_view label, std::string_view choices, std::string_view help) {
  using Params = typename detail::MemberOf<decltype(Member)>::Class;
  using T = typename detail::MemberOf<decltype(Member)>::Type;
  ParamSpec p{key, label, ParamKind::Choice, 0, 0, "", help, choices};
  p.get = [](const void* params) { return static_cast<double>(static_cast<const Params*>(params)->*Member); };
  p.set = [](void* params, double v) { static_cast<Params*>(params)->*Member = static_cast<T>(static_cast<int>(v)); };
  return p;
}

namespace detail {
template <typename Params>
using MakeFunction = std::unique_ptr<RoutingPolicy> (*)(const Params&, const PolicyContext&);
template <typename Params>
using StateFunction = double (*)(const Params&, const PolicyContext&, const RoutedSize&);

/// A Params filled from `values` through the spec's parameter rows.
template <typename Params>
Params fill_params(const PolicySpec& spec, std::span<const double> values) {
  Params filled{};
  for (std::size_t i = 0; i < spec.params.size() && i < values.size(); ++i) spec.params[i].set(&filled, values[i]);
  return filled;
}

template <typename Params>
std::unique_ptr<RoutingPolicy> make_thunk(const PolicySpec& spec, std::span<const double> values,
                                          const PolicyContext& context) {
  const auto make = reinterpret_cast<MakeFunction<Params>>(spec.make_function);
  return make(fill_params<Params>(spec, values), context);
}

template <typename Params>
double state_thunk(const PolicySpec& spec, std::span<const double> values, const PolicyContext& context,
                   const RoutedSize& size) {
  const auto state = reinterpret_cast<StateFunction<Params>>(spec.state_function);
  return state(fill_params<Params>(spec, values), context, size);
}
}  // namespace detail

/// Builds a spec whose factory (and state estimate, when given) receives a
/// `Params` filled from the values.
template <typename Params>
PolicySpec policy_spec(PolicyIdentity identity, std::vector<ParamSpec> params, detail::MakeFunction<Params> make,
                       detail::StateFunction<Params> state_bytes = nullptr) {
  PolicySpec spec;
  spec.identity = identity;
  const Params defaults{};
  for (const ParamSpec& p : params) spec.defaults.push_back(p.get(&defaults));
  spec.params = std::move(params);
  spec.make_function = reinterpret_cast<PolicySpec::ErasedFunction>(make);
  spec.make_thunk = &detail::make_thunk<Params>;
  if (state_bytes != nullptr) {
    spec.state_function = reinterpret_cast<PolicySpec::ErasedFunction>(state_bytes);
    spec.state_thunk = &detail::state_thunk<Params>;
  }
  return spec;
}

/// Every policy's parameter values, by policy name, in the order of its
/// spec's params. A policy never set has its spec's defaults. Cost: a map
/// lookup by name (read when a scenario is parsed, written or run, never
/// while a simulation runs).
class PolicyParameters {
 public:
  /// The values of `spec`'s parameters.
  std::span<const double> of(const PolicySpec& spec) const;
  /// Sets parameter `param` of `spec` (index into spec.params).
  void set(const PolicySpec& spec, std::size_t param, double value);

  bool operator==(const PolicyParameters& other) const = default;

 private:
  std::map<std::string, std::vector<double>, std::less<>> values_;
};

}  // namespace prefixroute
