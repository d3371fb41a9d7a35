// The discrete-event simulator of a disaggregated (prefill/decode) cluster:
// one policy, a prefill pool, a decode pool and their KV links, one trace.
//
// Per request, at its arrival (cluster/topology.h has the rules' sources):
//   1. the decode worker d is chosen by load (topology.decode_choice):
//      round_robin, least_loaded (fewest requests assigned and not completed,
//      lowest index on ties) or power_of_two (two distinct workers drawn from
//      the run's seeded generator, the less loaded, the first drawn on ties);
//   2. the split rule decides from d's cache (its engine cache's match):
//      never, always, llmd_prefix (split iff prompt - hit >= threshold) or
//      dynamo_isl (local iff prompt - hit < 2048 and < 0.7 x prompt);
//   3a. split: the policy chooses the prefill worker p among the prefill pool
//      (its ClusterView is the prefill pool alone: cache-aware policies get
//      their prefix credit there). p prefills the uncached part in its FIFO
//      queue (the fifo engine, decode off). When the prefill ends, d's cache
//      takes the prompt (insert, pinned) and reserves its output tokens (KV
//      reserved when the transfer starts), and the transfer of the prompt
//      tokens d did not already hold begins: setup latency, then the bytes
//      on d's link, shared equally with the transfers on it (sim/kv_link.h).
//      The first token is at the last byte: TTFT = prefill queue + prefill +
//      transfer (the decode worker emits it; vLLM's NIXL flow, where the
//      prefill request runs with max_tokens = 1 and the decode request
//      resumes from the sent KV).
//   3b. no split: d prefills the prompt itself in its own FIFO queue (local
//      prefill, as llm-d's decode pod does when the decider says no).
//   4. decode: output tokens x cluster.decode_ms_per_token after the first
//      token, beside the queue (the fifo engine's decode); then d unpins the
//      prompt and releases the outputs.
//
// Simplifications: the fifo engine only (no batching, no decode slow-down
// with batch size); the prefill worker's KV is freed at its prefill's end
// (vLLM holds it until read); the decode worker's cache counts the prompt as
// held from the transfer's start, so a later request can hit it before its
// bytes arrive; routers see the engines' caches (no KV-event lag), one router
// instance; a policy's router queue is not used (requests are routed on
// arrival); per-session figures are not tallied.
//
// Event order at one tick: the prefill engine's events, then the decode
// pool's (transfer setups, link finishes, first tokens, completions; by the
// order they were scheduled), then arrivals. Determinism as simulate().
//
// Cost: O(N (policy cost + L log F + D + log E)) for N requests of L tokens,
// D decode replicas and E pending events. Memory: the run's per-request
// results (as simulate()'s), 4 bytes a request more, and one record per
// request in flight.
#pragma once

#include "prefixroute/cluster/topology.h"
#include "prefixroute/sim/simulator.h"

namespace prefixroute {

/// Runs `policy` over the prefill pool of `pools` on the requests of
/// `source`. `seed` seeds power_of_two's draws. The result's replicas are the
/// prefill pool's then the decode pool's; replica_of is the decode worker
/// (offset by the prefill pool's size); cached_of the prompt tokens that were
/// not prefilled (the prefill worker's hit, or the decode worker's on a
/// local prefill); pools has the two pools' figures.
SimulationRun simulate_disaggregated(RequestSource& source, const PoolClusters& pools,
                                     const TopologySettings& topology, RoutingPolicy& policy, std::uint64_t seed,
                                     const ProgressCallback& progress = {}, std::uint64_t progress_every = 4096,
                                     const RouterConfig& router = {});

}  // namespace prefixroute
