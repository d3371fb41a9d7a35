#include "scenario/fields.h"

#include <mutex>
#include <string_view>
#include <utility>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/cluster/hardware.h"

namespace prefixroute::scenario_detail {
namespace {

constexpr double kMaxSafeInteger = 9007199254740991.0;  // 2^53 - 1: exact in JSON and JS
// Router replicas at most: a deployment runs a handful; each instance holds
// its own policy state and a count per replica (memory N x replicas).
constexpr double kMaxRouterInstances = 256;

#define PR_FIELD(KEY, LABEL, KIND, MIN, MAX, UNIT, DESC, MEMBER, TYPE)                    \
  Field {                                                                                 \
    FieldSpec{KEY, LABEL, FieldKind::KIND, MIN, MAX, UNIT, DESC},                         \
        [](const Scenario& s) { return static_cast<double>(s.MEMBER); },                  \
        [](Scenario& s, double v) { s.MEMBER = static_cast<TYPE>(v); }, nullptr, nullptr \
  }

#define PR_TEXT(KEY, LABEL, DESC, CHOICES, MEMBER)                                   \
  Field {                                                                            \
    FieldSpec{KEY, LABEL, FieldKind::Text, 0, 0, "", DESC, CHOICES}, nullptr, nullptr, \
        [](const Scenario& s) { return s.MEMBER; },                                  \
        [](Scenario& s, const std::string& v) { s.MEMBER = v; }                      \
  }

// A raw field hardware.* can derive; its bit in Scenario::given is its
// index in kDerivableFields.
Field derivable(Field f) {
  f.spec.derivable = true;
  for (std::size_t i = 0; i < kDerivableCount; ++i)
    if (kDerivableFields[i] == f.spec.key) f.derived = static_cast<int>(i);
  return f;
}

// The workload kinds that read each workload field, as its help says (the
// schema's x-kinds: the page shows only the chosen kind's fields). A workload
// field not listed is read by every kind.
constexpr std::string_view kSharedPrefixKind = "shared_prefix";
constexpr std::pair<std::string_view, std::string_view> kWorkloadKinds[] = {
    {"workload.requests", "tenants,sessions,agentic,shared_prefix,prefix_repetition,cumulative"},
    {"workload.tenants", "tenants,sessions,agentic,cumulative"},
    {"workload.zipf_s", "tenants,sessions,agentic,cumulative"},
    {"workload.arrival_rate_per_s", "tenants,gsp,shared_prefix,prefix_repetition,cumulative"},
    {"workload.prefix_tokens_min", "tenants,sessions,agentic,cumulative"},
    {"workload.prefix_tokens_max", "tenants,sessions,agentic,cumulative"},
    {"workload.turn_tokens_min", "tenants,sessions,agentic,cumulative"},
    {"workload.turn_tokens_max", "tenants,sessions,agentic,cumulative"},
    {"workload.output_tokens_min", "tenants"},
    {"workload.output_tokens_max", "tenants"},
    {"workload.session_rate_per_s", "sessions,agentic"},
    {"workload.turns_mean", "sessions,agentic,cumulative"},
    {"workload.think_s_mean", "sessions,agentic"},
    {"workload.calls_per_turn", "agentic"},
    {"workload.tool_s_mean", "agentic"},
    {"workload.tool_tokens_min", "agentic"},
    {"workload.tool_tokens_max", "agentic"},
    {"workload.reply_tokens_min", "sessions,agentic,cumulative"},
    {"workload.reply_tokens_max", "sessions,agentic,cumulative"},
    {"workload.context_tokens_max", "sessions,agentic"},
    {"workload.summary_tokens", "sessions,agentic"},
    {"workload.nominal_tpot_ms", "sessions,agentic"},
    {"workload.gsp_num_groups", "gsp"},
    {"workload.gsp_prompts_per_group", "gsp"},
    {"workload.gsp_system_prompt_len", "gsp"},
    {"workload.gsp_question_len", "gsp"},
    {"workload.gsp_output_len", "gsp"},
    {"workload.prefix_repetition_prefix_len", "prefix_repetition"},
    {"workload.prefix_repetition_suffix_len", "prefix_repetition"},
    {"workload.prefix_repetition_num_prefixes", "prefix_repetition"},
    {"workload.prefix_repetition_output_len", "prefix_repetition"},
    {"workload.cumulative_pool_prompts", "cumulative"},
    {"workload.cumulative_max_prompt_tokens", "cumulative"},
};

void set_workload_kinds(std::vector<Field>& fields) {
  for (Field& f : fields) {
    for (const auto& [key, kinds] : kWorkloadKinds)
      if (f.spec.key == key) f.spec.kinds = kinds;
    if (f.spec.key.rfind("workload.shared_prefix_", 0) == 0) f.spec.kinds = kSharedPrefixKind;
  }
}

// The client kinds that read each client field, and the fields one needs
// given (the schema's x-client-kinds and x-client-needs). The single source
// of what fits which client: check_client refuses a value set where this
// says it is not read, and the page greys the field out. A client field not
// listed is read by every kind.
struct ClientFieldUse {
  std::string_view key, kinds, needs;
};
constexpr std::string_view kLoadedClients = "poisson,constant,closed";  // burst sends all at t = 0
constexpr ClientFieldUse kClientFieldUses[] = {
    {"client.rate_per_s", kLoadedClients, ""},
    {"client.concurrency", "closed", ""},
    {"client.think_s", "closed", ""},
    {"client.stages", kLoadedClients, ""},
    {"client.warmup", kLoadedClients, ""},
    {"client.stage_interval_s", kLoadedClients, "client.stages,client.warmup"},
};

void set_client_kinds(std::vector<Field>& fields) {
  for (Field& f : fields)
    for (const ClientFieldUse& use : kClientFieldUses)
      if (f.spec.key == use.key) {
        f.spec.client_kinds = use.kinds;
        f.spec.client_needs = use.needs;
      }
}

// The fixed sections before the policies' (seed, workload, cluster, router).
std::vector<Field> leading_fields() {
  return {
      PR_FIELD("seed", "Seed", Integer, 0, kMaxSafeInteger, "", "Seed of the workload generator.", seed,
               std::uint64_t),
      PR_FIELD("replicates", "Replicates", Integer, 1, kMaxReplicates, "runs",
               "Runs of the synthetic workload with seeds seed .. seed + replicates - 1; above 1 every metric is "
               "reported as a mean with its 95 % confidence interval (a replayed trace has one replicate).",
               replicates, std::uint32_t),
      PR_FIELD("workload.requests", "Requests", Integer, 1, 1e7, "requests",
               "Requests in the trace (tenants, sessions, agentic: the last session is cut there; shared_prefix and "
               "cumulative: prompts sent from the pool; prefix_repetition: vLLM's --num-prompts, rounded down to a "
               "multiple of the prefixes).",
               workload.requests, std::uint64_t),
      PR_FIELD("workload.tenants", "Tenants", Integer, 1, 1e5, "tenants",
               "Tenants, each with its own shared prompt prefix (tenants; sessions, agentic and cumulative: system "
               "prompts).",
               workload.tenants, std::uint32_t),
      PR_FIELD("workload.zipf_s", "Zipf skew", Number, 0, 10, "",
               "Zipf exponent of tenant popularity, 0 = uniform (tenants, sessions, agentic, cumulative).",
               workload.zipf_s,
               double),
      PR_FIELD("workload.arrival_rate_per_s", "Arrival rate", Number, 1e-3, 1e7, "requests/s",
               "Mean Poisson arrival rate of the whole cluster (tenants, gsp, shared_prefix, prefix_repetition, "
               "cumulative).",
               workload.arrival_rate_per_s,
               double),
      PR_FIELD("workload.prefix_tokens_min", "Prefix length, min", Integer, 0, 1e6, "tokens",
               "Shortest tenant prefix, drawn uniformly per tenant (tenants; sessions, agentic and cumulative: the "
               "system prompt).",
               workload.prefix_tokens_min, std::uint32_t),
      PR_FIELD("workload.prefix_tokens_max", "Prefix length, max", Integer, 0, 1e6, "tokens", "Longest tenant prefix.",
               workload.prefix_tokens_max, std::uint32_t),
      PR_FIELD("workload.turn_tokens_min", "Turn length, min", Integer, 1, 1e6, "tokens",
               "Shortest unique user turn, drawn uniformly per request (tenants; sessions, agentic and cumulative: "
               "each user message).",
               workload.turn_tokens_min, std::uint32_t),
      PR_FIELD("workload.turn_tokens_max", "Turn length, max", Integer, 1, 1e6, "tokens", "Longest unique user turn.",
               workload.turn_tokens_max, std::uint32_t),
      PR_FIELD("workload.vocab_size", "Vocabulary size", Integer, 2, 4294967295.0, "tokens",
               "Token ids are drawn from [0, vocab_size) (every kind).", workload.vocab_size, std::uint32_t),
      PR_FIELD("workload.output_tokens_min", "Output length, min", Integer, 0, 1e6, "tokens",
               "Shortest output (decode) length; used when cluster.decode_ms_per_token > 0 or cluster.engine = "
               "batched (tenants).",
               workload.output_tokens_min, std::uint32_t),
      PR_FIELD("workload.output_tokens_max", "Output length, max", Integer, 0, 1e6, "tokens", "Longest output length.",
               workload.output_tokens_max, std::uint32_t),
      PR_TEXT("workload.kind", "Workload kind",
              "tenants: one shared prefix per tenant plus one unique turn per request; sessions: multi-turn "
              "chats re-sending their history; agentic: agent loops of several LLM calls per turn; gsp: SGLang's "
              "generated-shared-prefix benchmark; shared_prefix: inference-perf's shared_prefix prompt pool, "
              "cycled; prefix_repetition: vLLM's prefix_repetition dataset; cumulative: chat conversations cut "
              "into cumulative prompts, pooled, shuffled and sent as independent requests (KubeAI's "
              "benchmark_serving). Each kind reads only the workload fields whose help names it.",
              "tenants,sessions,agentic,gsp,shared_prefix,prefix_repetition,cumulative", workload.kind),
      PR_FIELD("workload.session_rate_per_s", "Session rate", Number, 1e-3, 1e7, "sessions/s",
               "Mean Poisson arrival rate of new sessions (sessions, agentic).", workload.sessions.session_rate_per_s,
               double),
      PR_FIELD("workload.turns_mean", "Turns per session", Number, 1, 1000, "turns",
               "Mean user turns per session: geometric, capped at 20 x the mean (sessions, agentic; cumulative: "
               "turns per conversation).",
               workload.sessions.turns_mean, double),
      PR_FIELD("workload.think_s_mean", "Think time", Number, 0, 1e5, "s",
               "Mean user think time before a new turn, exponential, after the previous reply's nominal decode "
               "(sessions, agentic).",
               workload.sessions.think_s_mean, double),
      PR_FIELD("workload.calls_per_turn", "LLM calls per turn", Number, 1, 1000, "calls",
               "Mean LLM calls per user turn: geometric, capped at 20 x the mean (agentic; sessions: 1).",
               workload.sessions.calls_per_turn, double),
      PR_FIELD("workload.tool_s_mean", "Tool wait", Number, 0, 1e5, "s",
               "Mean tool wait before a turn's next call, exponential, after the reply's nominal decode (agentic).",
               workload.sessions.tool_s_mean, double),
      PR_FIELD("workload.tool_tokens_min", "Tool result, min", Integer, 0, 1e6, "tokens",
               "Shortest tool result, drawn uniformly per call after a turn's first (agentic).",
               workload.sessions.tool_tokens_min, std::uint32_t),
      PR_FIELD("workload.tool_tokens_max", "Tool result, max", Integer, 0, 1e6, "tokens", "Longest tool result.",
               workload.sessions.tool_tokens_max, std::uint32_t),
      PR_FIELD("workload.reply_tokens_min", "Reply length, min", Integer, 0, 1e6, "tokens",
               "Shortest model reply of a call, drawn uniformly: its output tokens (decoded when "
               "cluster.decode_ms_per_token > 0 or cluster.engine = batched), re-sent in the next prompt "
               "(sessions, agentic, cumulative).",
               workload.sessions.reply_tokens_min, std::uint32_t),
      PR_FIELD("workload.reply_tokens_max", "Reply length, max", Integer, 0, 1e6, "tokens", "Longest model reply.",
               workload.sessions.reply_tokens_max, std::uint32_t),
      PR_FIELD("workload.context_tokens_max", "Context window", Integer, 1, 1e7, "tokens",
               "A prompt that would exceed this is compacted: the history becomes a summary (sessions, agentic).",
               workload.sessions.context_tokens_max, std::uint32_t),
      PR_FIELD("workload.summary_tokens", "Summary length", Integer, 0, 1e6, "tokens",
               "Length of the summary that replaces a compacted history (sessions, agentic).",
               workload.sessions.summary_tokens, std::uint32_t),
      PR_FIELD("workload.nominal_tpot_ms", "Nominal decode time per token", Number, 0, 1e4, "ms",
               "The generator's stand-in for a reply's duration when timing the next call (open loop; the "
               "simulation's own decode is cluster.decode_ms_per_token, or the batched engine's steps) "
               "(sessions, agentic).",
               workload.sessions.nominal_tpot_ms, double),
      PR_FIELD("workload.gsp_num_groups", "Groups", Integer, 1, 1e6, "groups",
               "Groups, each with its own system prompt (gsp; SGLang's --gsp-num-groups).", workload.gsp.num_groups,
               std::uint32_t),
      PR_FIELD("workload.gsp_prompts_per_group", "Prompts per group", Integer, 1, 1e6, "requests",
               "Questions per group; the trace has groups x prompts per group requests, shuffled (gsp).",
               workload.gsp.prompts_per_group, std::uint32_t),
      PR_FIELD("workload.gsp_system_prompt_len", "System prompt length", Integer, 0, 1e6, "tokens",
               "Tokens of each group's system prompt (gsp).", workload.gsp.system_prompt_len, std::uint32_t),
      PR_FIELD("workload.gsp_question_len", "Question length", Integer, 1, 1e6, "tokens",
               "Tokens of each question (gsp).", workload.gsp.question_len, std::uint32_t),
      PR_FIELD("workload.gsp_output_len", "Output length", Integer, 0, 1e6, "tokens",
               "Output tokens of each request (gsp).", workload.gsp.output_len, std::uint32_t),
      PR_FIELD("workload.shared_prefix_num_groups", "Groups", Integer, 1, 1e6, "groups",
               "Groups, each with its own system prompt (shared_prefix; inference-perf's num_groups).",
               workload.shared_prefix.num_groups, std::uint32_t),
      PR_FIELD("workload.shared_prefix_num_prompts_per_group", "Prompts per group", Integer, 1, 1e6, "prompts",
               "Prompts per group, each with its own question; the pool holds groups x prompts per group "
               "(shared_prefix; inference-perf's num_prompts_per_group).",
               workload.shared_prefix.prompts_per_group, std::uint32_t),
      PR_FIELD("workload.shared_prefix_system_prompt_len", "System prompt length", Integer, 0, 1e6, "tokens",
               "Mean tokens of each group's system prompt, drawn per group (shared_prefix).",
               workload.shared_prefix.system_prompt.mean, std::uint32_t),
      PR_FIELD("workload.shared_prefix_system_prompt_len_std", "System prompt length, std dev", Number, 0, 1e6,
               "tokens",
               "Standard deviation of the normal each system prompt length is drawn from, then clipped into "
               "[min, max] and rounded; 0 = every group the mean (shared_prefix; inference-perf's Distribution "
               "std_dev).",
               workload.shared_prefix.system_prompt.std_dev, double),
      PR_FIELD("workload.shared_prefix_system_prompt_len_min", "System prompt length, min", Integer, 0, 1e6,
               "tokens", "Shortest system prompt: drawn lengths are clipped up to it (shared_prefix).",
               workload.shared_prefix.system_prompt.min, std::uint32_t),
      PR_FIELD("workload.shared_prefix_system_prompt_len_max", "System prompt length, max", Integer, 0, 1e6,
               "tokens", "Longest system prompt: drawn lengths are clipped down to it (shared_prefix).",
               workload.shared_prefix.system_prompt.max, std::uint32_t),
      PR_FIELD("workload.shared_prefix_question_len", "Question length", Integer, 1, 1e6, "tokens",
               "Mean tokens of each prompt's question, drawn per prompt (shared_prefix).",
               workload.shared_prefix.question.mean, std::uint32_t),
      PR_FIELD("workload.shared_prefix_question_len_std", "Question length, std dev", Number, 0, 1e6, "tokens",
               "Standard deviation of the normal each question length is drawn from, then clipped into [min, "
               "max] and rounded; 0 = every question the mean (shared_prefix).",
               workload.shared_prefix.question.std_dev, double),
      PR_FIELD("workload.shared_prefix_question_len_min", "Question length, min", Integer, 1, 1e6, "tokens",
               "Shortest question (shared_prefix).", workload.shared_prefix.question.min, std::uint32_t),
      PR_FIELD("workload.shared_prefix_question_len_max", "Question length, max", Integer, 1, 1e6, "tokens",
               "Longest question (shared_prefix).", workload.shared_prefix.question.max, std::uint32_t),
      PR_FIELD("workload.shared_prefix_output_len", "Output length", Integer, 0, 1e6, "tokens",
               "Mean output tokens of each prompt, drawn per prompt; a prompt asks for the same output every "
               "time it is sent (shared_prefix).",
               workload.shared_prefix.output.mean, std::uint32_t),
      PR_FIELD("workload.shared_prefix_output_len_std", "Output length, std dev", Number, 0, 1e6, "tokens",
               "Standard deviation of the normal each output length is drawn from, then clipped into [min, max] "
               "and rounded; 0 = every prompt the mean (shared_prefix).",
               workload.shared_prefix.output.std_dev, double),
      PR_FIELD("workload.shared_prefix_output_len_min", "Output length, min", Integer, 0, 1e6, "tokens",
               "Shortest output (shared_prefix).", workload.shared_prefix.output.min, std::uint32_t),
      PR_FIELD("workload.shared_prefix_output_len_max", "Output length, max", Integer, 0, 1e6, "tokens",
               "Longest output (shared_prefix).", workload.shared_prefix.output.max, std::uint32_t),
      Field{FieldSpec{"workload.shared_prefix_order", "Prompt order", FieldKind::Text, 0, 0, "",
                      "cycle: the pool shuffled once and sent in that order again and again (inference-perf); "
                      "random: each request a uniform draw from the pool, with replacement (single turn only) "
                      "(shared_prefix).",
                      "cycle,random"},
            nullptr, nullptr,
            [](const Scenario& s) {
              return std::string(s.workload.shared_prefix.order == PoolOrder::Random ? "random" : "cycle");
            },
            [](Scenario& s, const std::string& v) {
              s.workload.shared_prefix.order = v == "random" ? PoolOrder::Random : PoolOrder::Cycle;
            }},
      Field{FieldSpec{"workload.shared_prefix_multi_turn", "Multi-turn", FieldKind::Text, 0, 0, "",
                      "on: each prompt of the pool is a user's session, each time it is sent a round that "
                      "carries the session's history (the earlier rounds' questions and responses) after the "
                      "system prompt (inference-perf's enable_multi_turn_chat) (shared_prefix).",
                      "off,on"},
            nullptr, nullptr,
            [](const Scenario& s) { return std::string(s.workload.shared_prefix.multi_turn ? "on" : "off"); },
            [](Scenario& s, const std::string& v) { s.workload.shared_prefix.multi_turn = v == "on"; }},
      PR_FIELD("workload.prefix_repetition_prefix_len", "Prefix length", Integer, 0, 1e6, "tokens",
               "Tokens of each shared prefix (prefix_repetition; vLLM's --prefix-repetition-prefix-len).",
               workload.prefix_repetition.prefix_len, std::uint32_t),
      PR_FIELD("workload.prefix_repetition_suffix_len", "Suffix length", Integer, 1, 1e6, "tokens",
               "Tokens of each prompt's own random suffix (prefix_repetition; --prefix-repetition-suffix-len).",
               workload.prefix_repetition.suffix_len, std::uint32_t),
      PR_FIELD("workload.prefix_repetition_num_prefixes", "Prefixes", Integer, 1, 1e6, "prefixes",
               "Distinct prefixes, each shared by requests / prefixes prompts (rounded down), all shuffled "
               "(prefix_repetition; --prefix-repetition-num-prefixes).",
               workload.prefix_repetition.num_prefixes, std::uint32_t),
      PR_FIELD("workload.prefix_repetition_output_len", "Output length", Integer, 0, 1e6, "tokens",
               "Output tokens of each request (prefix_repetition; --prefix-repetition-output-len).",
               workload.prefix_repetition.output_len, std::uint32_t),
      PR_FIELD("workload.cumulative_pool_prompts", "Pooled prompts", Integer, 1, 1e7, "prompts",
               "Prompts in the pool: the conversations' cumulative prompts in conversation order, cut after "
               "this many (the last conversation cut there), then shuffled and cycled (cumulative; KubeAI's "
               "--max-conversations, which counts prompts).",
               workload.cumulative.pool_prompts, std::uint32_t),
      PR_FIELD("workload.cumulative_max_prompt_tokens", "Longest prompt sent", Integer, 1, 1e7, "tokens",
               "Prompts longer than this are pruned from the pool, with their conversation's later prompts "
               "(cumulative; KubeAI prunes prompts over 8192 tokens).",
               workload.cumulative.max_prompt_tokens, std::uint32_t),
      PR_TEXT("client.kind", "Client",
              "How the benchmark client sends the requests: poisson (open loop, exponential gaps; at rate 0 the "
              "workload's own arrival times, a trace's timestamps), constant (open loop, equal gaps), burst "
              "(everything at t = 0, as --request-rate inf) or closed (at most client.concurrency requests "
              "outstanding, the next sent when one completes). TTFT counts from the send.",
              "poisson,constant,burst,closed", client.kind),
      PR_FIELD("client.rate_per_s", "Send rate", Number, 0, 1e7, "requests/s",
               "poisson, constant: the send rate (poisson: 0 = the workload's own arrival times); closed: a cap, "
               "each request due at its Poisson time and waiting in the client for a free slot (0 = no cap).",
               client.rate_per_s, double),
      PR_FIELD("client.concurrency", "Concurrency", Integer, 0, 1e6, "requests",
               "closed: requests outstanding at most, when client.stages is empty (0 with a poisson, constant or "
               "burst client).",
               client.concurrency, std::uint32_t),
      PR_FIELD("client.think_s", "Think time", Number, 0, 86400, "s",
               "closed: from a request's completion to its slot's next send.", client.think_s, double),
      PR_FIELD("client.timeout_s", "Timeout", Number, 0, 1e7, "s",
               "A request whose end-to-end time from its send exceeds this fails: it is counted, left out of the "
               "latency figures and frees its client slot (0 = no timeout).",
               client.timeout_s, double),
      PR_TEXT("client.stages", "Stages",
              "A load ladder LOADxSECONDS,LOADxSECONDS,...: a rate (poisson, constant) or a concurrency (closed) "
              "held for SECONDS, as inference-perf's stages; each stage starts when the previous one's requests "
              "are done; results per stage (empty = one stage without end).",
              "", client.stages),
      PR_TEXT("client.warmup", "Warm-up stage",
              "One stage LOADxSECONDS run before client.stages and left out of the stage results (empty = none).",
              "", client.warmup),
      PR_FIELD("client.stage_interval_s", "Pause between stages", Number, 0, 86400, "s",
               "From a stage's last completion to the next stage's start (inference-perf's load interval).",
               client.stage_interval_s, double),
      PR_FIELD("cluster.replicas", "Replicas", Integer, 1, 4096, "replicas", "Serving replicas.",
               cluster.replicas, std::uint32_t),
      derivable(PR_FIELD("cluster.cache_tokens", "Cache per replica", Integer, 0, 1e9, "tokens",
                          "Prefix-cache budget of each replica (the batched engine: its KV capacity); derived "
                          "from hardware.* when hardware.model is set and this is not given.",
                          cluster.cache_tokens, std::uint64_t)),
      derivable(PR_FIELD("cluster.prefill_tokens_per_s", "Prefill rate", Number, 1, 1e9, "tokens/s",
                          "Prefill speed of one replica (R: tokens/s of the linear layers); derived from "
                          "hardware.* when hardware.model is set and this is not given.",
                          cluster.prefill.tokens_per_s, double)),
      PR_FIELD("cluster.protect_after_hits", "Protect after hits", Integer, 0, 4294967295.0, "hits",
               "A cache node reused this many times is evicted only after unprotected ones "
               "(0 = no protection).",
               cluster.protect_after_hits, std::uint32_t),
      PR_FIELD("cluster.decode_ms_per_token", "Decode time per token", Number, 0, 1e4, "ms",
               "Time per output token (0 = no decode: requests complete at their first token).",
               cluster.decode_ms_per_token, double),
      Field{FieldSpec{"cluster.engine", "Engine", FieldKind::Text, 0, 0, "",
                      "fifo: one prompt at a time, FIFO (the seed's engine); batched: continuous batching "
                      "with chunked prefill and paged KV, as vLLM and SGLang.",
                      "fifo,batched"},
            nullptr, nullptr,
            [](const Scenario& s) { return std::string(s.cluster.engine == EngineKind::Batched ? "batched" : "fifo"); },
            [](Scenario& s, const std::string& v) {
              s.cluster.engine = v == "batched" ? EngineKind::Batched : EngineKind::Fifo;
            }},
      PR_FIELD("cluster.max_batched_tokens", "Step token budget", Integer, 1, 1e7, "tokens",
               "Batched engine: tokens one step computes at most (vLLM max_num_batched_tokens).",
               cluster.max_batched_tokens, std::uint64_t),
      PR_FIELD("cluster.max_running", "Max running sequences", Integer, 1, 1e5, "sequences",
               "Batched engine: sequences running at once at most (vLLM max_num_seqs).", cluster.max_running,
               std::uint32_t),
      PR_FIELD("cluster.kv_block_tokens", "KV block size", Integer, 1, 4096, "tokens",
               "Batched engine: tokens per KV block; cache hits count whole blocks.", cluster.kv_block_tokens,
               std::uint32_t),
      Field{FieldSpec{"cluster.prefix_reuse", "Prefix reuse", FieldKind::Text, 0, 0, "",
                      "Batched engine: when a prompt's blocks become cache hits for later requests on its "
                      "replica. scheduled: from the step that schedules them (vLLM V1 caches full blocks as it "
                      "allocates them); computed: from the end of the step that computes them (SGLang inserts a "
                      "prefill chunk into its radix tree after the forward pass), so requests sharing a prefix "
                      "in one step all compute it. KV events always report blocks at the end of that step.",
                      "scheduled,computed"},
            nullptr, nullptr,
            [](const Scenario& s) {
              return std::string(s.cluster.prefix_reuse == PrefixReuse::Computed ? "computed" : "scheduled");
            },
            [](Scenario& s, const std::string& v) {
              s.cluster.prefix_reuse = v == "computed" ? PrefixReuse::Computed : PrefixReuse::Scheduled;
            }},
      derivable(PR_FIELD("cluster.step_overhead_ms", "Step overhead", Number, 0, 1e4, "ms",
                          "Fixed time of every step (t0); derived from hardware.* when hardware.model is set "
                          "and this is not given.",
                          cluster.step.overhead_ms, double)),
      derivable(PR_FIELD("cluster.attention_ns_per_token_pair", "Attention cost", Number, 0, 1e3, "ns",
                          "Time per attention (query, key) pair (k_att): a chunk of n tokens after ctx costs "
                          "k_att x n x (ctx + n/2); derived from hardware.* unless given.",
                          cluster.step.attention_ns_per_token_pair, double)),
      derivable(PR_FIELD("cluster.weight_read_ms", "Weight read time", Number, 0, 1e5, "ms",
                          "Time to read the weights every step reads (memory-bound floor of a step); derived "
                          "from hardware.* unless given.",
                          cluster.step.weight_read_ms, double)),
      derivable(PR_FIELD("cluster.expert_read_ms", "Expert read time", Number, 0, 1e5, "ms",
                          "Mixture of experts: time to read every routed expert; a step of b tokens reads the "
                          "share 1 - (1 - s)^b of them; derived from hardware.* unless given.",
                          cluster.step.expert_read_ms, double)),
      derivable(PR_FIELD("cluster.expert_share_per_token", "Experts per token", Number, 0, 1, "",
                          "Mixture of experts: share s of the routed experts one token selects; derived from "
                          "hardware.* unless given.",
                          cluster.step.expert_share_per_token, double)),
      derivable(PR_FIELD("cluster.kv_read_ns_per_token", "KV read time", Number, 0, 1e6, "ns",
                          "Time to read one token of KV cache in a step; derived from hardware.* unless given.",
                          cluster.step.kv_read_ns_per_token, double)),
      Field{FieldSpec{"hardware.model", "Model", FieldKind::Text, 0, 0, "",
                      "Model preset whose numbers derive the cluster's raw fields (none = derive nothing).",
                      model_choices()},
            nullptr, nullptr, [](const Scenario& s) { return s.hardware.model; },
            [](Scenario& s, const std::string& v) { s.hardware.model = v; }},
      Field{FieldSpec{"hardware.gpu", "GPU", FieldKind::Text, 0, 0, "", "GPU preset of every replica.",
                      gpu_choices()},
            nullptr, nullptr, [](const Scenario& s) { return s.hardware.gpu; },
            [](Scenario& s, const std::string& v) { s.hardware.gpu = v; }},
      PR_FIELD("hardware.tp", "Tensor parallelism", Integer, 1, 8, "GPUs",
               "GPUs per replica (tensor parallelism): 1, 2, 4 or 8.", hardware.tp, std::uint32_t),
      PR_TEXT("hardware.kv_dtype", "KV cache type", "Data type of the KV cache.", "bf16,fp8", hardware.kv_dtype),
      PR_TEXT("hardware.weight_dtype", "Weight type",
              "Data type of the weights (native: the released checkpoint's; FP8 weights run at the GPU's FP8 "
              "peak when it has one).",
              "native,bf16,fp8", hardware.weight_dtype),
      PR_FIELD("hardware.memory_utilization", "Memory utilisation", Number, 0.05, 1, "",
               "Share of GPU memory the engine uses for weights and KV (vLLM gpu_memory_utilization).",
               hardware.memory_utilization, double),
      derivable(PR_FIELD("hardware.mfu", "MFU", Number, 0.01, 1, "",
                          "Share of peak FLOP/s achieved by the linear layers and attention; the GPU preset's "
                          "calibrated value (measured prefill speeds) unless given.",
                          hardware.mfu, double)),
      PR_FIELD("hardware.bandwidth_efficiency", "Bandwidth efficiency", Number, 0.01, 1, "",
               "Share of peak HBM bandwidth achieved when reading weights and KV.", hardware.bandwidth_efficiency,
               double),
      PR_FIELD("router.scrape_period_ms", "Metrics scrape period", Number, 1, 3.6e6, "ms",
               "The router scrapes engine metrics (queue, running, KV usage) this often.",
               router.scrape_period_ms, double),
      PR_FIELD("router.kv_event_lag_ms", "KV event lag", Number, 0, 3.6e6, "ms",
               "The router's precise cache view lags the engines' caches by this.",
               router.kv_event_lag_ms, double),
      PR_FIELD("router.instances", "Router instances", Integer, 1, kMaxRouterInstances, "routers",
               "Router replicas in front of the cluster: request i is routed by instance i mod N, each with its "
               "own policy state (counters, trees, tables, router queue) and in-flight counts, so each sees about "
               "1/N of the load; scrapes and KV events are shared. 1 = one router.",
               router.instances, std::uint32_t),
      PR_TEXT("topology.kind", "Topology",
              "aggregated: every replica of the cluster section prefills and decodes its own requests. "
              "disaggregated: a prefill pool and a decode pool joined by a KV-transfer link (P/D); the decode "
              "worker is chosen by load, the split rule decides whether the prompt is prefilled on a prefill "
              "worker (chosen by the policy) and its KV sent, and cluster.replicas is not read.",
              "aggregated,disaggregated", topology.kind),
      PR_FIELD("topology.prefill_replicas", "Prefill replicas", Integer, 1, 4096, "replicas",
               "Replicas of the prefill pool (disaggregated).", topology.prefill_replicas, std::uint32_t),
      Field{FieldSpec{"topology.prefill_gpu", "Prefill GPU", FieldKind::Text, 0, 0, "",
                      "GPU preset of the prefill pool (disaggregated, with hardware.model: the pool's cache and "
                      "prefill speed are derived for it).",
                      gpu_choices()},
            nullptr, nullptr, [](const Scenario& s) { return s.topology.prefill_gpu; },
            [](Scenario& s, const std::string& v) { s.topology.prefill_gpu = v; }},
      PR_FIELD("topology.prefill_tp", "Prefill tensor parallelism", Integer, 1, 8, "GPUs",
               "GPUs per prefill replica: 1, 2, 4 or 8 (disaggregated, with hardware.model).", topology.prefill_tp,
               std::uint32_t),
      PR_FIELD("topology.decode_replicas", "Decode replicas", Integer, 1, 4096, "replicas",
               "Replicas of the decode pool (disaggregated).", topology.decode_replicas, std::uint32_t),
      Field{FieldSpec{"topology.decode_gpu", "Decode GPU", FieldKind::Text, 0, 0, "",
                      "GPU preset of the decode pool (disaggregated, with hardware.model).", gpu_choices()},
            nullptr, nullptr, [](const Scenario& s) { return s.topology.decode_gpu; },
            [](Scenario& s, const std::string& v) { s.topology.decode_gpu = v; }},
      PR_FIELD("topology.decode_tp", "Decode tensor parallelism", Integer, 1, 8, "GPUs",
               "GPUs per decode replica: 1, 2, 4 or 8 (disaggregated, with hardware.model).", topology.decode_tp,
               std::uint32_t),
      PR_TEXT("topology.split", "Split rule",
              "Whether a request is prefilled on a prefill worker and its KV sent to its decode worker "
              "(disaggregated): always (llm-d's always-disagg-pd-decider), never (prefilled on the decode "
              "worker), llmd_prefix (llm-d's prefix-based-pd-decider, decode first: split iff the prompt "
              "tokens the chosen decode worker does not cache are at least topology.split_uncached_tokens) or "
              "dynamo_isl (Dynamo's conditional disaggregation, isl_bounding: prefilled on the decode worker iff "
              "its uncached tokens are below topology.split_eff_isl_tokens and below topology.split_eff_isl_ratio "
              "of the prompt).",
              "always,never,llmd_prefix,dynamo_isl", topology.split),
      PR_FIELD("topology.split_uncached_tokens", "Split threshold", Integer, 0, 1e7, "tokens",
               "llmd_prefix: the least uncached prompt tokens on the decode worker that split a request (llm-d's "
               "nonCachedTokens: 16 in its shipped pd-epp-config.yaml; 0 always splits).",
               topology.split_uncached_tokens, double),
      PR_FIELD("topology.split_eff_isl_tokens", "Local prefill below", Integer, 0, 1e7, "tokens",
               "dynamo_isl: a request is prefilled on its decode worker only when its uncached tokens there are "
               "below this (Dynamo's eff_isl_threshold, 2048).",
               topology.split_eff_isl_tokens, double),
      PR_FIELD("topology.split_eff_isl_ratio", "Local prefill below share", Number, 0, 1, "",
               "dynamo_isl: ... and below this share of the prompt (Dynamo's eff_isl_ratio_threshold, 0.7).",
               topology.split_eff_isl_ratio, double),
      PR_TEXT("topology.decode_choice", "Decode worker",
              "How the decode worker is chosen (disaggregated), by load only: round_robin, least_loaded (fewest "
              "requests assigned and not completed, lowest index on ties; llm-d's active-request scorer) or "
              "power_of_two (two distinct workers drawn at random, the less loaded).",
              "least_loaded,round_robin,power_of_two", topology.decode_choice),
      Field{FieldSpec{"topology.link", "KV link", FieldKind::Text, 0, 0, "",
                      "Link of each decode worker over which KV arrives (disaggregated), by its effective "
                      "bandwidth: nvlink 600 GB/s, ib_400g 40 GB/s, roce_200g 20 GB/s (llm-d-inference-sim's "
                      "interconnect table), or custom (topology.link_gb_per_s). Concurrent transfers into one "
                      "decode worker share its link equally.",
                      link_choices()},
            nullptr, nullptr, [](const Scenario& s) { return s.topology.link; },
            [](Scenario& s, const std::string& v) { s.topology.link = v; }},
      PR_FIELD("topology.link_gb_per_s", "Custom link bandwidth", Number, 0, 1e9, "GB/s",
               "The link's bandwidth when topology.link is custom (> 0 then; 0 otherwise).",
               topology.link_gb_per_s, double),
      PR_FIELD("topology.link_setup_ms", "Transfer setup", Number, 0, 1e5, "ms",
               "Fixed time of every KV transfer before its bytes move (BLIS's --pd-transfer-base-latency 0.05 "
               "ms; llm-d-inference-sim lists 0.5-2 ms for RDMA).",
               topology.link_setup_ms, double),
      PR_FIELD("topology.kv_bytes_per_token", "KV bytes per token", Number, 0, 1e9, "B",
               "KV bytes one prompt token sends (disaggregated); 0 = hardware.model's (2 x layers x KV heads x "
               "head dim x KV bytes). Required without a hardware.model.",
               topology.kv_bytes_per_token, double),
  };
}

// The trace section, after the policies', then the SLO and the capacity
// search's sections.
std::vector<Field> trace_fields() {
  return {
      PR_FIELD("trace.block_size", "Trace block size", Integer, 1, 1048576, "tokens",
               "Tokens per block id in a replayed Mooncake trace (512 there); a Bailian trace's blocks are always 16.", trace.block_size,
               std::uint32_t),
      PR_FIELD("trace.time_scale", "Time scale", Number, 1e-6, 1e6, "",
               "Arrival time = trace timestamp x time_scale (2 = half the rate).", trace.time_scale,
               double),
      PR_FIELD("trace.limit", "Request limit", Integer, 0, 1e9, "requests",
               "Replay only the first this many requests (0 = all).", trace.limit, std::uint64_t),
      PR_FIELD("trace.start_s", "Window start", Number, 0, 1e9, "s",
               "Replay only requests at or after this second of the trace's own clock (before time_scale); "
               "arrivals then count from it.",
               trace.start_s, double),
      PR_FIELD("trace.end_s", "Window end", Number, 0, 1e9, "s",
               "Replay only requests before this second of the trace's own clock (0 = to the end).", trace.end_s,
               double),
      PR_FIELD("trace.lines", "Lines read", Integer, 0, 1e12, "lines", "Lines read from the trace file (recorded).",
               trace.lines, std::uint64_t),
      PR_FIELD("trace.skipped_lines", "Lines skipped", Integer, 0, 1e12, "lines",
               "Bad lines skipped under on_error = skip (recorded).", trace.skipped_lines,
               std::uint64_t),
      PR_TEXT("trace.on_error", "On a bad line",
              "On a bad trace line: stop with its message, or skip it (bad lines are counted).", "stop,skip",
              trace.on_error),
      PR_TEXT("trace.format", "Trace format",
              "The trace file's format: auto (told by the first JSON line: chat_id means bailian, messages or "
              "prompt openai), mooncake (512-token blocks, timestamps in ms), bailian (Qwen-Bailian: 16-token "
              "blocks, timestamps in s, sessions from parent_chat_id) or openai (logged chat requests: text "
              "tokenized by a fixed rule, the time from timestamp (s or ISO 8601) or else created (Unix s), "
              "sessions from session_id or user).",
              "auto,mooncake,bailian,openai", trace.format),
      PR_TEXT("trace.time_field", "Time from",
              "An openai log's arrival time: auto (timestamp, else created), timestamp (seconds or ISO 8601) or "
              "created (Unix seconds, as OpenAI's API returns it); a line without the chosen key is a bad line. "
              "Only openai logs have a choice.",
              "auto,timestamp,created", trace.time_field),
      PR_TEXT("trace.prompt_field", "Prompt from",
              "An openai log's prompt: auto (messages or prompt, whichever a line has; a line with both is a bad "
              "line), messages (the chat, rendered as ChatML) or prompt (the text as it is); a line without the "
              "chosen key is a bad line. Only openai logs have a choice.",
              "auto,messages,prompt", trace.prompt_field),
      PR_TEXT("trace.session_field", "Sessions from",
              "An openai log's sessions: auto (session_id, else user), session_id, user, or none (every request "
              "a session of its own); a request without the chosen key is a session of its own. Only openai "
              "logs have a choice.",
              "auto,session_id,user,none", trace.session_field),
      PR_TEXT("trace.name", "Trace file", "File name of the replayed trace (recorded; empty = synthetic workload).",
              "", trace.name),
      PR_TEXT("trace.content_hash", "Trace content hash",
              "FNV-1a 64 of the trace file's bytes, 16 hex digits (recorded; a given hash must match the file).", "",
              trace.content_hash),
      PR_FIELD("slo.ttft_percentile", "TTFT SLO percentile", Number, 1, 100, "%",
               "The SLO's TTFT target holds when this percentile of TTFT (nearest rank) is within slo.ttft_ms, "
               "i.e. at least this share of the requests meet the bound; at most three decimals (99.9).",
               slo.ttft_percentile, double),
      PR_FIELD("slo.ttft_ms", "TTFT SLO bound", Number, 0, 1e7, "ms",
               "Bound on time to first token (0 = no TTFT target). With a target the results give each policy's "
               "share of requests within it, the share within every target and the goodput (requests/s within "
               "every target).",
               slo.ttft_ms, double),
      PR_FIELD("slo.tpot_percentile", "TPOT SLO percentile", Number, 1, 100, "%",
               "The SLO's TPOT target holds when this percentile of TPOT (nearest rank) is within slo.tpot_ms; at "
               "most three decimals.",
               slo.tpot_percentile, double),
      PR_FIELD("slo.tpot_ms", "TPOT SLO bound", Number, 0, 1e5, "ms",
               "Bound on time per output token after the first (0 = no TPOT target; needs cluster.engine = "
               "batched). A request that generated at most one token meets it.",
               slo.tpot_ms, double),
      PR_FIELD("capacity.resolution", "Load search resolution", Number, 0.001, 1, "",
               "Capacity search: the highest load meeting the SLO is bracketed, then bisected until the "
               "failing load is within this share above the passing one (concurrency: 1 apart).",
               capacity.resolution, double),
      PR_FIELD("capacity.max_replicas", "Replicas searched, at most", Integer, 1, 4096, "replicas",
               "Capacity search: the fewest replicas meeting the SLO is looked for up to this many.",
               capacity.max_replicas, std::uint32_t),
      PR_FIELD("capacity.gpu_hour_price", "Price per GPU-hour", Number, 0, 1e6, "per GPU-hour",
               "Capacity search: the price of one GPU for an hour; > 0 adds each policy's monthly cost (GPUs x "
               "price x 730 h) at the fewest replicas meeting the SLO (0 = no cost).",
               capacity.gpu_hour_price, double),
  };
}

#undef PR_FIELD
#undef PR_TEXT

// The `choices` text's entry `index`, or "" past its end.
std::string choice_text(std::string_view choices, std::size_t index) {
  for (std::size_t i = 0;; ++i) {
    const auto comma = choices.find(',');
    if (i == index) return std::string(choices.substr(0, comma));
    if (comma == std::string_view::npos) return "";
    choices.remove_prefix(comma + 1);
  }
}

// The index of `text` among `choices`; the caller has checked it is one.
double choice_index(std::string_view choices, std::string_view text) {
  for (std::size_t i = 0;; ++i) {
    const auto comma = choices.find(',');
    if (choices.substr(0, comma) == text || comma == std::string_view::npos) return static_cast<double>(i);
    choices.remove_prefix(comma + 1);
  }
}

// The rows of one policy's parameters, from its spec.
void add_policy_fields(const PolicySpec& spec, std::vector<Field>& out) {
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    const ParamSpec& p = spec.params[i];
    FieldSpec f{std::string(spec.name()) + "." + std::string(p.key), p.label, FieldKind::Number, p.min, p.max,
                p.unit, p.help, p.choices, spec.name()};
    const PolicySpec* owner = &spec;
    if (p.kind == ParamKind::Choice) {
      f.kind = FieldKind::Text;
      out.push_back(Field{f, nullptr, nullptr, nullptr, nullptr, owner, i});
      continue;
    }
    f.kind = p.kind == ParamKind::Integer ? FieldKind::Integer : FieldKind::Number;
    out.push_back(Field{f, nullptr, nullptr, nullptr, nullptr, owner, i});
  }
}

struct Table {
  std::vector<Field> fields;
  std::vector<std::string> order;
  std::uint64_t generation = ~std::uint64_t{0};
};

// Schema version 1's canonical document lists its sections in this order;
// results files published with it are compared byte for byte, so it stays.
// Sections added since (a policy's) follow in field-table order.
constexpr std::string_view kVersion1Order[] = {
    "seed",  "workload",  "cluster",       "router", "sglang_cache_aware", "dynamo_kv", "llmd_epp",
    "chwbl", "preble_e2", "expected_ttft", "trace",  "affinity_balanced"};

Table& table() {
  static Table t;
  static std::mutex building;
  const std::lock_guard<std::mutex> lock(building);  // runs may parse scenarios on several threads
  if (t.generation != catalogue_generation()) {
    t.fields = leading_fields();
    set_workload_kinds(t.fields);
    set_client_kinds(t.fields);
    for (const PolicySpec* spec : policy_catalogue()) add_policy_fields(*spec, t.fields);
    for (Field& f : trace_fields()) t.fields.push_back(std::move(f));
    std::vector<std::string> tops;  // top-level keys in field order, each once
    for (const Field& f : t.fields) {
      const std::string top = f.spec.key.substr(0, f.spec.key.find('.'));
      bool seen = false;
      for (const std::string& k : tops) seen = seen || k == top;
      if (!seen) tops.push_back(top);
    }
    t.order = {"schema_version"};
    for (const std::string_view key : kVersion1Order)
      for (const std::string& top : tops)
        if (top == key) t.order.push_back(top);
    for (const std::string& top : tops) {
      bool seen = false;
      for (const std::string& k : t.order) seen = seen || k == top;
      if (!seen) t.order.push_back(top);
    }
    t.order.emplace_back("policies");
    t.generation = catalogue_generation();
  }
  return t;
}

}  // namespace

double Field::get(const Scenario& s) const {
  return policy != nullptr ? s.policy_params.of(*policy)[param] : get_number(s);
}

void Field::set(Scenario& s, double value) const {
  if (policy != nullptr) s.policy_params.set(*policy, param, value);
  else set_number(s, value);
}

std::string Field::get_text(const Scenario& s) const {
  if (policy == nullptr) return get_string(s);
  return choice_text(policy->params[param].choices, static_cast<std::size_t>(s.policy_params.of(*policy)[param]));
}

void Field::set_text(Scenario& s, const std::string& value) const {
  if (policy != nullptr) s.policy_params.set(*policy, param, choice_index(policy->params[param].choices, value));
  else set_string(s, value);
}

const std::vector<Field>& fields() { return table().fields; }

const std::vector<std::string>& document_order() { return table().order; }

const FieldSpec& policies_spec() {
  static const FieldSpec spec{"policies", "Policies to run", FieldKind::PolicyList, 0, 0, "",
                              "Policies to run, in report order (or \"all\")."};
  return spec;
}

}  // namespace prefixroute::scenario_detail
