#include "prefixroute/workload/synthetic.h"

#include <algorithm>

#include "prefixroute/workload/cumulative_workload.h"
#include "prefixroute/workload/gsp_workload.h"
#include "prefixroute/workload/session_workload.h"
#include "prefixroute/workload/shared_prefix_workload.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute {

std::unique_ptr<RequestTrace> generate_synthetic(const WorkloadConfig& config, std::uint64_t seed, unsigned jobs) {
  if (is_session_kind(config.kind)) return std::make_unique<SessionWorkload>(config, seed);
  if (config.kind == "gsp") return std::make_unique<GspWorkload>(config, seed);
  if (is_pool_kind(config.kind)) return std::make_unique<SharedPrefixWorkload>(config, seed);
  if (config.kind == "cumulative") return std::make_unique<CumulativeWorkload>(config, seed);
  return std::make_unique<Workload>(generate_workload(config, seed, jobs));
}

SyntheticBounds synthetic_bounds(const WorkloadConfig& w) {
  SyntheticBounds b;
  if (is_session_kind(w.kind)) {
    b.requests = static_cast<double>(w.requests);
    b.max_prompt_tokens = SessionWorkload::max_prompt_tokens(w);
    b.shared_tokens = SessionWorkload::max_distinct_tokens(w);
    b.prompt_pieces = b.requests * SessionWorkload::max_prompt_pieces(w);
    b.tree_pieces = std::min(b.prompt_pieces + b.requests,
                             static_cast<double>(w.tenants) + SessionWorkload::max_messages(w) + 2 * b.requests);
    b.workload_bytes = SessionWorkload::estimated_bytes(w);
  } else if (w.kind == "gsp") {
    b.requests = GspWorkload::requests(w);
    b.max_prompt_tokens = static_cast<double>(w.gsp.system_prompt_len) + w.gsp.question_len;
    b.shared_tokens = static_cast<double>(w.gsp.num_groups) * w.gsp.system_prompt_len;
    b.unique_tokens = b.requests * w.gsp.question_len;
    b.prompt_pieces = 2 * b.requests;
    b.tree_pieces = 3 * b.requests;
    b.workload_bytes = GspWorkload::estimated_bytes(w);
  } else if (is_pool_kind(w.kind)) {
    const SharedPrefixParams p = SharedPrefixWorkload::params_of(w);
    const double groups = p.num_groups;
    const double pool = groups * p.prompts_per_group;
    const double rounds = SharedPrefixWorkload::max_rounds(w);
    b.requests = SharedPrefixWorkload::requests(w);
    b.max_prompt_tokens = SharedPrefixWorkload::max_prompt_tokens(w);
    // A question sent more than once (cycled past the pool, drawn at
    // random, or re-sent every round) may sit on several replicas; a
    // session's responses too.
    const double questions = std::min(b.requests, pool) * longest_length(p.question);
    const bool resent = p.multi_turn || b.requests > (p.order == PoolOrder::Cycle ? pool : 1.0);
    b.shared_tokens = groups * longest_length(p.system_prompt) + (resent ? questions : 0.0) +
                      (p.multi_turn ? b.requests * longest_length(p.output) : 0.0);
    b.unique_tokens = resent ? 0.0 : questions;
    b.prompt_pieces = SharedPrefixWorkload::max_total_pieces(w);
    // Each run at each place it takes in prompts, plus two per request: a
    // system prompt at one place, a question (multi-turn) at one place per
    // round, a response at one.
    b.tree_pieces = std::min(b.prompt_pieces + b.requests, groups + pool * (2 * rounds - 1) + 2 * b.requests);
    b.workload_bytes = SharedPrefixWorkload::estimated_bytes(w);
  } else if (w.kind == "cumulative") {
    const WorkloadConfig c = CumulativeWorkload::conversations_config(w);
    b.requests = static_cast<double>(w.requests);
    b.max_prompt_tokens = CumulativeWorkload::max_prompt_tokens(w);
    // The conversations' runs may each sit on every replica; the pool's
    // prompts are the sessions kind's calls, cut by the pruning.
    b.shared_tokens = SessionWorkload::max_distinct_tokens(c);
    const double pieces = std::min(SessionWorkload::max_prompt_pieces(c), b.max_prompt_tokens);
    b.prompt_pieces = b.requests * pieces;
    b.tree_pieces = std::min(b.prompt_pieces + b.requests,
                             static_cast<double>(w.tenants) + SessionWorkload::max_messages(c) + 2 * b.requests);
    b.workload_bytes = CumulativeWorkload::estimated_bytes(w);
  } else {
    b.requests = static_cast<double>(w.requests);
    b.max_prompt_tokens = static_cast<double>(w.prefix_tokens_max) + w.turn_tokens_max;
    b.shared_tokens = static_cast<double>(w.tenants) * w.prefix_tokens_max;
    b.unique_tokens = b.requests * w.turn_tokens_max;
    b.prompt_pieces = 2 * b.requests;
    b.tree_pieces = 3 * b.requests;
    b.workload_bytes = Workload::estimated_bytes(w);
  }
  return b;
}

}  // namespace prefixroute
