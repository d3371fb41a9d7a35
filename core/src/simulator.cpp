#include "prefixroute/simulator.h"

namespace prefixroute {

SimulationRun simulate(const RequestTrace& trace, const ClusterConfig& cluster,
                       RoutingPolicy& policy, const ProgressCallback& progress,
                       std::uint64_t progress_every) {
  std::vector<Replica> replicas;
  replicas.reserve(cluster.replicas);
  for (std::uint32_t i = 0; i < cluster.replicas; ++i)
    replicas.emplace_back(RadixCache(cluster.cache_tokens, cluster.protect_after_hits));

  const std::size_t n = trace.size();
  SimulationRun run;
  run.ttft.reserve(n);
  run.replica_of.reserve(n);
  run.cached_of.reserve(n);
  std::vector<Token> prompt;
  for (std::size_t i = 0; i < n; ++i) {
    if (progress && i > 0 && i % progress_every == 0 && !progress(i)) {
      run.cancelled = true;
      break;
    }
    trace.materialize(i, prompt);
    const Tick now = trace.arrival(i);
    const std::size_t chosen = policy.choose(prompt, replicas, now);
    const Replica::Admission a = replicas[chosen].admit(prompt, now, cluster.prefill);
    run.ttft.push_back(a.first_token - now);
    run.replica_of.push_back(static_cast<std::uint32_t>(chosen));
    run.cached_of.push_back(static_cast<std::uint32_t>(a.cached_tokens));
  }
  for (const Replica& r : replicas)
    run.replicas.push_back({r.requests(), r.prefill_tokens(), r.cached_tokens(), r.busy_ticks()});
  return run;
}

}  // namespace prefixroute
