#include "prefixroute/run/experiment.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "prefixroute/policies/catalogue.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/workload/synthetic.h"
#include "run/executor.h"
#include "scenario/fields.h"

namespace prefixroute {

std::vector<FieldError> check_replay(const Scenario& scenario, double prompt_tokens) {
  std::vector<FieldError> errors;
  if (scenario.replicates > 1)
    errors.push_back({"replicates", scenario_detail::replicates_with_trace_message(scenario.replicates)});
  const double tokens = prompt_tokens;
  const double rate = scenario.cluster.prefill.tokens_per_s;
  const double prefill_s = tokens / rate;
  if (!(prefill_s <= kMaxPrefillSeconds)) {
    char text[512];
    std::snprintf(text, sizeof text,
                  "the trace's total prompt tokens (%.0f) / cluster.prefill_tokens_per_s (%g) (the longest "
                  "possible prefill work) must be at most %g s; got %g s. Raise cluster.prefill_tokens_per_s "
                  "to at least %g or replay fewer requests (trace.limit)",
                  tokens, rate, kMaxPrefillSeconds, prefill_s, std::ceil(tokens / kMaxPrefillSeconds));
    errors.push_back({"cluster.prefill_tokens_per_s", text});
  }
  return errors;
}

std::vector<FieldError> check_replay(const Scenario& scenario, const ReplaySize& size) {
  std::vector<FieldError> errors = check_replay(scenario, size.prompt_tokens);
  const ClusterConfig& c = scenario.cluster;
  if (errors.empty() && (c.engine == EngineKind::Batched || !(c.step == StepCosts{}))) {
    const double busy = worst_busy_seconds(c, size.requests, size.prompt_tokens, size.max_prompt_tokens,
                                           c.engine == EngineKind::Batched ? size.output_tokens : 0,
                                           size.max_output_tokens);
    if (!(busy <= kMaxPrefillSeconds)) {
      char text[512];
      std::snprintf(text, sizeof text,
                    "the trace's longest possible busy time under the step model (%g s, from its %.0f prompt and "
                    "%.0f output tokens) must be at most %g s; raise the prefill rate, lower the step costs or "
                    "replay fewer requests (trace.limit)",
                    busy, size.prompt_tokens, size.output_tokens, kMaxPrefillSeconds);
      errors.push_back({"cluster.prefill_tokens_per_s", text});
    }
  }
  return errors;
}


double estimated_peak_bytes(const Scenario& s, const ReplaySize* replay, unsigned jobs) {
  const double replicas = s.cluster.replicas;
  // The synthetic trace's size bounds (synthetic.h), or the replayed trace's own sizes.
  SyntheticBounds b;
  if (replay == nullptr) {
    b = synthetic_bounds(s.workload);
  } else {
    b.requests = replay->requests;
    b.max_prompt_tokens = replay->max_prompt_tokens;
    b.unique_tokens = replay->prompt_tokens;
    b.prompt_pieces = replay->pieces;
    b.tree_pieces = replay->pieces + replay->requests;
  }
  const double requests = b.requests;
  // Every distinct token (each tenant prefix and each user turn, each
  // session message, or every prompt token of a trace) and the longest prompt.
  const double distinct = b.shared_tokens + b.unique_tokens;
  const double prompt_max = b.max_prompt_tokens;
  // An insert adds at most two nodes and a node holds at least one token;
  // every tree also has a root. An insert stores at most its prompt's pieces
  // (a new leaf) plus one more (a split piece), so trees hold at most every
  // prompt's pieces plus one per request (b.tree_pieces for one tree; fewer
  // for sessions, whose runs each sit at one place of a tree, so that
  // replicas hold at most that many each). No piece is empty, so a tree
  // never holds more pieces than tokens either.
  const auto tree = [&](double tokens, double trees, double pieces) {
    return RadixCache::estimated_bytes(std::min(2 * requests, tokens) + trees, std::min(pieces, tokens));
  };
  // The replicas' caches: each at most its budget plus the prompt being
  // inserted, and together never more than every distinct token per replica
  // (a prefix or a session's history may sit on every replica, a turn or a
  // trace's tokens on one).
  const double replica_tokens = std::min(replicas * (static_cast<double>(s.cluster.cache_tokens) + prompt_max),
                                         replicas * b.shared_tokens + b.unique_tokens);
  const double replica_pieces = std::min(b.prompt_pieces + requests, replicas * b.tree_pieces);
  // The largest state of one of the scenario's policies: with several router
  // instances, each instance's for the requests it routes (every
  // instances-th; their prompts at most the longest each), summed.
  double policy_state = 0;
  const double instances = std::max(1u, s.router.instances);
  const double total_prompt = replay != nullptr ? replay->prompt_tokens : requests * prompt_max;
  const double per_instance = std::ceil(requests / instances);
  const RoutedSize routed{per_instance, instances > 1 ? std::min(total_prompt, per_instance * prompt_max) : total_prompt,
                          b.prompt_pieces};
  for (const std::string& name : s.policies) {
    const PolicySpec* spec = find_policy(name);
    if (spec != nullptr && spec->has_state_estimate())
      policy_state = std::max(
          policy_state, instances * spec->state_bytes(s.policy_params.of(*spec), policy_context(s), routed));
  }
  // Runs at once, and workloads alive at once: a replicate's workload lives
  // from its first run to its last, runs start in list order, and a thread
  // that would wait for a workload prepares one at most `jobs` ahead, so
  // with several jobs at most twice as many workloads as jobs.
  const double runs_total = static_cast<double>(run_count(s));
  const double at_once = std::min(static_cast<double>(std::max(1u, jobs)), runs_total);
  const double workloads = std::min(static_cast<double>(s.replicates), at_once > 1 ? 2 * at_once : 1.0);
  const double workload = replay != nullptr ? 0 : workloads * b.workload_bytes;
  // Replicate 0's per-request results are kept; another seed's live only
  // while its run summarises them.
  const double per_run = requests * (SimulationRun::kBytesPerRequest +
                                     (s.cluster.engine == EngineKind::Batched ? SimulationRun::kBatchedBytesPerRequest
                                                                              : 0.0));
  const double runs = static_cast<double>(s.policies.size()) * per_run + (s.replicates > 1 ? at_once * per_run : 0);
  // A run's session tally, when the requests share sessions.
  const bool sessions = replay != nullptr ? replay->sessions : is_session_kind(s.workload.kind);
  const double tally = sessions ? requests * SessionTally::kEstimatedBytesPerRequest : 0.0;
  // With lagged KV events the router's view is a mirror of every cache.
  const double caches = (s.router.kv_event_lag_ms > 0 ? 2 : 1) * tree(replica_tokens, replicas, replica_pieces);
  // A policy's run holds its caches, a tree of every distinct token (a
  // router's own tree of the routed prompts: counted for every policy, as
  // the specs do not say which keep one) and, at worst, the largest policy
  // state. The ideal bound's run holds a never-evicting cache of every
  // distinct token, or nothing when the block ids gave the bound as the
  // trace was read; the pooled bound's run one cache of every replica's
  // budget. At once run at most as many policies' runs as there are, the
  // rest of `at_once` being bound runs.
  const double distinct_tree = tree(distinct, 1, b.tree_pieces);
  const double policy_run = caches + distinct_tree + policy_state + tally;
  const bool ideal_known = replay != nullptr && replay->ideal_from_block_ids;
  const double ideal_run = ideal_known ? 0 : distinct_tree;
  const double pooled_run =
      tree(std::min(replicas * static_cast<double>(s.cluster.cache_tokens) + prompt_max, distinct), 1, b.tree_pieces);
  const double policy_runs = std::min(at_once, static_cast<double>(s.policies.size() * s.replicates));
  return workload + runs + policy_runs * policy_run + (at_once - policy_runs) * std::max(ideal_run, pooled_run);
}

ExperimentReport run_experiment(const Scenario& scenario, const ExperimentProgress& progress,
                                const ReplayedTrace* replay, unsigned jobs, bool record_timeline, bool keep_series) {
  engine::EngineOptions options;
  options.jobs = jobs;
  options.keep_series = keep_series;
  options.timeline = record_timeline;
  if (progress)
    options.progress = [&](std::size_t, std::size_t run, std::uint64_t done, std::uint64_t total) {
      return progress(run, done, total);
    };
  engine::EngineResult result = engine::execute({&scenario}, replay, options);
  return engine::assemble(scenario, std::move(result.points[0]), result.cancelled);
}

}  // namespace prefixroute
