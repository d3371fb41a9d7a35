// The batched engine's step loop (sim/batched_engine.h), driven request by
// request on crafted states: what each step schedules, when first tokens and
// completions come, how KV blocks are held, shared, refused and preempted.
// One token of work is 1 ms (1000 tokens/s) unless a test says otherwise.
#include "prefixroute/sim/batched_engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/sim/simulator.h"
#include "tokens.h"

namespace prefixroute::batched_engine_test {
namespace {

using testsupport::concat;
using testsupport::prompt_of;
using testsupport::run_of;
using testsupport::test_store;
using testsupport::Tokens;

constexpr Tick kMs = kTicksPerMillisecond;

ClusterConfig cluster(std::uint64_t cache_tokens, std::uint64_t budget = 8192, std::uint32_t max_running = 256,
                      std::uint32_t block = 1) {
  ClusterConfig c;
  c.replicas = 1;
  c.cache_tokens = cache_tokens;
  c.protect_after_hits = 0;
  c.prefill.tokens_per_s = 1000;
  c.engine = EngineKind::Batched;
  c.max_batched_tokens = budget;
  c.max_running = max_running;
  c.kv_block_tokens = block;
  return c;
}

// Drives one BatchedEngine as the simulator would: a request arriving at t is
// admitted after the engine's events before t (and those at t that precede
// arrivals), and steps formed at t come after the arrivals of t.
class Harness final : public EngineEvents {
 public:
  explicit Harness(const ClusterConfig& c) : config_(c) {
    for (std::uint32_t i = 0; i < c.replicas; ++i)
      replicas_.emplace_back(RadixCache(c.cache_tokens, c.protect_after_hits, &test_store()));
    engine_ = std::make_unique<BatchedEngine>(config_, replicas_, /*record_cache_ops=*/true);
    engine_->set_step_observer([this](const StepRecord& s) {
      steps.push_back(s);
      if (check_invariants) {
        const std::string problem = replicas_[s.replica].cache().check_invariants();
        EXPECT_EQ(problem, "") << "step at " << s.start;
      }
    });
  }

  std::uint64_t arrive(Tick at, const Tokens& prompt, std::uint32_t output, std::uint32_t replica = 0) {
    run_to(at, false);
    prompts_.push_back(std::make_unique<PromptPieces>(test_store().prompt(prompt)));
    EngineRequest request;
    request.id = next_id_++;
    request.arrival = at;
    request.prompt = prompts_.back().get();
    request.output_tokens = output;
    engine_->admit(replica, request, at, 0, *this);
    return request.id;
  }

  // Everything up to `t`; with `inclusive`, also what comes after arrivals at t.
  void run_to(Tick t, bool inclusive) {
    for (;;) {
      const EventKey next = engine_->next_event();
      if (next == kNoEvent || next.time > t) break;
      if (next.time == t && next.seq >= kAfterArrivals && !inclusive) break;
      engine_->handle_next_event(*this);
    }
  }
  void drain() { run_to(std::numeric_limits<Tick>::max() - 1, true); }

  void admitted(std::uint64_t id, std::uint32_t, std::uint64_t cached_tokens) override { cached[id] = cached_tokens; }
  void first_token(std::uint64_t id, std::uint32_t, Tick, Tick now) override { first_token_at[id] = now; }
  void completed(std::uint64_t id, std::uint32_t, Tick, Tick now, std::uint64_t decode_tokens) override {
    completed_at[id] = now;
    decoded[id] = decode_tokens;
  }
  void cache_op(const CacheOp& op, Tick now) override {
    if (op.kind == CacheOp::Kind::Insert) inserts.push_back({op.request, op.length, now});
  }

  Replica& replica(std::uint32_t i = 0) { return replicas_[i]; }
  BatchedEngine& engine() { return *engine_; }

  // The step ends at which request `id` computed tokens, in order.
  std::vector<Tick> step_ends_of(std::uint64_t id) const {
    std::vector<Tick> ends;
    for (const StepRecord& s : steps)
      for (const StepRecord::Entry& e : s.entries)
        if (e.id == id) ends.push_back(s.end);
    return ends;
  }

