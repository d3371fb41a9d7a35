// WorkloadConfig: the scenario's `workload` section, for every kind of
// synthetic workload.
//
//   kind       generator                       its own parameters
//   tenants    Workload (workload.h)           the fields of WorkloadConfig itself
//   sessions   SessionWorkload (session_workload.h), one call per turn
//   agentic    SessionWorkload, several calls per turn      SessionParams
//   gsp        GspWorkload (gsp_workload.h)                 GspParams
//   shared_prefix      SharedPrefixWorkload (shared_prefix_workload.h)  SharedPrefixParams
//   prefix_repetition  SharedPrefixWorkload                              PrefixRepetitionParams
//   cumulative         CumulativeWorkload (cumulative_workload.h)        CumulativeParams
//
// The tenants kind (the default) reads requests, tenants, zipf_s,
// arrival_rate_per_s, the prefix, turn and output lengths and vocab_size.
// sessions and agentic read requests, tenants, zipf_s, prefix_tokens_*
// (each tenant's system prompt), turn_tokens_* (each user message) and
// vocab_size, plus SessionParams; gsp reads arrival_rate_per_s and
// vocab_size, plus GspParams; shared_prefix reads requests,
// arrival_rate_per_s and vocab_size, plus SharedPrefixParams;
// prefix_repetition the same with PrefixRepetitionParams; cumulative reads
// what the sessions kind reads for its conversations' prompts (but neither
// their timing nor compaction), requests, arrival_rate_per_s and
// CumulativeParams. A kind ignores every other field (the field table's help
// says which kinds read each field).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "prefixroute/workload/length_spread.h"

namespace prefixroute {

/// The kinds of synthetic workload, as the scenario's `workload.kind` names them.
inline constexpr std::string_view kWorkloadKinds =
    "tenants,sessions,agentic,gsp,shared_prefix,prefix_repetition,cumulative";

/// Largest total prompt tokens (requests x longest prompt) a scenario or a
/// trace may hold, and largest tenant-prefix storage; both refused before any
/// allocation. The longest prompt is the workload kind's (synthetic.h): prefix
/// + turn for tenants, system prompt + question for gsp, and for the session
/// kinds, whose prompts re-send a growing history, the longest prompt
/// compaction allows or the longest session can grow to
/// (SessionWorkload::max_prompt_tokens).
inline constexpr double kMaxTotalPromptTokens = 2e10;
inline constexpr double kMaxPrefixStorageTokens = 5e7;
/// Most requests of a gsp workload (num_groups x prompts_per_group), as
/// workload.requests allows for the other kinds.
inline constexpr double kMaxGspRequests = 1e7;
/// Most prompts of a pool (shared_prefix: num_groups x prompts per group).
inline constexpr double kMaxPoolPrompts = 1e7;

/// Multi-turn sessions: conversations (kind "sessions") and agent loops
/// (kind "agentic"). Defaults: the agentic kind calibrated to GitHub's 2026
/// Copilot coding-agent dataset (3.95 turns per session, 7.83 LLM calls per
/// turn, 85.7 % of prompt tokens cached; see session_workload.h and
/// tests/workload/copilot_calibration_test.cpp). Token lengths are scaled to
/// the reference cluster (a mean prompt of about 3,000 tokens, not
/// Copilot's 68,000).
struct SessionParams {
  double session_rate_per_s = 0.5;           ///< Poisson rate of session starts
  double turns_mean = 3.95;                  ///< user turns per session (geometric)
  double think_s_mean = 30.0;                ///< user think time before a turn (exponential)
  double calls_per_turn = 7.83;              ///< agentic: LLM calls per turn (geometric); sessions: 1
  double tool_s_mean = 2.0;                  ///< agentic: tool wait before a follow-up call (exponential)
  std::uint32_t tool_tokens_min = 100;       ///< agentic: tool result length, uniform
  std::uint32_t tool_tokens_max = 500;
  std::uint32_t reply_tokens_min = 50;       ///< model output of a call, uniform; part of the next prompt
  std::uint32_t reply_tokens_max = 250;
  std::uint32_t context_tokens_max = 5400;   ///< longer prompts are compacted (summary_tokens)
  std::uint32_t summary_tokens = 500;        ///< length of a compaction's summary
  double nominal_tpot_ms = 20.0;             ///< nominal decode time per output token (timing only)

