#include "prefixroute/workload/workload.h"

#include <algorithm>

#include "prefixroute/base/parallel.h"
#include "prefixroute/base/random.h"

namespace prefixroute {

Workload::Workload(std::vector<std::vector<Token>> tenant_prefixes, std::vector<Request> requests,
                   std::uint32_t vocab_size, unsigned jobs)
    : prefixes_(std::move(tenant_prefixes)), requests_(std::move(requests)), vocab_size_(vocab_size) {
  std::uint64_t total = 0;
  for (const Request& r : requests_) total += r.turn_tokens;
  if (total > kMaxStoredTurnTokens) return;  // large runs keep O(requests) memory: draw on demand
  turn_offsets_.reserve(requests_.size() + 1);
  std::uint32_t offset = 0;  // total <= kMaxStoredTurnTokens < 2^32
  for (const Request& r : requests_) {
    turn_offsets_.push_back(offset);
    offset += r.turn_tokens;
  }
  turn_offsets_.push_back(offset);
  // Every token is drawn, so the store is not zeroed first: each thread
  // touches (and faults in) only the pages of its own share.
  turn_store_.reset(new Token[static_cast<std::size_t>(total)]);  // default-initialised: not zeroed
  // Contiguous shares of requests, one per thread (a turn's tokens depend
  // only on its seed, so the shares do not change them).
  const std::size_t shares = std::clamp<std::size_t>(jobs, 1, std::max<std::size_t>(1, requests_.size()));
  parallel_for(shares, static_cast<unsigned>(shares), [&](std::size_t k) {
    const std::size_t end = requests_.size() * (k + 1) / shares;
    for (std::size_t i = requests_.size() * k / shares; i < end; ++i)
      draw_turn(requests_[i], turn_store_.get() + turn_offsets_[i]);
  });
}

void Workload::draw_turn(const Request& r, Token* turn) const {
  Rng rng(r.turn_seed);
  // As uniform_int(0, vocab_size_ - 1).
  const std::uint64_t vocab = std::uint64_t{static_cast<std::uint32_t>(vocab_size_ - 1)} + 1;
  for (std::uint32_t k = 0; k < r.turn_tokens; ++k) turn[k] = static_cast<Token>(rng.below(vocab));
}

void Workload::prompt(std::size_t i, PromptPieces& out) const {
  const Request& r = requests_[i];
  out.clear();
  out.content = this;
  out.push(Piece{r.tenant, 0, static_cast<std::uint32_t>(prefixes_[r.tenant].size())});
  out.push(Piece{kTurnRun + i, 0, r.turn_tokens});
}

const Token* Workload::stored(RunId run) const {
  if (run < kTurnRun) return prefixes_[run].data();
  if (turn_offsets_.empty()) return nullptr;  // drawn on demand
  return turn_store_.get() + turn_offsets_[run - kTurnRun];
}

void Workload::copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const {
  if (const Token* t = stored(run)) {
    std::copy_n(t + offset, n, out);
    return;
  }
  // A turn drawn on demand: its tokens come from one sequential stream, so
  // token k needs the k before it (drawn and dropped).
  const Request& r = requests_[run - kTurnRun];
  Rng rng(r.turn_seed);
  const std::uint64_t vocab = std::uint64_t{static_cast<std::uint32_t>(vocab_size_ - 1)} + 1;
  for (std::uint32_t k = 0; k < offset; ++k) rng.below(vocab);
  for (std::uint32_t k = 0; k < n; ++k) out[k] = static_cast<Token>(rng.below(vocab));
}

std::uint64_t Workload::prompt_tokens(std::size_t i) const {
  return prefixes_[requests_[i].tenant].size() + requests_[i].turn_tokens;
}

std::vector<std::vector<Token>> draw_tenant_prefixes(const WorkloadConfig& config, std::uint64_t seed) {
  Rng tenant_rng(mix_seed(seed, 1));
  std::vector<std::vector<Token>> prefixes(config.tenants);
  for (auto& prefix : prefixes) {
    const auto length = tenant_rng.uniform_int(config.prefix_tokens_min, config.prefix_tokens_max);
    prefix.resize(length);
    for (auto& token : prefix)
      token = static_cast<Token>(tenant_rng.uniform_int(0, config.vocab_size - 1));
  }
  return prefixes;
}

Workload generate_workload(const WorkloadConfig& config, std::uint64_t seed, unsigned jobs) {
  // Independent streams for tenants and requests, so changing the request
  // count does not change the tenants' prefixes (and vice versa).
  std::vector<std::vector<Token>> prefixes = draw_tenant_prefixes(config, seed);
  Rng request_rng(mix_seed(seed, 2));

  const ZipfSampler popularity(config.tenants, config.zipf_s);
  std::vector<Request> requests(config.requests);
  Tick clock = 0;
  for (auto& r : requests) {
    clock += seconds_to_ticks(request_rng.exponential(config.arrival_rate_per_s));
    r.arrival = clock;
    r.tenant = static_cast<std::uint32_t>(popularity.sample(request_rng));
    r.turn_tokens = static_cast<std::uint32_t>(
        request_rng.uniform_int(config.turn_tokens_min, config.turn_tokens_max));
    r.turn_seed = request_rng.next_u64();
  }
  // Output lengths come from their own stream, drawn after the requests, so
  // enabling decode leaves arrivals, tenants and prompts exactly as they were.
  if (config.output_tokens_max > 0) {
    Rng output_rng(mix_seed(seed, 3));
    for (auto& r : requests)
      r.output_tokens = static_cast<std::uint32_t>(
          output_rng.uniform_int(config.output_tokens_min, config.output_tokens_max));
  }
  return Workload(std::move(prefixes), std::move(requests), config.vocab_size, jobs);
}

double Workload::estimated_bytes(const WorkloadConfig& config) {
  const double requests = static_cast<double>(config.requests);
  // The turns are kept when their drawn total fits kMaxStoredTurnTokens,
  // which a total bounded by requests x turn_tokens_max may.
  const double stored = std::min(requests * config.turn_tokens_max, static_cast<double>(kMaxStoredTurnTokens));
  return requests * sizeof(Request) + static_cast<double>(config.tenants) * config.prefix_tokens_max * sizeof(Token) +
         stored * sizeof(Token) + (requests + 1) * sizeof(std::uint32_t);
}

}  // namespace prefixroute
