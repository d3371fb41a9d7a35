#include "prefixroute/workload/synthetic.h"

#include <algorithm>

#include "prefixroute/workload/gsp_workload.h"
#include "prefixroute/workload/session_workload.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute {

std::unique_ptr<RequestTrace> generate_synthetic(const WorkloadConfig& config, std::uint64_t seed, unsigned jobs) {
  if (is_session_kind(config.kind)) return std::make_unique<SessionWorkload>(config, seed);
  if (config.kind == "gsp") return std::make_unique<GspWorkload>(config, seed);
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
