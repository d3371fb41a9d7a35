#include "prefixroute/workload/gsp_workload.h"

#include <utility>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/random.h"
#include "prefixroute/workload/seeded_tokens.h"

namespace prefixroute {

GspWorkload::GspWorkload(const WorkloadConfig& w, std::uint64_t seed) : params_(w.gsp), vocab_size_(w.vocab_size) {
  // Stream 5: the tenants kind uses 1-3, the session kinds 4.
  Rng rng(mix_seed(seed, 5));
  group_seeds_.resize(params_.num_groups);
  for (auto& s : group_seeds_) s = rng.next_u64();
  const std::uint64_t n = std::uint64_t{params_.num_groups} * params_.prompts_per_group;  // <= 10^7, validated
  question_seeds_.resize(n);
  for (auto& s : question_seeds_) s = rng.next_u64();
  entries_.resize(n);
  for (std::uint64_t j = 0; j < n; ++j) {
    entries_[j].group = static_cast<std::uint32_t>(j / params_.prompts_per_group);
    entries_[j].question = static_cast<std::uint32_t>(j);
  }
  // Fisher-Yates, as Python's random.shuffle: position i takes a uniform pick
  // of positions [0, i].
  for (std::uint64_t i = n; i > 1; --i) std::swap(entries_[i - 1], entries_[rng.below(i)]);
  Tick clock = 0;
  for (Entry& e : entries_) {
    clock += seconds_to_ticks(rng.exponential(w.arrival_rate_per_s));
    e.arrival = clock;
  }
}

void GspWorkload::prompt(std::size_t i, PromptPieces& out) const {
  const Entry& e = entries_[i];
  out.clear();
  out.content = this;
  out.push(Piece{e.group, 0, params_.system_prompt_len});  // push skips an empty system prompt
  out.push(Piece{kQuestionRun + e.question, 0, params_.question_len});
}

void GspWorkload::copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const {
  const std::uint64_t seed = run < kQuestionRun ? group_seeds_[run] : question_seeds_[run - kQuestionRun];
  seeded_tokens(seed, offset, n, vocab_size_, out);
}

std::uint64_t GspWorkload::fingerprint() const {
  hashing::Fnv1a64 h;
  h.feed(vocab_size_);
  h.feed(params_.num_groups);
  h.feed(params_.prompts_per_group);
  h.feed(params_.system_prompt_len);
  h.feed(params_.question_len);
  h.feed(params_.output_len);
  for (const std::uint64_t s : group_seeds_) h.feed(s);
  for (const std::uint64_t s : question_seeds_) h.feed(s);
  for (const Entry& e : entries_) {
    h.feed(static_cast<std::uint64_t>(e.arrival));
    h.feed(e.group);
    h.feed(e.question);
  }
  return h.value;
}

double GspWorkload::estimated_bytes(const WorkloadConfig& w) {
  const double n = requests(w);
  return static_cast<double>(w.gsp.num_groups) * sizeof(std::uint64_t) + n * (sizeof(std::uint64_t) + sizeof(Entry));
}

}  // namespace prefixroute
