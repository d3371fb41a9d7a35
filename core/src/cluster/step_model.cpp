#include "prefixroute/cluster/step_model.h"

#include <algorithm>
#include <cmath>

namespace prefixroute {
namespace {

// x^n by repeated squaring: only multiplications, so the same bits everywhere.
double power(double x, std::uint64_t n) {
  double result = 1.0;
  while (n > 0) {
    if (n & 1u) result *= x;
    x *= x;
    n >>= 1;
  }
  return result;
}

}  // namespace

double StepModel::compute_ns(const StepLoad& load) const {
  // The linear term first, as PrefillModel computes it: with every other
  // term 0 the sum is that very double (adding +0.0 is exact).
  const double rate_ns = static_cast<double>(load.tokens) * 1e9 / linear.tokens_per_s;
  return rate_ns + costs.attention_ns_per_token_pair * (static_cast<double>(load.pairs2) * 0.5);
}

double StepModel::memory_ns(const StepLoad& load) const {
  double ns = costs.weight_read_ms * 1e6 + costs.kv_read_ns_per_token * static_cast<double>(load.context);
  if (costs.expert_read_ms > 0 && load.tokens > 0) {
    const double untouched = power(1.0 - costs.expert_share_per_token, load.tokens);
    ns += costs.expert_read_ms * 1e6 * (1.0 - untouched);
  }
  return ns;
}

Tick StepModel::step_ticks(const StepLoad& load) const {
  // At most kMaxStepNs: a step longer than 11 days means settings no scenario
  // validation lets through, and llround must stay within a Tick.
  const double ns = std::min(costs.overhead_ms * 1e6 + std::max(compute_ns(load), memory_ns(load)), kMaxStepNs);
  const Tick ticks = std::llround(ns);
  return load.tokens > 0 ? std::max<Tick>(1, ticks) : ticks;
}

Tick StepModel::prefill_ticks(std::uint64_t uncached, std::uint64_t cached) const {
  if (costs == StepCosts{}) return linear.prefill_ticks(uncached);  // the seed's model, bit for bit
  StepLoad load;
  load.add(uncached, cached);
  return step_ticks(load);
}

}  // namespace prefixroute
