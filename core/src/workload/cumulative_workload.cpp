#include "prefixroute/workload/cumulative_workload.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/random.h"

namespace prefixroute {
namespace {

// Stream 8 of the seed, split by purpose (the conversations draw from the
// sessions kind's streams 1 and 4).
// (Names of their own: the unity builds compile this file with the other
// workloads' in one translation unit.)
enum CumulativeStream : std::uint64_t { kCumulativeOrder = 1, kCumulativeArrivals };

Rng cumulative_stream(std::uint64_t seed, CumulativeStream s) { return Rng(mix_seed(mix_seed(seed, 8), s)); }

}  // namespace

WorkloadConfig CumulativeWorkload::conversations_config(const WorkloadConfig& w) {
  WorkloadConfig c = w;
  c.kind = "sessions";
  c.requests = w.cumulative.pool_prompts;
  // A history is compacted only when a prompt would pass 2^32 - 1 tokens,
  // far past max_prompt_tokens (at most 10^7): every compacted call is
  // pruned with the call before it.
  c.sessions.context_tokens_max = std::numeric_limits<std::uint32_t>::max();
  return c;
}

CumulativeWorkload::CumulativeWorkload(const WorkloadConfig& w, std::uint64_t seed)
    : conversations_(conversations_config(w), seed), vocab_size_(w.vocab_size), tenants_(w.tenants) {
  const std::size_t n = conversations_.size();
  // The calls in conversation order (session, then index): KubeAI's list
  // before its shuffle. Sessions are numbered in start order from 0 and
  // calls within one from 0, so a counting sort places them.
  std::vector<std::uint32_t> first(conversations_.sessions() + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++first[conversations_.call(i).session + 1];
  for (std::size_t s = 1; s < first.size(); ++s) first[s] += first[s - 1];
  std::vector<std::uint32_t> ordered(n);
  for (std::size_t i = 0; i < n; ++i) {
    const SessionWorkload::Call& c = conversations_.call(i);
    ordered[first[c.session] + c.index] = static_cast<std::uint32_t>(i);
  }
  // Pruned: a prompt over max_prompt_tokens, and every later prompt of its
  // conversation (they only grow; a compacted one, past 2^32 tokens, is
  // never reached before its conversation is pruned).
  std::vector<bool> pruned(n, false);
  std::uint32_t dead_session = std::numeric_limits<std::uint32_t>::max();
  for (const std::uint32_t i : ordered) {
    const SessionWorkload::Call& c = conversations_.call(i);
    if (c.session != dead_session && (c.compacted || c.prompt_tokens > w.cumulative.max_prompt_tokens))
      dead_session = c.session;
    pruned[i] = c.session == dead_session;
  }
  // Shuffled (Fisher-Yates, as Python's random.shuffle: position i takes a
  // uniform pick of positions [0, i]), then the pruned left out.
  Rng order = cumulative_stream(seed, kCumulativeOrder);
  for (std::size_t i = n; i > 1; --i) std::swap(ordered[i - 1], ordered[order.below(i)]);
  pool_.reserve(n);
  for (const std::uint32_t i : ordered)
    if (!pruned[i]) pool_.push_back(i);
  Rng arrivals = cumulative_stream(seed, kCumulativeArrivals);
  arrivals_.resize(w.requests);
  Tick clock = 0;
  for (Tick& t : arrivals_) {
    clock += seconds_to_ticks(arrivals.exponential(w.arrival_rate_per_s));
    t = clock;
  }
}

std::uint64_t CumulativeWorkload::fingerprint() const {
  // What is sent, not how the conversations are stored: their calls' order
  // in conversations_ follows the sessions kind's arrivals, which this trace
  // does not use, so the pool is hashed as its prompts' pieces.
  hashing::Fnv1a64 h;
  h.feed(vocab_size_);
  for (std::uint32_t t = 0; t < tenants_; ++t) {
    const std::vector<Token>& prefix = conversations_.tenant_prefix(t);
    h.feed(prefix.size());
    h.feed_tokens(prefix.data(), prefix.size());
  }
  for (std::size_t m = 0; m < conversations_.message_count(); ++m) {
    const SessionWorkload::Message& message = conversations_.message(m);
    h.feed(static_cast<std::uint64_t>(message.kind));
    h.feed(message.seed);
    h.feed(message.tokens);
  }
  PromptPieces pieces;
  h.feed(pool_.size());
  for (const std::uint32_t c : pool_) {
    h.feed(conversations_.prompt_tokens(c));
    h.feed(conversations_.output_tokens(c));
    conversations_.prompt(c, pieces);
    for (const Piece& p : pieces.pieces) {
      h.feed(p.run);
      h.feed(p.offset);
      h.feed(p.length);
    }
  }
  for (const Tick t : arrivals_) h.feed(static_cast<std::uint64_t>(t));
  return h.value;
}

double CumulativeWorkload::max_prompt_tokens(const WorkloadConfig& w) {
  return std::min<double>(w.cumulative.max_prompt_tokens, SessionWorkload::max_prompt_tokens(conversations_config(w)));
}

double CumulativeWorkload::estimated_bytes(const WorkloadConfig& w) {
  const double pool = w.cumulative.pool_prompts;
  // The pool, and while it is made the calls' order, their session offsets
  // (at most one session per call) and the pruned flags.
  return SessionWorkload::estimated_bytes(conversations_config(w)) +
         pool * (3 * sizeof(std::uint32_t) + 1) + static_cast<double>(w.requests) * sizeof(Tick);
}

}  // namespace prefixroute
