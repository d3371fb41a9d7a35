// Workload: a seeded multi-tenant request trace.
//
// Model: `tenants` tenants, each with its own shared prefix (system prompt, tool
// schema, few-shot block) whose length is drawn uniformly per tenant from
// [prefix_tokens_min, prefix_tokens_max]. Each request picks a tenant by Zipf
// popularity (tenant 0 most popular; zipf_s = 0 is uniform), appends a unique
// user turn of uniform length in [turn_tokens_min, turn_tokens_max] with random
// token ids, and arrives by a Poisson process of rate arrival_rate_per_s.
//
// Determinism: only the project's Rng and dmath are used, arrival times are
// integer ticks, so one seed gives the same trace on every platform.
// Memory: requests store a per-request seed, not their turn tokens; tokens are
// materialised on demand (O(prompt length)), so a million requests cost ~24 MB.
#pragma once

#include <cstdint>
#include <vector>

#include "prefixroute/request_trace.h"
#include "prefixroute/time.h"
#include "prefixroute/token.h"

namespace prefixroute {

struct WorkloadConfig {
  std::uint64_t requests = 4000;
  std::uint32_t tenants = 12;
  // Defaults: the reference scenario, calibrated so the benchmark lands near
  // the seed write-up's published table (see README, "Reference benchmark").
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
};

/// One request of the trace. Its prompt is tenant prefix + turn tokens.
struct Request {
  Tick arrival = 0;
  std::uint32_t tenant = 0;
  std::uint32_t turn_tokens = 0;
  std::uint64_t turn_seed = 0;  ///< seeds the turn's token ids
  std::uint32_t output_tokens = 0;
};

class Workload final : public RequestTrace {
 public:
  Workload(std::vector<std::vector<Token>> tenant_prefixes, std::vector<Request> requests,
           std::uint32_t vocab_size);

  const std::vector<Request>& requests() const { return requests_; }
  const std::vector<Token>& tenant_prefix(std::uint32_t tenant) const { return prefixes_[tenant]; }
  std::uint32_t tenants() const { return static_cast<std::uint32_t>(prefixes_.size()); }

  std::size_t size() const override { return requests_.size(); }
  Tick arrival(std::size_t i) const override { return requests_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t i) const override;
  std::uint64_t output_tokens(std::size_t i) const override { return requests_[i].output_tokens; }
  /// Writes request i's prompt (prefix then turn) into `out`, replacing its contents.
  void materialize(std::size_t i, std::vector<Token>& out) const override;

 private:
  std::vector<std::vector<Token>> prefixes_;
  std::vector<Request> requests_;
  std::uint32_t vocab_size_;
};

/// Generates the trace for `config` (validated by the caller) and `seed`.
Workload generate_workload(const WorkloadConfig& config, std::uint64_t seed);

}  // namespace prefixroute
