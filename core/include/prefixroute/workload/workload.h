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
// Memory and cost: requests store a per-request seed, from which the turn's
// tokens are drawn. A run reads every prompt many times (once per policy, per
// cache bound and for the fingerprint: 13 times when all ten policies run), so
// when all turns together hold at most kMaxStoredTurnTokens tokens (32 MB;
// the reference scenario's 4,000 requests hold ~410k) they are drawn once, at
// construction, and materialising a prompt is two copies. Larger workloads
// draw each turn on demand (O(prompt length) per materialisation), so a
// million requests still cost ~32 MB (one 32-byte Request each). Both paths give the same tokens.
// The stored turns may be drawn on several threads (`jobs`: each turn has its
// own seed, so the tokens are the same for any number): drawing them is most
// of making the reference scenario's workload, which every run waits for.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "prefixroute/workload/request_trace.h"
#include "prefixroute/workload/workload_config.h"
#include "prefixroute/base/time.h"
#include "prefixroute/base/token.h"

namespace prefixroute {

/// One request of the trace. Its prompt is tenant prefix + turn tokens.
struct Request {
  Tick arrival = 0;
  std::uint32_t tenant = 0;
  std::uint32_t turn_tokens = 0;
  std::uint64_t turn_seed = 0;  ///< seeds the turn's token ids
  std::uint32_t output_tokens = 0;
};

/// The trace and its own content: run t < tenants() is tenant t's prefix;
/// run kTurnRun + i is request i's turn.
class Workload final : public RequestTrace, public Content {
 public:
  /// Draws the stored turns (if any) on up to `jobs` threads.
  Workload(std::vector<std::vector<Token>> tenant_prefixes, std::vector<Request> requests,
           std::uint32_t vocab_size, unsigned jobs = 1);

  const std::vector<Request>& requests() const { return requests_; }
  const std::vector<Token>& tenant_prefix(std::uint32_t tenant) const { return prefixes_[tenant]; }
  std::uint32_t tenants() const { return static_cast<std::uint32_t>(prefixes_.size()); }

  std::size_t size() const override { return requests_.size(); }
  Tick arrival(std::size_t i) const override { return requests_[i].arrival; }
  std::uint64_t prompt_tokens(std::size_t i) const override;
  std::uint64_t output_tokens(std::size_t i) const override { return requests_[i].output_tokens; }
  const Content& content() const override { return *this; }
  /// Request i's prompt: its tenant's prefix run, then its turn's run.
  void prompt(std::size_t i, PromptPieces& out) const override;

  // ---- Content ----
  const Token* stored(RunId run) const override;
  void copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const override;
  static constexpr RunId kTurnRun = RunId{1} << 32;

  /// Heap bytes of the workload generated for `config`: one Request per
  /// request, the tenant prefixes, and the stored turns when they fit
  /// kMaxStoredTurnTokens (plus one offset per request).
  static double estimated_bytes(const WorkloadConfig& config);

  /// Most turn tokens drawn once and kept (see the header comment).
  static constexpr std::uint64_t kMaxStoredTurnTokens = std::uint64_t{8} << 20;
  /// Whether this workload keeps its turns (for tests and benchmarks).
  bool stores_turns() const { return !turn_offsets_.empty(); }

 private:
  /// Draws request r's turn tokens from its seed into `turn` (r.turn_tokens of them).
  void draw_turn(const Request& r, Token* turn) const;

  std::vector<std::vector<Token>> prefixes_;
  std::vector<Request> requests_;
  std::uint32_t vocab_size_;
  std::unique_ptr<Token[]> turn_store_;      ///< every stored turn, back to back
  std::vector<std::uint32_t> turn_offsets_;  ///< request i's turn starts at [i]; empty: not stored
};

/// Generates the trace for `config` (validated by the caller) and `seed`,
/// drawing its turns on up to `jobs` threads (the same trace for any number).
Workload generate_workload(const WorkloadConfig& config, std::uint64_t seed, unsigned jobs = 1);

/// The tenants' prefixes generate_workload draws for `config` and `seed`
/// (each tenant's length uniform in [prefix_tokens_min, prefix_tokens_max],
/// its tokens uniform in [0, vocab_size)). The session kinds use the same
/// prefixes as their system prompts.
std::vector<std::vector<Token>> draw_tenant_prefixes(const WorkloadConfig& config, std::uint64_t seed);

}  // namespace prefixroute
