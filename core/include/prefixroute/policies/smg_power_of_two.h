// smg_power_of_two: the SGLang model gateway's `power_of_two` policy
// (smg-project/smg : model_gateway/src/policies/power_of_two.rs): two
// distinct replicas drawn uniformly (seeded), the one with the lower expected
// wait as least_load scores it. The class, the rule, what it reads and every
// simplification are in smg_least_load.h (SmgExpectedWait with
// Candidates::PowerOfTwo). Only smg's default load metric (expected wait) is
// modelled, not its `requests` / `least_requests` variants.
// Cost: O(1) per request plus O(R) at each poll.
#pragma once

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/policies/smg_least_load.h"

namespace prefixroute {

/// smg power_of_two's entry in the policy catalogue.
const PolicySpec& smg_power_of_two_policy_spec();

}  // namespace prefixroute
