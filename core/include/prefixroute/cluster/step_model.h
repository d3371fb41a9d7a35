// StepModel: how long one engine step takes, from the work it does.
//
// A step runs a batch: chunks of prompts being prefilled and sequences
// decoding one token each. Its time is a roofline with a fixed overhead:
//
//   step = t0 + max(compute, memory)
//   compute = tokens / R  +  k_att x pairs
//   memory  = W + X x (1 - (1 - s)^tokens)  +  kv x context
//
//   tokens   new tokens computed in the step (prefill chunk tokens + one per
//            decoding sequence); R the linear-layer rate (tokens/s)
//   pairs    attention (query, key) pairs: a chunk of n new tokens after ctx
//            computed ones has n x (ctx + n/2) (causal within the chunk); a
//            decode token has ctx + 1/2
//   W        time to read the weights every step reads (a dense model: all)
//   X, s     a mixture-of-experts model's routed experts: time to read all of
//            them, and the share of them one token selects (k / E); a step of
//            b tokens reads the expected share 1 - (1 - s)^b (0 for dense)
//   kv       time to read one token of KV; context = the KV tokens the step
//            reads and writes, summed over its sequences (ctx + n)
//   t0       fixed per-step cost (scheduling, kernel launches, sampling, and
//            with tensor parallelism the all-reduces)
//
// Every term is a raw scenario field (cluster.step_overhead_ms,
// cluster.prefill_tokens_per_s, cluster.attention_ns_per_token_pair,
// cluster.weight_read_ms, cluster.expert_read_ms,
// cluster.expert_share_per_token, cluster.kv_read_ns_per_token), derived from
// a model and GPU preset when hardware.model is set (sim/hardware.h). With
// every term but R at 0 (the defaults) a step of n tokens takes exactly
// llround(n x 1e9 / R) ticks: the seed's linear prefill (PrefillModel), which
// is what keeps the fifo engine's results unchanged.
//
// Determinism: + - * / and one llround, all exactly rounded, and (1 - s)^b by
// repeated squaring: the same ticks on every platform.
// Cost: O(log tokens) per step (the power), O(1) without experts.
#pragma once

#include <cstdint>

#include "prefixroute/base/time.h"
#include "prefixroute/cluster/prefill_model.h"

namespace prefixroute {

/// One step's work, summed over the sequences it runs.
struct StepLoad {
  std::uint64_t tokens = 0;      ///< new tokens computed
  std::uint64_t pairs2 = 0;      ///< twice the attention pairs: sum of n x (2 ctx + n)
  std::uint64_t context = 0;     ///< KV tokens read and written: sum of ctx + n

  /// Adds a sequence computing `n` new tokens after `ctx` computed ones.
  void add(std::uint64_t n, std::uint64_t ctx) {
    tokens += n;
    pairs2 += n * (2 * ctx + n);
    context += ctx + n;
  }
};

/// The step-time terms besides the linear rate (which is PrefillModel, shared
/// with the policies' own estimates). All zero by default.
struct StepCosts {
  double overhead_ms = 0;                  ///< t0
  double attention_ns_per_token_pair = 0;  ///< k_att
  double weight_read_ms = 0;               ///< W
  double expert_read_ms = 0;               ///< X
  double expert_share_per_token = 0;       ///< s, in [0, 1]
  double kv_read_ns_per_token = 0;         ///< kv

  bool operator==(const StepCosts&) const = default;
};

struct StepModel {
  /// The longest step step_ticks reports (1e15 ns, 11.6 days).
  static constexpr double kMaxStepNs = 1e15;

  PrefillModel linear;  ///< R
  StepCosts costs;

  /// Ticks of a step doing `load`; at least 1 when it computes any token.
  Tick step_ticks(const StepLoad& load) const;
  /// The compute and memory terms of step_ticks, in ns, before t0 and rounding.
  double compute_ns(const StepLoad& load) const;
  double memory_ns(const StepLoad& load) const;
  /// One prompt prefilled alone in one step: `uncached` new tokens after
  /// `cached` ones. With the default costs, exactly PrefillModel's ticks
  /// (0 for 0 tokens).
  Tick prefill_ticks(std::uint64_t uncached, std::uint64_t cached) const;
};

}  // namespace prefixroute
