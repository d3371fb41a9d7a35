// Lockstep fuzzer: RadixCache against a trivially correct model of the rule
// documented in radix_cache.h, driven by libFuzzer input.
//
// The input picks a small capacity, protection threshold and alphabet, then a
// sequence of operations: peeks (match), inserts, and (in pin mode) insert +
// pin, unpin, reserve and release. Prompts are short and often reuse a prefix
// of a recent prompt, so edges split, hits accumulate and evictions happen all
// the time. After every operation each answer of the cache is compared with
// the model and with brute force over leaf_paths(); any disagreement aborts.
//
// The model is tests/support/reference_radix_cache.h (shared with the seeded
// GoogleTest lockstep in tests/cache/radix_cache_test.cpp): no tree, every rule
// applied by brute force on the set of node end points.
//
// Operations are counted; the totals are printed at exit (and every 2^22
// operations) so a long run can state how many it checked.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "prefixroute/cache/radix_cache.h"
#include "lockstep_pins.h"
#include "reference_radix_cache.h"

namespace {

using prefixroute::RadixCache;
using prefixroute::Token;
using namespace prefixroute::reference;

struct Counters {
  std::uint64_t inputs = 0;
  std::uint64_t operations = 0;
  std::uint64_t matches = 0;
  std::uint64_t inserts = 0;
  std::uint64_t evictions = 0;  // inserts or reserves that evicted something
  std::uint64_t pin_ops = 0;    // pin, unpin, reserve, release
  ~Counters() {
    std::fprintf(stderr,
                 "lockstep totals: %llu operations (%llu matches, %llu inserts, %llu evicting, "
                 "%llu pin/reserve) over %llu inputs, 0 mismatches\n",
                 static_cast<unsigned long long>(operations), static_cast<unsigned long long>(matches),
                 static_cast<unsigned long long>(inserts), static_cast<unsigned long long>(evictions),
                 static_cast<unsigned long long>(pin_ops), static_cast<unsigned long long>(inputs));
  }
};
Counters counters;

void count_operation() {
  if ((++counters.operations & ((1u << 22) - 1)) == 0)
    std::fprintf(stderr, "lockstep: %llu operations, 0 mismatches\n",
                 static_cast<unsigned long long>(counters.operations));
}

[[noreturn]] void mismatch(const std::string& what, std::size_t step) {
  std::fprintf(stderr, "LOCKSTEP MISMATCH at operation %zu of this input: %s\n", step, what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const auto capacity = in.ConsumeIntegralInRange<std::size_t>(0, 48);
  const auto protect = in.ConsumeIntegralInRange<std::uint32_t>(0, 5);
  const auto alphabet = in.ConsumeIntegralInRange<Token>(1, 5);
  const auto max_len = in.ConsumeIntegralInRange<std::size_t>(1, 20);
  const bool pins = in.ConsumeBool();
  ++counters.inputs;
  // PREFIXROUTE_FUZZ_VERBOSE=1 prints every operation (to replay a crash input by hand).
  static const bool verbose = std::getenv("PREFIXROUTE_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "capacity %zu protect_after_hits %u alphabet %u max_len %zu pins %d\n", capacity,
                 protect, alphabet, max_len, pins ? 1 : 0);

  RadixCache cache(capacity, protect);
  ReferenceRadixCache model(capacity, protect);
  Paths recent;  // recent prompts, to derive prompts sharing their prefixes
  LockstepPins pinned(/*max_pinned=*/6);  // keep the cache mostly evictable
  std::size_t reserved = 0;

  for (std::size_t step = 0; in.remaining_bytes() > 0 && step < 4096; ++step) {
    const int op = in.ConsumeIntegralInRange<int>(0, pins ? 9 : 5);

    if (op >= 7) {  // pin mode only: unpin, reserve, release
      ++counters.pin_ops;
      if (verbose) std::fprintf(stderr, "%zu: op %d (7 unpin, 8 reserve, 9 release)\n", step, op);
      count_operation();
      if (op == 7 && !pinned.empty()) {
        const auto k = in.ConsumeIntegralInRange<std::size_t>(0, pinned.size() - 1);
        if (verbose) std::fprintf(stderr, "   unpin %s\n", show(pinned.path(k)).c_str());
        pinned.unpin(cache, model, k);
      } else if (op == 8) {
        const auto t = in.ConsumeIntegralInRange<std::size_t>(0, 12);
        if (verbose) std::fprintf(stderr, "   reserve %zu\n", t);
        cache.reserve(t);
        reserved += t;
        if (model.reserve(t) > 0) ++counters.evictions;
      } else if (op == 9 && reserved > 0) {
        const auto t = in.ConsumeIntegralInRange<std::size_t>(1, reserved);
        if (verbose) std::fprintf(stderr, "   release %zu\n", t);
        cache.release(t);
        model.release(t);
        reserved -= t;
      }
      if (model.saw_recency_tie) mismatch("two eviction candidates tied on (protected, last_access)", step);
      if (cache.size() != model.size() || cache.used() != model.used())
        mismatch("size/used differ after a pin-mode operation", step);
      if (cache.leaf_paths() != model.leaf_paths()) mismatch("leaf paths differ after a pin-mode operation", step);
      if (op == 8 && cache.used() > capacity && model.candidates(nullptr) > 0)
        mismatch("used > capacity after reserve with evictable leaves left", step);
      const std::string problem = cache.check_invariants();
      if (!problem.empty()) mismatch("check_invariants after op " + std::to_string(op) + ": " + problem, step);
      continue;
    }

    // A prompt: fresh, or a prefix of a recent one with a new tail.
    Tokens prompt;
    const auto reuse = in.ConsumeIntegralInRange<int>(0, 3);
    if (reuse > 0 && !recent.empty()) {
      const Tokens& base = recent[in.ConsumeIntegralInRange<std::size_t>(0, recent.size() - 1)];
      prompt.assign(base.begin(),
                    base.begin() + static_cast<std::ptrdiff_t>(in.ConsumeIntegralInRange<std::size_t>(0, base.size())));
    }
    const auto tail = in.ConsumeIntegralInRange<std::size_t>(0, max_len);
    for (std::size_t i = 0; i < tail && in.remaining_bytes() > 0; ++i)
      prompt.push_back(in.ConsumeIntegralInRange<Token>(0, alphabet - 1));
    if (prompt.size() > 2 * max_len) prompt.resize(2 * max_len);

    count_operation();
    const Paths leaves_before = cache.leaf_paths();
    if (verbose) {
      std::fprintf(stderr, "%zu: %s %s; cache before:", step, op <= 1 ? "match" : op == 6 ? "insert+pin" : "insert",
                   show(prompt).c_str());
      for (const Tokens& leaf : leaves_before) std::fprintf(stderr, " %s", show(leaf).c_str());
      std::fprintf(stderr, " (used %zu)\n", cache.used());
    }
    if (op <= 1) {  // a peek: agrees with brute force and the model, changes nothing
      ++counters.matches;
      const std::size_t m = cache.match(prompt);
      if (m != brute_force_match(leaves_before, prompt))
        mismatch("match " + show(prompt) + " = " + std::to_string(m) + ", brute force says " +
                     std::to_string(brute_force_match(leaves_before, prompt)), step);
      if (m != model.match(prompt)) mismatch("match differs from the model", step);
      if (cache.leaf_paths() != leaves_before) mismatch("match changed the cache", step);
      continue;
    }

    ++counters.inserts;
    recent.push_back(prompt);
    if (recent.size() > 8) recent.erase(recent.begin());
    const std::size_t kept = std::min(prompt.size(), capacity);
    const Tokens kept_part(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(kept));
    const auto got = cache.insert(prompt);
    const auto want = model.insert(prompt);
    if (model.saw_recency_tie) mismatch("two eviction candidates tied on (protected, last_access)", step);
    if (got.evicted_tokens > 0) ++counters.evictions;
    if (got.cached_tokens != brute_force_match(leaves_before, kept_part))
      mismatch("insert " + show(prompt) + " reported " + std::to_string(got.cached_tokens) +
                   " cached tokens; brute force says " + std::to_string(brute_force_match(leaves_before, kept_part)),
               step);
    if (got.cached_tokens != want.cached_tokens || got.inserted_tokens != want.inserted_tokens ||
        got.evicted_tokens != want.evicted_tokens)
      mismatch("insert " + show(prompt) + " counts (cached, inserted, evicted) = (" +
                   std::to_string(got.cached_tokens) + ", " + std::to_string(got.inserted_tokens) + ", " +
                   std::to_string(got.evicted_tokens) + "), model (" + std::to_string(want.cached_tokens) + ", " +
                   std::to_string(want.inserted_tokens) + ", " + std::to_string(want.evicted_tokens) + ")",
               step);
    if (cache.size() != model.size()) mismatch("size differs from the model", step);
    if (cache.used() != model.used()) mismatch("used differs from the model", step);
    if (cache.node_count() != model.node_count()) mismatch("node count differs from the model", step);
    if (cache.evicted_total() != model.evicted_total()) mismatch("evicted_total differs from the model", step);
    const Paths leaves = cache.leaf_paths();
    if (leaves != model.leaf_paths()) mismatch("leaf paths differ from the model after insert " + show(prompt), step);
    if (cache.size() != brute_force_size(leaves)) mismatch("size != recount of the leaf paths", step);
    if (cache.match(kept_part) != kept) mismatch("the kept part of " + show(prompt) + " is not fully cached", step);
    // The budget holds unless nothing but the kept path and pinned nodes is
    // left (an empty prompt changes nothing, so it runs no eviction pass).
    if (!kept_part.empty() && cache.used() > capacity && model.candidates(&kept_part) > 0)
      mismatch("used " + std::to_string(cache.used()) + " > capacity " + std::to_string(capacity) +
                   " with evictable leaves left", step);
    if (!pins && cache.size() > capacity) mismatch("size > capacity", step);
    const std::string problem = cache.check_invariants();
    if (!problem.empty()) mismatch("check_invariants after insert " + show(prompt) + ": " + problem, step);

    if (op == 6 && pins && !kept_part.empty()) {  // the simulator's pattern: pin right after insert
      ++counters.pin_ops;
      pinned.pin(cache, model, got.path, kept_part);
    }
  }
  return 0;
}
