#include "prefixroute/policies/catalogue.h"

#include <algorithm>

#include "prefixroute/base/random.h"

#include <nlohmann/json.hpp>

namespace prefixroute {

// The built-in policies, in report order ("all" runs them in this order): one
// line each. X(name) names the policy; its spec is name##_policy_spec(),
// defined in core/src/policies/<name>.cpp (and declared in its header; the
// declarations below let this list be the only line a new policy adds here).
#define PREFIXROUTE_BUILTIN_POLICIES(X) \
  X(round_robin)                        \
  X(least_loaded)                       \
  X(affinity)                           \
  X(affinity_balanced)                  \
  X(expected_ttft)                      \
  X(dynamo_kv)                          \
  X(llmd_epp)                           \
  X(llmd_scheduler)                     \
  X(chwbl)                              \
  X(sglang_cache_aware)                 \
  X(preble_e2)                          \
  X(random)                             \
  X(lmetric)                            \
  X(smg_least_load)                     \
  X(smg_power_of_two)                   \
  X(aibrix_load_balance)                \
  X(aibrix_prefix)                      \
  X(gie_filter_chain)                   \
  X(prodstack_prefix)                   \
  X(session_sticky)                     \
  X(replicating_ttft)

// The recommended policy (catalogue.h) and its worst-case p99 TTFT regret: the
// built-in policy whose p99 is never as far above the best policy's over the
// grid's cells (docs/grid.json; docs/guide/routers.md, "The recommended policy
// across a grid", lists the regrets and the cells it loses). Generated from the
// committed grid, so the mark follows the data.
#include "recommended_policy.inc"

#define PREFIXROUTE_DECLARE(name) const PolicySpec& name##_policy_spec();
PREFIXROUTE_BUILTIN_POLICIES(PREFIXROUTE_DECLARE)
#undef PREFIXROUTE_DECLARE

namespace {

struct Catalogue {
  std::vector<const PolicySpec*> specs;
  std::uint64_t generation = 0;
};

Catalogue& catalogue() {
  static Catalogue c = [] {
    Catalogue built;
#define PREFIXROUTE_ADD(name) built.specs.push_back(&name##_policy_spec());
    PREFIXROUTE_BUILTIN_POLICIES(PREFIXROUTE_ADD)
#undef PREFIXROUTE_ADD
    return built;
  }();
  return c;
}

bool is_identifier(std::string_view text) {
  if (text.empty() || text.size() > 40 || !(text[0] >= 'a' && text[0] <= 'z')) return false;
  for (const char c : text)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Top-level scenario sections that are not policies: a policy may not take
// one of their names (its parameters would land in that section).
constexpr std::string_view kReservedSections[] = {"schema_version", "seed",  "workload", "cluster",
                                                  "router",         "trace", "policies", "all"};

}  // namespace

const std::vector<const PolicySpec*>& policy_catalogue() { return catalogue().specs; }

std::string_view recommended_policy() { return kRecommendedPolicy; }

double recommended_policy_worst_regret() { return kRecommendedWorstP99Regret; }

const PolicySpec* find_policy(std::string_view name) {
  for (const PolicySpec* spec : catalogue().specs)
    if (spec->name() == name) return spec;
  return nullptr;
}

bool is_known_policy(std::string_view name) { return find_policy(name) != nullptr; }

std::string register_policy(const PolicySpec& spec) {
  const std::string name(spec.name());
  if (!is_identifier(spec.name())) return "policy name \"" + name + "\" must match [a-z][a-z0-9_]* (at most 40 characters)";
  if (find_policy(spec.name()) != nullptr) return "a policy named \"" + name + "\" is already in the catalogue";
  for (const std::string_view reserved : kReservedSections)
    if (spec.name() == reserved) return "\"" + name + "\" is a scenario section, not a policy name";
  if (spec.make_thunk == nullptr) return "policy \"" + name + "\" has no factory";
  if (spec.defaults.size() != spec.params.size()) return "policy \"" + name + "\" has a default per parameter missing";
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const ParamSpec& p = spec.params[i];
    if (!is_identifier(p.key)) return name + "." + std::string(p.key) + ": a parameter key must match [a-z][a-z0-9_]*";
    for (std::size_t j = 0; j < i; ++j)
      if (spec.params[j].key == p.key) return name + "." + std::string(p.key) + ": listed twice";
    if (p.get == nullptr || p.set == nullptr) return name + "." + std::string(p.key) + ": not bound to a member";
    if (p.kind != ParamKind::Choice && !(p.min <= spec.defaults[i] && spec.defaults[i] <= p.max))
      return name + "." + std::string(p.key) + ": the default is outside [min, max]";
    if (p.kind == ParamKind::Choice && p.choices.empty())
      return name + "." + std::string(p.key) + ": a choice parameter needs its choices";
  }
  catalogue().specs.push_back(&spec);
  ++catalogue().generation;
  return "";
}

std::uint64_t catalogue_generation() { return catalogue().generation; }

std::unique_ptr<RoutingPolicy> make_policy(const PolicySpec& spec, std::span<const double> values,
                                           const PolicyContext& context) {
  return spec.make(values, context);
}

std::unique_ptr<RoutingPolicy> make_policy(std::string_view name, const PolicyParameters& params,
                                           const PolicyContext& context) {
  const PolicySpec* spec = find_policy(name);
  if (spec == nullptr) return nullptr;
  return make_policy(*spec, params.of(*spec), context);
}

std::vector<std::unique_ptr<RoutingPolicy>> make_router_instances(std::string_view name,
                                                                  const PolicyParameters& params,
                                                                  const PolicyContext& context) {
  std::vector<std::unique_ptr<RoutingPolicy>> instances;
  const PolicySpec* spec = find_policy(name);
  if (spec == nullptr) return instances;
  // Salt of the instances' seeds ("routers" in ASCII).
  constexpr std::uint64_t kInstanceSalt = 0x726f7574657273ULL;
  PolicyContext instance = context;
  for (std::uint32_t k = 0; k < std::max(1u, context.router.instances); ++k) {
    instance.seed = k == 0 ? context.seed : mix_seed(context.seed, kInstanceSalt + k);
    instances.push_back(make_policy(*spec, params.of(*spec), instance));
  }
  return instances;
}

std::string policy_catalogue_json() {
  using Json = nlohmann::ordered_json;
  Json list = Json::array();
  for (const PolicySpec* spec : policy_catalogue()) {
    Json entry = Json::object();
    entry["name"] = spec->name();
    entry["label"] = spec->label();
    entry["description"] = spec->identity.description;
    entry["colours"] = Json{{"light", spec->identity.colours.light}, {"dark", spec->identity.colours.dark}};
    Json params = Json::array();
    for (const ParamSpec& p : spec->params) params.push_back(std::string(spec->name()) + "." + std::string(p.key));
    entry["params"] = std::move(params);
    entry["recommended"] = spec->name() == kRecommendedPolicy;
    if (spec->name() == kRecommendedPolicy) entry["worst_p99_regret"] = kRecommendedWorstP99Regret;
    list.push_back(std::move(entry));
  }
  return list.dump();
}

}  // namespace prefixroute
