#include "prefixroute/policies/policy_spec.h"

namespace prefixroute {

std::span<const double> PolicyParameters::of(const PolicySpec& spec) const {
  const auto it = values_.find(spec.name());
  return it == values_.end() ? std::span<const double>(spec.defaults) : std::span<const double>(it->second);
}

void PolicyParameters::set(const PolicySpec& spec, std::size_t param, double value) {
  auto it = values_.find(spec.name());
  if (it == values_.end()) it = values_.emplace(std::string(spec.name()), spec.defaults).first;
  if (param < it->second.size()) it->second[param] = value;
  // Values equal to the defaults are not kept: equal parameters compare equal
  // however they were reached.
  if (it->second == spec.defaults) values_.erase(it);
}

}  // namespace prefixroute