  bool operator==(const SessionParams&) const = default;
};

/// SGLang's `generated-shared-prefix` benchmark (bench_serving.py, --dataset-name
/// generated-shared-prefix): its defaults.
struct GspParams {
  std::uint32_t num_groups = 64;
  std::uint32_t prompts_per_group = 16;
  std::uint32_t system_prompt_len = 2048;
  std::uint32_t question_len = 128;
  std::uint32_t output_len = 256;

  bool operator==(const GspParams&) const = default;
};

/// How a pool's prompts are sent: `Cycle` shuffles the pool once and sends
/// it in that order again and again (inference-perf); `Random` draws each
/// request's prompt uniformly from the pool, with replacement.
enum class PoolOrder : std::uint8_t { Cycle, Random };

/// inference-perf's `shared_prefix` data generator (data.shared_prefix):
/// its defaults. Multi-turn is its enable_multi_turn_chat.
struct SharedPrefixParams {
  std::uint32_t num_groups = 10;
  std::uint32_t prompts_per_group = 10;   ///< num_prompts_per_group
  LengthSpread system_prompt{100, 0, 0, 1000000};
  LengthSpread question{50, 0, 1, 1000000};
  LengthSpread output{50, 0, 0, 1000000};
  PoolOrder order = PoolOrder::Cycle;
  bool multi_turn = false;

  bool operator==(const SharedPrefixParams&) const = default;
};

/// vLLM's `prefix_repetition` dataset (PrefixRepetitionRandomDataset): its
/// defaults. The number of prompts is workload.requests (--num-prompts).
struct PrefixRepetitionParams {
  std::uint32_t prefix_len = 256;
  std::uint32_t suffix_len = 256;
  std::uint32_t num_prefixes = 10;
  std::uint32_t output_len = 128;

  bool operator==(const PrefixRepetitionParams&) const = default;
};

/// KubeAI's modified vLLM benchmark_serving.py (chat-py): conversations cut
/// into cumulative prompts, pooled, shuffled and sent as independent
/// requests. Defaults: the published run (--max-conversations=800, prompts
/// over 8,192 tokens pruned).
struct CumulativeParams {
  /// Prompts in the pool: KubeAI's --max-conversations, which keeps the
  /// first this many prompts of the conversation-ordered list (the last
  /// conversation cut there), not this many conversations.
  std::uint32_t pool_prompts = 800;
  std::uint32_t max_prompt_tokens = 8192;  ///< longer prompts are never sent

  bool operator==(const CumulativeParams&) const = default;
};

struct WorkloadConfig {
  std::string kind = "tenants";  ///< one of kWorkloadKinds
  std::uint64_t requests = 4000;
  std::uint32_t tenants = 12;
  // Defaults: the reference scenario, calibrated so the benchmark lands near
  // the original write-up's published table (see README, "Reference benchmark").
  double zipf_s = 1.29;
  double arrival_rate_per_s = 100.0;
  std::uint32_t prefix_tokens_min = 700;
  std::uint32_t prefix_tokens_max = 880;
  std::uint32_t turn_tokens_min = 80;
  std::uint32_t turn_tokens_max = 125;
  std::uint32_t vocab_size = 32000;
  /// Output (decode) tokens per request, uniform in [min, max]; used only
  /// when the cluster decodes (cluster.decode_ms_per_token > 0).
  std::uint32_t output_tokens_min = 0;
  std::uint32_t output_tokens_max = 0;
  SessionParams sessions;  ///< kinds sessions and agentic
  GspParams gsp;           ///< kind gsp
  SharedPrefixParams shared_prefix;          ///< kind shared_prefix
  PrefixRepetitionParams prefix_repetition;  ///< kind prefix_repetition
  CumulativeParams cumulative;               ///< kind cumulative

  /// Equal settings generate equal workloads from equal seeds.
  bool operator==(const WorkloadConfig&) const = default;
};

}  // namespace prefixroute