  struct Insert {  // a KV event: request's pinned path grew to `length`
    std::uint64_t request;
    std::size_t length;
    Tick at;
    bool operator==(const Insert&) const = default;
  };
  std::vector<StepRecord> steps;
  std::vector<Insert> inserts;
  std::map<std::uint64_t, std::uint64_t> cached, decoded;
  std::map<std::uint64_t, Tick> first_token_at, completed_at;
  bool check_invariants = true;

 private:
  ClusterConfig config_;
  std::vector<Replica> replicas_;
  std::unique_ptr<BatchedEngine> engine_;
  std::vector<std::unique_ptr<PromptPieces>> prompts_;
  std::uint64_t next_id_ = 0;
};

using Entries = std::vector<std::pair<std::uint64_t, std::uint64_t>>;  // (id, tokens)

Entries entries_of(const StepRecord& s) {
  Entries out;
  for (const StepRecord::Entry& e : s.entries) out.emplace_back(e.id, e.tokens);
  return out;
}

TEST(BatchedEngine, AStepRunsDecodesFirstThenFillsTheBudgetWithWaitingPromptsInArrivalOrder) {
  Harness h(cluster(100'000, /*budget=*/100));
  const auto a = h.arrive(0, run_of(1000, 30), 3);
  const auto b = h.arrive(0, run_of(2000, 200), 1);
  const auto c = h.arrive(0, run_of(3000, 10), 1);
  h.drain();
  ASSERT_EQ(h.steps.size(), 3u);
  EXPECT_EQ(entries_of(h.steps[0]), (Entries{{a, 30}, {b, 70}}));           // b chunked; c does not fit the budget
  EXPECT_EQ(entries_of(h.steps[1]), (Entries{{a, 1}, {b, 99}}));            // a decodes, b's next chunk
  EXPECT_EQ(entries_of(h.steps[2]), (Entries{{a, 1}, {b, 31}, {c, 10}}));   // b's last chunk, then c
  EXPECT_EQ(h.steps[0].end, 100 * kMs);
  EXPECT_EQ(h.steps[1].end, 200 * kMs);
  EXPECT_EQ(h.steps[2].end, 242 * kMs);
  // A first token at the end of the step that computes a prompt's last chunk,
  // then one token per step until the output length.
  EXPECT_EQ(h.first_token_at[a], 100 * kMs);
  EXPECT_EQ(h.completed_at[a], 242 * kMs);
  EXPECT_EQ(h.decoded[a], 2u);
  EXPECT_EQ(h.first_token_at[b], 242 * kMs);
  EXPECT_EQ(h.completed_at[b], 242 * kMs);
  EXPECT_EQ(h.first_token_at[c], 242 * kMs);
  EXPECT_EQ(h.decoded[c], 0u);
}

TEST(BatchedEngine, MaxRunningCapsTheSequencesOfAStep) {
  Harness h(cluster(100'000, 8192, /*max_running=*/2));
  const auto a = h.arrive(0, run_of(1000, 10), 5);
  const auto b = h.arrive(0, run_of(2000, 10), 2);
  const auto c = h.arrive(0, run_of(3000, 10), 1);
  h.drain();
  EXPECT_EQ(entries_of(h.steps[0]), (Entries{{a, 10}, {b, 10}}));
  EXPECT_EQ(entries_of(h.steps[1]), (Entries{{a, 1}, {b, 1}}));  // b completes here
  EXPECT_EQ(entries_of(h.steps[2]), (Entries{{a, 1}, {c, 10}}));
  for (const StepRecord& s : h.steps) EXPECT_LE(s.entries.size(), 2u);
}

TEST(BatchedEngine, ARequestArrivingAsAStepEndsJoinsTheNextStep) {
  Harness h(cluster(100'000));
  const auto a = h.arrive(0, run_of(1000, 10), 3);
  const auto b = h.arrive(10 * kMs, run_of(2000, 5), 1);  // the tick a's first step ends
  h.drain();
  EXPECT_EQ(entries_of(h.steps[1]), (Entries{{a, 1}, {b, 5}}));
  EXPECT_EQ(h.steps[1].start, 10 * kMs);
  // Arriving at an idle replica, a request starts at once.
  Harness idle(cluster(100'000));
  idle.arrive(7 * kMs, run_of(1000, 4), 1);
  idle.drain();
  EXPECT_EQ(idle.steps[0].start, 7 * kMs);
  EXPECT_EQ(idle.steps[0].end, 11 * kMs);
}

TEST(BatchedEngine, CacheHitsSkipPrefillInWholeBlocksAndNeverTheLastToken) {
  Harness h(cluster(100'000, 8192, 256, /*block=*/16));
  const Tokens x = run_of(1000, 100);
  const auto first = h.arrive(0, x, 1);
  const auto extended = h.arrive(1000 * kMs, concat(x, run_of(5000, 20)), 1);
  const auto same = h.arrive(2000 * kMs, x, 1);
  h.drain();
  EXPECT_EQ(h.cached[first], 0u);
  EXPECT_EQ(h.cached[extended], 96u);  // 100 matched: 6 whole blocks
  EXPECT_EQ(h.cached[same], 96u);      // 99 at most (the last token is computed): still 6 blocks
  EXPECT_EQ(h.steps[1].entries[0].tokens, 24u);
  EXPECT_EQ(h.steps[2].entries[0].tokens, 4u);
  EXPECT_EQ(h.replica().cached_tokens(), 192u);
  EXPECT_EQ(h.replica().prefill_tokens(), 100u + 24u + 4u);
  // A prompt of whole blocks, entirely cached, still computes its last
  // block: the hit stops at tokens - 1, rounded down to a block.
  const Tokens aligned = run_of(7000, 96);
  h.arrive(3000 * kMs, aligned, 1);
  const auto again = h.arrive(4000 * kMs, aligned, 1);
  h.drain();
  EXPECT_EQ(h.cached[again], 80u);
  EXPECT_EQ(h.steps.back().entries[0].tokens, 16u);
}

TEST(BatchedEngine, RunningRequestsShareTheirPromptBlocksInTheCache) {
  Harness h(cluster(100'000, 8192, 256, /*block=*/16));
  const Tokens shared = run_of(1000, 64);
  const auto a = h.arrive(0, concat(shared, run_of(5000, 8)), 50);
  const auto b = h.arrive(100 * kMs, concat(shared, run_of(6000, 8)), 50);
  h.run_to(100 * kMs, true);
  // b finds a's 4 whole prompt blocks and computes only its own 8 tokens.
  EXPECT_EQ(h.cached[b], 64u);
  const StepRecord& joined = h.steps.back();
  EXPECT_EQ(entries_of(joined), (Entries{{a, 1}, {b, 8}}));
  // The 64 shared tokens are held once; each request also holds its private
  // blocks: a's last prompt block and its outputs, b's 8 prompt tokens.
  EXPECT_EQ(h.replica().cache().pinned_tokens(), 64u);
  const std::uint64_t a_tokens = joined.entries[0].context + 1;
  EXPECT_EQ(joined.held_tokens, 64u + ((a_tokens + 15) / 16 * 16 - 64) + 16u);
}

TEST(BatchedEngine, ARequestWhoseBlocksDoNotFitWaitsAndNoLaterRequestOvertakesIt) {
  Harness h(cluster(/*cache=*/64, 8192, 256, /*block=*/16));
  const auto a = h.arrive(0, run_of(1000, 32), 20);      // up to 51 tokens: 4 blocks
  const auto b = h.arrive(1 * kMs, run_of(2000, 40), 1); // 3 blocks: only once a is done
  const auto c = h.arrive(2 * kMs, run_of(3000, 8), 1);  // 1 block would fit, but b is first
  h.drain();
  EXPECT_EQ(h.first_token_at[b], h.steps[h.steps.size() - 1].end);
  EXPECT_GE(h.steps.back().start, h.completed_at[a]);
  EXPECT_EQ(h.first_token_at[c], h.first_token_at[b]);
  for (const StepRecord& s : h.steps) EXPECT_LE(s.held_tokens, 64u);
  EXPECT_EQ(h.engine().load(0).held_tokens, 0u);
}

TEST(BatchedEngine, DecodeGrowthPreemptsTheMostRecentlyAdmittedRequestWhichRecomputesLater) {
  Harness h(cluster(/*cache=*/64, 8192, 256, /*block=*/16));
  const auto a = h.arrive(0, run_of(1000, 16), 40);
  const auto b = h.arrive(0, run_of(2000, 16), 40);
  h.drain();
  // Both run until each holds 2 blocks (32 tokens); a's third block preempts b.
  std::size_t preempted_at = 0;
  for (std::size_t i = 0; i < h.steps.size() && preempted_at == 0; ++i)
    if (h.steps[i].entries.size() == 1 && h.steps[i].waiting == 1) preempted_at = i;
  ASSERT_GT(preempted_at, 0u);
  EXPECT_EQ(h.steps[preempted_at].entries[0].id, a);
  EXPECT_EQ(h.steps[preempted_at].entries[0].context, 32u);
  SimulationRun run;
  run.replicas.resize(1);
  h.engine().finish(run);
  EXPECT_EQ(run.replicas[0].preemptions, 1u);
  // b comes back once a completes. Its freed prompt block stayed cached but
  // evictable, and a's growth took it (as vLLM's free queue hands out cached
  // blocks), so b computes its 16 prompt and 17 sampled tokens again.
  EXPECT_EQ(h.first_token_at.count(b), 1u);
  EXPECT_EQ(run.replicas[0].recomputed_tokens, 33u);
  EXPECT_EQ(h.decoded[b], 39u);
  EXPECT_EQ(h.completed_at.size(), 2u);
  EXPECT_EQ(run.replicas[0].overcommits, 0u);
  for (const StepRecord& s : h.steps) EXPECT_LE(s.held_tokens, 64u);
}

// vLLM puts a preempted request back at the head of the waiting queue: it
// resumes before requests that arrived after it. As above: a and b prefill
// 0 - 32 ms, then decode together in 2 ms steps while c (8 tokens, 1 block)
// waits behind the full cache; at 64 ms a's 33rd token preempts b. b, back at
// the head, needs 3 blocks (its 16 prompt and 17 sampled tokens) and waits
// for a, so c, which alone would fit beside a, waits too. a decodes alone
// until it completes at 87 ms; then b and c are admitted in one step, b
// first: 33 + 8 tokens, so c's first token is at 128 ms.
TEST(BatchedEngine, APreemptedRequestResumesBeforeRequestsThatWaitedBehindIt) {
  Harness h(cluster(/*cache=*/64, 8192, 256, /*block=*/16));
  const auto a = h.arrive(0, run_of(1000, 16), 40);
  const auto b = h.arrive(0, run_of(2000, 16), 40);
  const auto c = h.arrive(1 * kMs, run_of(3000, 8), 1);
  h.drain();
  SimulationRun run;
  run.replicas.resize(1);
  h.engine().finish(run);
  ASSERT_EQ(run.replicas[0].preemptions, 1u);
  ASSERT_EQ(h.completed_at.size(), 3u);
  EXPECT_EQ(h.completed_at[a], 87 * kMs);
  EXPECT_EQ(h.first_token_at[c], 128 * kMs);  // not admitted beside a
  // The step that admits c admits b again, ahead of it.
  bool admitted_c = false;
  for (const StepRecord& s : h.steps) {
    const auto at_c = std::find_if(s.entries.begin(), s.entries.end(), [&](const auto& e) { return e.id == c; });
    if (at_c == s.entries.end()) continue;
    ASSERT_GE(s.start, h.completed_at[a]);
    ASSERT_EQ(s.entries.size(), 2u);
    EXPECT_EQ(s.entries[0].id, b);
    EXPECT_EQ(s.entries[0].context, 0u);  // recomputing from the start
    EXPECT_EQ(s.entries[1].id, c);
    admitted_c = true;
    break;
  }
  EXPECT_TRUE(admitted_c);
  for (const StepRecord& s : h.steps) EXPECT_LE(s.held_tokens, 64u);
}

TEST(BatchedEngine, ARequestLargerThanTheWholeCacheRunsAloneAsACountedOvercommit) {
  Harness h(cluster(/*cache=*/32, 8192, 256, /*block=*/16));
  const auto big = h.arrive(0, run_of(1000, 100), 2);
  const auto small = h.arrive(0, run_of(2000, 8), 1);
  h.drain();
  EXPECT_EQ(entries_of(h.steps[0]), (Entries{{big, 100}}));
  EXPECT_TRUE(h.steps[0].overcommitted);
  EXPECT_EQ(h.steps[0].held_tokens, 112u);  // the cache keeps 32 tokens of it, the rest is reserved
  EXPECT_EQ(h.completed_at.count(small), 1u);
  EXPECT_GE(h.first_token_at[small], h.completed_at[big]);
}

TEST(BatchedEngine, BusyUntilIsTheStepsEndPlusThePrefillAdmittedAndNotYetScheduled) {
  Harness h(cluster(100'000, /*budget=*/1000));
  h.arrive(0, run_of(1000, 1500), 1);
  EXPECT_EQ(h.replica().busy_until(), 1500 * kMs);  // idle: now + 1500 tokens at 1 ms
  h.arrive(0, run_of(5000, 300), 1);
  EXPECT_EQ(h.replica().busy_until(), 1800 * kMs);
  h.run_to(0, true);  // the first step: 1000 tokens of the first prompt
  EXPECT_EQ(h.replica().busy_until(), 1000 * kMs + 800 * kMs);
  h.drain();
  EXPECT_EQ(h.replica().busy_until(), 1800 * kMs);
}

TEST(BatchedEngine, ChunkedPrefillKeepsRunningDecodesAtOneTokenPerStep) {
  const Tokens long_prompt = run_of(100'000, 40'000);
  for (const std::uint64_t budget : {2048u, 50'000u}) {
    SCOPED_TRACE(budget);
    ClusterConfig c = cluster(1'000'000, budget);
    c.prefill.tokens_per_s = 30'000;
    c.step.overhead_ms = 0.5;
    Harness h(c);
    std::vector<std::uint64_t> decoding;
    for (int i = 0; i < 3; ++i) decoding.push_back(h.arrive(0, run_of(1000 + 100 * i, 10), 60));
    const auto big = h.arrive(5 * kMs, long_prompt, 1);
    h.drain();
    Tick longest_step = 0;
    for (const StepRecord& s : h.steps) longest_step = std::max(longest_step, s.end - s.start);
    Tick longest_gap = 0;
    for (const auto id : decoding) {
      const std::vector<Tick> ends = h.step_ends_of(id);
      for (std::size_t i = 1; i < ends.size(); ++i) longest_gap = std::max(longest_gap, ends[i] - ends[i - 1]);
    }
    if (budget == 2048) {
      // Every step while the long prompt prefills also decodes the three.
      for (const StepRecord& s : h.steps) {
        if (std::any_of(s.entries.begin(), s.entries.end(), [&](const auto& e) { return e.id == big; })) {
          EXPECT_EQ(s.entries.size(), 4u) << s.start;
        }
      }
      EXPECT_LE(longest_gap, longest_step);
      EXPECT_LT(longest_gap, 100 * kMs);  // a 2048-token step: ~69 ms
    } else {
      // One 40,000-token step stalls every decode for its whole length.
      EXPECT_GT(longest_gap, 1300 * kMs);
    }
  }
}

// Random requests on a small cache with random budgets: KV held by running
// requests never exceeds the capacity except in a step the engine marks as a
// lone request's overcommit; every step keeps its budget and its cap on
// sequences; every request completes with its output length.
TEST(BatchedEngine, KvHeldNeverExceedsCapacityExceptALoneOvercommit) {
  Rng rng(2026);
  std::uint64_t preemptions = 0, overcommits = 0, steps = 0;
  for (int round = 0; round < 60; ++round) {
    const std::uint64_t cache = rng.uniform_int(0, 600);
    const std::uint32_t block = static_cast<std::uint32_t>(rng.uniform_int(1, 32));
    const std::uint32_t max_running = static_cast<std::uint32_t>(rng.uniform_int(1, 12));
    const std::uint64_t budget = max_running + rng.uniform_int(0, 300);
    ClusterConfig c = cluster(cache, budget, max_running, block);
    c.protect_after_hits = static_cast<std::uint32_t>(rng.uniform_int(0, 3));
    Harness h(c);
    h.check_invariants = round % 4 == 0;
    const std::vector<Tokens> prefixes = {run_of(10'000, 40), run_of(20'000, 90), run_of(30'000, 7)};
    std::map<std::uint64_t, std::uint32_t> outputs;
    Tick at = 0;
    for (int i = 0; i < 40; ++i) {
      at += static_cast<Tick>(rng.uniform_int(0, 30)) * kMs;
      const Tokens prompt = concat(prefixes[rng.uniform_int(0, 2)],
                                   run_of(static_cast<Token>(100'000 + 1000 * (round * 40 + i)), rng.uniform_int(1, 60)));
      const auto output = static_cast<std::uint32_t>(rng.uniform_int(0, 80));
      outputs[h.arrive(at, prompt, output)] = output;
    }
    h.drain();
    for (const StepRecord& s : h.steps) {
      std::uint64_t tokens = 0;
      for (const auto& e : s.entries) tokens += e.tokens;
      ASSERT_LE(tokens, budget);
      ASSERT_LE(s.entries.size(), max_running);
      if (s.overcommitted) {
        ASSERT_EQ(s.entries.size(), 1u);
      } else {
        ASSERT_LE(s.held_tokens, s.capacity) << "round " << round << " step at " << s.start;
      }
    }
    ASSERT_EQ(h.completed_at.size(), outputs.size());
    for (const auto& [id, output] : outputs) ASSERT_EQ(h.decoded[id] + 1, std::max<std::uint32_t>(output, 1));
    EXPECT_EQ(h.engine().load(0).held_tokens, 0u);
    EXPECT_EQ(h.replica().cache().reserved(), 0u);
    EXPECT_EQ(h.replica().cache().check_invariants(), "");
    SimulationRun run;
    run.replicas.resize(1);
    h.engine().finish(run);
    preemptions += run.replicas[0].preemptions;
    overcommits += run.replicas[0].overcommits;
    steps += h.steps.size();
  }
  // The rounds reach every path: preemption and lone overcommits included.
  EXPECT_GT(preemptions, 0u);
  EXPECT_GT(overcommits, 0u);
  std::printf("60 rounds, %llu steps, %llu preemptions, %llu overcommitted steps\n",
              static_cast<unsigned long long>(steps), static_cast<unsigned long long>(preemptions),
              static_cast<unsigned long long>(overcommits));
}


// ---------------------------------------------------------------------------
// Prefix reuse: when a prompt's blocks become cache hits (cluster.prefix_reuse)

ClusterConfig reuse_cluster(PrefixReuse reuse, std::uint64_t budget = 8192) {
  ClusterConfig c = cluster(100'000, budget, 256, /*block=*/16);
  c.prefix_reuse = reuse;
  return c;
}

// Two requests with a 64-token common prefix arrive together and are
// scheduled in one step. SGLang (computed) inserts a prompt into its tree
// only after its prefill ran: both compute the prefix. vLLM V1 (scheduled)
// caches a's full blocks as it allocates them: b, scheduled after a in the
// same step, hits them.
TEST(BatchedEngine, UnderComputedReuseRequestsSharingAPrefixInOneStepBothComputeIt) {
  const Tokens shared = run_of(1000, 64);
  Harness h(reuse_cluster(PrefixReuse::Computed));
  const auto a = h.arrive(0, concat(shared, run_of(5000, 8)), 1);
  const auto b = h.arrive(0, concat(shared, run_of(6000, 8)), 1);
  h.drain();
  EXPECT_EQ(entries_of(h.steps[0]), (Entries{{a, 72}, {b, 72}}));
  EXPECT_EQ(h.cached[b], 0u);
  EXPECT_EQ(h.replica().prefill_tokens(), 144u);
  // Both inserted the same 64 tokens at the step's end: the tree holds them once.
  EXPECT_EQ(h.replica().cache().size(), 64u);

  Harness vllm(reuse_cluster(PrefixReuse::Scheduled));
  vllm.arrive(0, concat(shared, run_of(5000, 8)), 1);
  const auto b2 = vllm.arrive(0, concat(shared, run_of(6000, 8)), 1);
  vllm.drain();
  EXPECT_EQ(vllm.cached[b2], 64u);
  EXPECT_EQ(vllm.steps[0].entries[1].tokens, 8u);
}

// a computes its 72 tokens in 0 - 72 ms. b arrives during that step, c as
// it ends: both are scheduled in the next step, formed after a's blocks
// entered the cache, and hit them. During a's step its blocks are not
// cached; at the step's end they are.
TEST(BatchedEngine, UnderComputedReuseARequestScheduledAfterTheComputingStepHitsThePrefix) {
  const Tokens shared = run_of(1000, 64);
  Harness h(reuse_cluster(PrefixReuse::Computed));
  const auto a = h.arrive(0, concat(shared, run_of(5000, 8)), 1);
  h.run_to(0, true);
  EXPECT_EQ(h.replica().cache().match(prompt_of(shared).view()), 0u);
  const auto b = h.arrive(10 * kMs, concat(shared, run_of(6000, 8)), 1);
  const auto c = h.arrive(72 * kMs, concat(shared, run_of(7000, 8)), 1);
  EXPECT_EQ(h.replica().cache().match(prompt_of(shared).view()), 64u);
  h.drain();
  EXPECT_EQ(h.steps[0].end, 72 * kMs);
  EXPECT_EQ(entries_of(h.steps[1]), (Entries{{b, 8}, {c, 8}}));
  EXPECT_EQ(h.cached[a], 0u);
  EXPECT_EQ(h.cached[b], 64u);
  EXPECT_EQ(h.cached[c], 64u);
  // Its shared blocks are held once while b and c run beside each other.
  EXPECT_EQ(h.steps[1].held_tokens, 64u + 16u + 16u);
}

// A chunked prefill: a's 80-token prompt in chunks of 48 and 32 under a
// 48-token budget. Its first chunk's 3 whole blocks are cached when that
// chunk's step ends, while a still prefills, so b (arriving during the first
// chunk) finds them in the second step, beside a's last chunk.
TEST(BatchedEngine, UnderComputedReuseAChunksBlocksAreReusableWhenItsStepEnds) {
  const Tokens prompt = run_of(1000, 80);
  const Tokens head(prompt.begin(), prompt.begin() + 48);
  Harness h(reuse_cluster(PrefixReuse::Computed, /*budget=*/48));
  const auto a = h.arrive(0, prompt, 1);
  h.run_to(0, true);
  EXPECT_EQ(h.replica().cache().match(prompt_of(prompt).view()), 0u);
  const auto b = h.arrive(1 * kMs, concat(head, run_of(9000, 10)), 1);
  h.run_to(48 * kMs, false);  // the first chunk's step has ended
  EXPECT_EQ(h.replica().cache().match(prompt_of(prompt).view()), 48u);
  h.drain();
  EXPECT_EQ(entries_of(h.steps[0]), (Entries{{a, 48}}));
  EXPECT_EQ(entries_of(h.steps[1]), (Entries{{a, 32}, {b, 10}}));
  EXPECT_EQ(h.cached[b], 48u);
  EXPECT_EQ(h.replica().cache().match(prompt_of(prompt).view()), 80u);
}

// KV events (what a router's lagged view replays) report a prompt's blocks
// when the step that computes them ends, under both rules: vLLM takes its
// block pool's events after the step's forward, SGLang records them at the
// insert. A chunked prompt reports its path chunk by chunk.
TEST(BatchedEngine, KvEventsReportAPromptsBlocksWhenTheStepComputingThemEnds) {
  for (const PrefixReuse reuse : {PrefixReuse::Scheduled, PrefixReuse::Computed}) {
    SCOPED_TRACE(static_cast<int>(reuse));
    Harness h(reuse_cluster(reuse, /*budget=*/48));
    const auto a = h.arrive(0, run_of(1000, 80), 1);
    h.run_to(0, true);
    EXPECT_TRUE(h.inserts.empty());  // scheduled, not yet computed
    h.drain();
    EXPECT_EQ(h.inserts, (std::vector<Harness::Insert>{{a, 48, 48 * kMs}, {a, 80, 80 * kMs}}));
  }
}

// Under computed, a request's blocks are private until its step ends; the
// same KV budget holds: random requests on small caches never hold more than
// the capacity outside a lone overcommit, and every request completes.
TEST(BatchedEngine, UnderComputedReuseKvHeldNeverExceedsCapacityExceptALoneOvercommit) {
  Rng rng(35);
  std::uint64_t preemptions = 0, hits = 0;
  for (int round = 0; round < 40; ++round) {
    const std::uint32_t block = static_cast<std::uint32_t>(rng.uniform_int(1, 32));
    const std::uint32_t max_running = static_cast<std::uint32_t>(rng.uniform_int(1, 12));
    ClusterConfig c = cluster(rng.uniform_int(0, 600), max_running + rng.uniform_int(0, 300), max_running, block);
    c.prefix_reuse = PrefixReuse::Computed;
    Harness h(c);
    const std::vector<Tokens> prefixes = {run_of(10'000, 40), run_of(20'000, 90), run_of(30'000, 7)};
    std::map<std::uint64_t, std::uint32_t> outputs;
    Tick at = 0;
    for (int i = 0; i < 40; ++i) {
      at += static_cast<Tick>(rng.uniform_int(0, 30)) * kMs;
      const Tokens prompt = concat(prefixes[rng.uniform_int(0, 2)],
                                   run_of(static_cast<Token>(100'000 + 1000 * (round * 40 + i)), rng.uniform_int(1, 60)));
      const auto output = static_cast<std::uint32_t>(rng.uniform_int(0, 80));
      outputs[h.arrive(at, prompt, output)] = output;
    }
    h.drain();
    for (const StepRecord& s : h.steps) {
      if (!s.overcommitted) {
        ASSERT_LE(s.held_tokens, s.capacity) << "round " << round << " step at " << s.start;
      }
    }
    ASSERT_EQ(h.completed_at.size(), outputs.size());
    for (const auto& [id, output] : outputs) ASSERT_EQ(h.decoded[id] + 1, std::max<std::uint32_t>(output, 1));
    EXPECT_EQ(h.engine().load(0).held_tokens, 0u);
    EXPECT_EQ(h.replica().cache().reserved(), 0u);
    EXPECT_EQ(h.replica().cache().pinned_tokens(), 0u);
    EXPECT_EQ(h.replica().cache().check_invariants(), "");
    SimulationRun run;
    run.replicas.resize(1);
    h.engine().finish(run);
    preemptions += run.replicas[0].preemptions;
    hits += h.replica().cached_tokens();
  }
  EXPECT_GT(preemptions, 0u);
  EXPECT_GT(hits, 0u);
}

}  // namespace
}  // namespace prefixroute::batched_engine_test
