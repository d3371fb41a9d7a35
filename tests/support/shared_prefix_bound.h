// The most cached tokens each request of a run can find: a replica's cache
// holds only prompts routed to it before the request, so a request finds at
// most the longest prefix its prompt shares with a prompt routed before it.
//
// Routed before is not arrived before. A policy without a router queue routes
// every request at its arrival, in arrival order: the bound is the longest
// prefix shared with an earlier arrival (what one unbounded cache fed the
// trace in order finds). A router queue may route a request after later
// arrivals (spf releases shorter prompts first; each router instance keeps a
// queue of its own), but always by its first token: a request's routing time
// is at most arrival + TTFT, so every prompt routed before it had arrived by
// then, and the bound is the longest prefix shared with any other prompt
// that had arrived by its first token.
//
// Used by the property suite (tests/property_test.cpp) and the router
// queue's tests. Cost: shared_with_earlier_arrivals O(total prompt tokens);
// shared_with_arrivals_by_first_token adds, per request, one common-prefix
// comparison with each later arrival up to its first token (at most N^2).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"
#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/workload/request_trace.h"

namespace prefixroute::testsupport {

/// Per request (trace order): the longest prefix its prompt shares with the
/// prompt of any earlier request of `trace`.
inline std::vector<std::uint64_t> shared_with_earlier_arrivals(const RequestTrace& trace) {
  RadixCache unbounded(trace.total_prompt_tokens(), 0);
  std::vector<std::uint64_t> shared;
  std::vector<Token> prompt;
  for (std::size_t r = 0; r < trace.size(); ++r) {
    trace.materialize(r, prompt);
    shared.push_back(unbounded.insert(prompt).cached_tokens);
  }
  return shared;
}

/// Per request: the longest prefix its prompt shares with the prompt of any
/// other request of `trace` that arrived no later than its first token
/// (arrival + ttft[r]; `ttft` per request, trace order).
inline std::vector<std::uint64_t> shared_with_arrivals_by_first_token(const RequestTrace& trace,
                                                                      std::span<const Tick> ttft) {
  std::vector<std::uint64_t> shared = shared_with_earlier_arrivals(trace);
  std::vector<std::vector<Token>> prompts(trace.size());
  for (std::size_t r = 0; r < trace.size(); ++r) trace.materialize(r, prompts[r]);
  for (std::size_t r = 0; r < trace.size(); ++r) {
    const Tick first_token = trace.arrival(r) + ttft[r];
    const std::vector<Token>& a = prompts[r];
    for (std::size_t j = r + 1; j < trace.size() && trace.arrival(j) <= first_token; ++j) {
      const std::vector<Token>& b = prompts[j];
      const std::size_t n = std::min(a.size(), b.size());
      const auto common = static_cast<std::uint64_t>(std::mismatch(a.begin(), a.begin() + n, b.begin()).first - a.begin());
      shared[r] = std::max(shared[r], common);
    }
  }
  return shared;
}

}  // namespace prefixroute::testsupport
