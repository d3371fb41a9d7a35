#include "prefixroute/workload/shared_prefix_workload.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/random.h"
#include "prefixroute/workload/length_spread.h"
#include "prefixroute/workload/seeded_tokens.h"

namespace prefixroute {
namespace {

// Stream 6 of the seed (the tenants kind uses 1-3, the session kinds 4, gsp
// 5), split by purpose.
// (Names of their own: the unity builds compile this file with the other
// workloads' in one translation unit.)
enum PoolStream : std::uint64_t {
  kPoolSystemLengths = 1,
  kPoolQuestionLengths,
  kPoolOutputLengths,
  kPoolTokens,
  kPoolOrder,
  kPoolArrivals
};

Rng pool_stream(std::uint64_t seed, PoolStream s) { return Rng(mix_seed(mix_seed(seed, 6), s)); }

// The tokens' seed of entry e's response of round r.
std::uint64_t response_seed(std::uint64_t base, std::uint64_t e, std::uint64_t r) {
  return mix_seed(mix_seed(base, e), r);
}

}  // namespace

SharedPrefixParams SharedPrefixWorkload::params_of(const WorkloadConfig& w) {
  if (w.kind != "prefix_repetition") return w.shared_prefix;
  const PrefixRepetitionParams& r = w.prefix_repetition;
  SharedPrefixParams p;
  p.num_groups = r.num_prefixes;
  p.prompts_per_group = static_cast<std::uint32_t>(w.requests / r.num_prefixes);  // >= 1, validated
  p.system_prompt = LengthSpread{r.prefix_len, 0, 0, r.prefix_len};
  p.question = LengthSpread{r.suffix_len, 0, 0, r.suffix_len};
  p.output = LengthSpread{r.output_len, 0, 0, r.output_len};
  p.order = PoolOrder::Cycle;
  p.multi_turn = false;
  return p;
}

double SharedPrefixWorkload::requests(const WorkloadConfig& w) {
  if (w.kind != "prefix_repetition") return static_cast<double>(w.requests);
  const SharedPrefixParams p = params_of(w);
  return static_cast<double>(p.num_groups) * p.prompts_per_group;
}

SharedPrefixWorkload::SharedPrefixWorkload(const WorkloadConfig& w, std::uint64_t seed)
    : params_(params_of(w)), vocab_size_(w.vocab_size) {
  const std::uint64_t groups = params_.num_groups;
  const std::uint64_t n = groups * params_.prompts_per_group;  // <= 10^7, validated
  const auto count = static_cast<std::uint64_t>(requests(w));

  // Lengths, in inference-perf's order: every group's system prompt, then
  // per group its prompts' questions and outputs (each from its own stream).
  Rng system_lengths = pool_stream(seed, kPoolSystemLengths);
  Rng question_lengths = pool_stream(seed, kPoolQuestionLengths);
  Rng output_lengths = pool_stream(seed, kPoolOutputLengths);
  Rng tokens = pool_stream(seed, kPoolTokens);
  group_len_.resize(groups);
  for (auto& length : group_len_) length = draw_length(params_.system_prompt, system_lengths);
  group_seeds_.resize(groups);
  for (auto& s : group_seeds_) s = tokens.next_u64();
  entries_.resize(n);
  for (std::uint64_t e = 0; e < n; ++e) {
    Entry& entry = entries_[e];
    entry.group = static_cast<std::uint32_t>(e / params_.prompts_per_group);
    entry.question_len = draw_length(params_.question, question_lengths);
    entry.output_len = draw_length(params_.output, output_lengths);
    entry.question_seed = tokens.next_u64();
  }
  response_seed_ = tokens.next_u64();

  // The order: one shuffle of the pool, cycled, or a draw per request.
  Rng order = pool_stream(seed, kPoolOrder);
  requests_.resize(count);
  if (params_.order == PoolOrder::Cycle) {
    std::vector<std::uint32_t> perm(n);
    for (std::uint64_t e = 0; e < n; ++e) perm[e] = static_cast<std::uint32_t>(e);
    // Fisher-Yates: position i takes a uniform pick of positions [0, i].
    for (std::uint64_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[order.below(i)]);
    for (std::uint64_t i = 0; i < count; ++i) {
      requests_[i].entry = perm[i % n];
      requests_[i].round = static_cast<std::uint32_t>(i / n);  // < 2^24: requests <= 10^7
    }
  } else {
    for (Request& r : requests_) r.entry = static_cast<std::uint32_t>(order.below(n));  // single turn: round 0
  }
  Rng arrivals = pool_stream(seed, kPoolArrivals);
  Tick clock = 0;
  for (Request& r : requests_) {
    clock += seconds_to_ticks(arrivals.exponential(w.arrival_rate_per_s));
    r.arrival = clock;
  }
}

std::uint64_t SharedPrefixWorkload::prompt_tokens(std::size_t i) const {
  const Request& r = requests_[i];
  const Entry& e = entries_[r.entry];
  const std::uint64_t rounds = params_.multi_turn ? r.round : 0;
  return group_len_[e.group] + (rounds + 1) * e.question_len + rounds * e.output_len;
}

void SharedPrefixWorkload::prompt(std::size_t i, PromptPieces& out) const {
  const Request& r = requests_[i];
  const Entry& e = entries_[r.entry];
  out.clear();
  out.content = this;
  out.push(Piece{e.group, 0, group_len_[e.group]});  // push skips an empty piece
  const RunId question = kQuestionRun + r.entry;
  if (params_.multi_turn) {
    const RunId responses = kResponseRun + (RunId{r.entry} << kRoundBits);
    for (std::uint32_t k = 0; k < r.round; ++k) {
      out.push(Piece{question, 0, e.question_len});
      out.push(Piece{responses + k, 0, e.output_len});
    }
  }
  out.push(Piece{question, 0, e.question_len});
}

void SharedPrefixWorkload::copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const {
  std::uint64_t seed;
  if (run >= kResponseRun) {
    const RunId within = run - kResponseRun;
    seed = response_seed(response_seed_, within >> kRoundBits, within & ((RunId{1} << kRoundBits) - 1));
  } else if (run >= kQuestionRun) {
    seed = entries_[run - kQuestionRun].question_seed;
  } else {
    seed = group_seeds_[run];
  }
  seeded_tokens(seed, offset, n, vocab_size_, out);
}

std::uint64_t SharedPrefixWorkload::fingerprint() const {
  hashing::Fnv1a64 h;
  h.feed(vocab_size_);
  h.feed(params_.num_groups);
  h.feed(params_.prompts_per_group);
  h.feed(static_cast<std::uint64_t>(params_.order));
  h.feed(params_.multi_turn ? 1 : 0);
  h.feed(response_seed_);
  for (std::size_t g = 0; g < group_seeds_.size(); ++g) {
    h.feed(group_seeds_[g]);
    h.feed(group_len_[g]);
  }
  for (const Entry& e : entries_) {
    h.feed(e.question_seed);
    h.feed(e.group);
    h.feed(e.question_len);
    h.feed(e.output_len);
  }
  for (const Request& r : requests_) {
    h.feed(static_cast<std::uint64_t>(r.arrival));
    h.feed(r.entry);
    h.feed(r.round);
  }
  return h.value;
}

double SharedPrefixWorkload::max_rounds(const WorkloadConfig& w) {
  const SharedPrefixParams p = params_of(w);
  if (!p.multi_turn) return 1;
  const double pool = static_cast<double>(p.num_groups) * p.prompts_per_group;
  return std::ceil(requests(w) / pool);
}

double SharedPrefixWorkload::max_prompt_tokens(const WorkloadConfig& w) {
  const SharedPrefixParams p = params_of(w);
  const double rounds = max_rounds(w);
  return longest_length(p.system_prompt) + rounds * longest_length(p.question) +
         (rounds - 1) * longest_length(p.output);
}

double SharedPrefixWorkload::max_total_prompt_tokens(const WorkloadConfig& w) {
  const SharedPrefixParams p = params_of(w);
  const double system = longest_length(p.system_prompt), question = longest_length(p.question),
               output = longest_length(p.output);
  const double count = requests(w);
  if (!p.multi_turn) return count * (system + question);
  // Full rounds 0 .. R-2 of the whole pool, then the last round's requests.
  const double pool = static_cast<double>(p.num_groups) * p.prompts_per_group;
  const double rounds = max_rounds(w);
  const double full = rounds - 1;
  const double last = count - full * pool;
  return pool * (full * system + question * full * (full + 1) / 2 + output * full * (full - 1) / 2) +
         last * max_prompt_tokens(w);
}

double SharedPrefixWorkload::max_total_pieces(const WorkloadConfig& w) {
  const SharedPrefixParams p = params_of(w);
  const double count = requests(w);
  if (!p.multi_turn) return 2 * count;
  const double pool = static_cast<double>(p.num_groups) * p.prompts_per_group;
  const double rounds = max_rounds(w);
  const double full = rounds - 1;
  return pool * full * (full + 1) + (count - full * pool) * 2 * rounds;
}

double SharedPrefixWorkload::estimated_bytes(const WorkloadConfig& w) {
  const SharedPrefixParams p = params_of(w);
  const double pool = static_cast<double>(p.num_groups) * p.prompts_per_group;
  // The shuffle's permutation lives while the requests are made.
  return static_cast<double>(p.num_groups) * (sizeof(std::uint64_t) + sizeof(std::uint32_t)) +
         pool * (sizeof(Entry) + sizeof(std::uint32_t)) + requests(w) * sizeof(Request);
}

}  // namespace prefixroute
