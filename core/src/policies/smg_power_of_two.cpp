#include "prefixroute/policies/smg_power_of_two.h"

namespace prefixroute {

const PolicySpec& smg_power_of_two_policy_spec() {
  static const PolicySpec spec = policy_spec<SmgLeastLoadParams>(
      {"smg_power_of_two", "SGLang gateway power-of-two",
       "SGLang model gateway power_of_two: the lower expected wait of two replicas drawn at random.",
       {"#86198f", "#f0abfc"}},
      smg_least_load_param_rows(),
      [](const SmgLeastLoadParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<SmgExpectedWait>(p, SmgExpectedWait::Candidates::PowerOfTwo, context.seed,
                                                 context.cluster.prefill.tokens_per_s);
      });
  return spec;
}

}  // namespace prefixroute
