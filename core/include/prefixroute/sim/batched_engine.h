// BatchedEngine: continuous batching with chunked prefill and paged KV, as
// vLLM's v1 scheduler (vllm/v1/core/sched/scheduler.py, schedule()) and its
// KV-cache manager (vllm/v1/core/kv_cache_manager.py) do it; SGLang's
// scheduler (python/sglang/srt/managers/scheduler.py with PrefillAdder in
// schedule_policy.py) follows the same shape.
//
// A request's state: `tokens` (its prompt, then every token it has sampled)
// and `computed` (tokens whose KV is computed). A step gives each scheduled
// request tokens - computed new tokens to compute, at most the step's
// remaining budget; when a request's computed reaches its tokens, the step
// samples its next token. So prefill, chunked prefill, decode and recompute
// after preemption are one rule (vLLM's "no prefill or decode phase").
//
// The step loop (one replica; docs/design/model.md has it as pseudo-code):
//   form a step at time t (when the previous step ends, or when a request
//   reaches an idle replica; after the arrivals of that tick):
//     budget = max_batched_tokens
//     1. running requests, in admission order, while budget remains: n =
//        min(tokens - computed, budget) (1 for a decode); allocate its new
//        KV blocks; while they do not fit, preempt the most recently
//        admitted running request (recompute: its KV is freed, computed = 0,
//        it goes to the front of the waiting queue); if that is the request
//        itself, stop.
//     2. only if nothing was preempted: waiting requests in arrival order
//        while budget remains and fewer than max_running run: match the
//        prompt against the prefix cache (whole blocks only, at most
//        tokens - 1: the last token is always computed, for its logits);
//        n = min(tokens - cached, budget); if its blocks do not fit, stop
//        (head-of-line: FCFS never skips a request).
//     3. the step takes StepModel::step_ticks of what it computes.
//   at the step's end: every scheduled request adds n to computed; a
//   request caught up samples a token: its first token (TTFT) at the end of
//   the step that computed its last prompt chunk, then one per step until
//   it has generated its output length; then it completes and frees its KV.
//
// KV accounting (paged, the prefix cache is the same memory). Capacity is
// cluster.cache_tokens, in blocks of kv_block_tokens. A running request
// holds ceil((computed + n) / B) blocks: its prompt's full blocks are nodes
// of the replica's RadixCache, pinned while it runs and shared with every
// request that matches them; its last partial block and its generated
// tokens are private, reserved in the same budget. Cached blocks no running
// request holds are evictable by the cache's rule (LRU leaves, protected
// after cluster.protect_after_hits hits). A step allocates only when the
// blocks it needs fit beside what running requests hold (pinned_tokens() +
// reserved() <= capacity), so KV use never exceeds capacity, with one
// exception: a request that needs more than the whole capacity runs when it
// is alone (vLLM refuses such a prompt up front; here it overcommits and is
// counted as an overcommit).
//
// Prefix reuse (cluster.prefix_reuse): when a prompt's whole blocks become
// cache hits for later requests on the replica.
//   scheduled (vLLM V1, the default): they enter the cache when the step that
//     computes them is scheduled. KVCacheManager.allocate_slots
//     (vllm/v1/core/kv_cache_manager.py) calls cache_blocks up to
//     num_computed + num_new tokens, and BlockPool.cache_full_blocks
//     (vllm/v1/core/block_pool.py) adds them to cached_block_hash_to_block at
//     once; a waiting request scheduled later in the same schedule() finds
//     them through get_computed_blocks (docs/design/prefix_caching.md: "so
//     that the block can be reused by other requests in the same batch"; the
//     forward pass writes each layer's KV before that layer's attention).
//   computed (SGLang): they enter the cache when the step that computes them
//     ends. SGLang's scheduler matches a waiting request against the radix
//     tree (match_prefix) and inserts a request's tokens only after its
//     prefill chunk ran (RadixCache.cache_unfinished_req from
//     process_batch_result_prefill, or for a chunked request at the next
//     get_new_batch_prefill; python/sglang/srt/mem_cache/radix_cache.py,
//     managers/scheduler.py). Requests that prefill the same prefix in one
//     step all compute it; the blocks computed meanwhile are the request's
//     private KV. At the step's end its computed whole prompt blocks (per
//     chunk) are inserted and pinned; where another request inserted the same
//     tokens first, this request's copies are freed (cache_unfinished_req
//     frees the duplicates insert reports and re-points the request at the
//     tree's), so KV use drops there; vLLM keeps such duplicate blocks until
//     the request ends (block_pool.py: "we don't de-duplicate the blocks").
// Either way a prompt's blocks are reported as KV events (CacheOp Insert,
// replayed on the router's lagged view) when the step that computes them
// ends: vLLM's scheduler takes the block pool's events in
// update_from_output, after the step's forward (vllm/v1/core/sched/
// scheduler.py; releases before that published them at the end of
// schedule()), and SGLang records BlockStored when the insert happens. A
// router fed by KV events with router.kv_event_lag_ms > 0 thus sees a
// prefix at compute end + lag; with the lag at 0 it reads the engine's cache
// itself (under scheduled: from the scheduling step). Routers that index
// their own decisions see a prefix when they route it, whatever the engine.
//
// KV pressure, against vLLM V1's scheduler (vllm/v1/core/sched/scheduler.py):
//   as vLLM: running requests first, each allocating its new blocks; when
//     they do not fit, the last running request is preempted (recompute: its
//     blocks freed, num_computed_tokens = 0, back at the head of the waiting
//     queue), down to the request itself; no waiting request is admitted in
//     a step that preempted; a waiting request whose blocks do not fit stops
//     admission (FCFS); a preempted request's freed prompt blocks stay cached
//     and evictable, so its resume may hit them.
//   differs: admission checks only the blocks of the step's chunk, as vLLM
//     does by default (the optional whole-sequence admission gate and free
//     block watermark of recent releases are not modelled), so long outputs
//     fill the memory by decode growth and are resolved by preemption; vLLM refuses a prompt longer
//     than the KV capacity, here it runs alone as a counted overcommit;
//     vLLM's priority policy (preempt the lowest priority) and its skipping of
//     waiting requests held for remote KV, grammars or LoRA slots are absent;
//     a resumed request's sampled tokens are recomputed like prompt tokens
//     but never cached (vLLM caches full blocks of generated tokens too).
//     Under computed, SGLang's own admission (PrefillAdder's reserve of
//     max_new_tokens for running decodes, retraction of decodes instead of
//     recompute preemption, its in-batch prefix deprioritisation under the
//     lpm policy) is not modelled: the step loop stays vLLM's.
//
// Simplifications (stated in docs/design/model.md): blocks of generated tokens are
// never shared; where two prompts diverge inside a block the tree shares the
// block's common tokens (vLLM would hold two blocks); eviction order is the
// tree's LRU by last use, where vLLM's free queue orders by time freed; no
// swapping, no speculative decoding, no priorities, no prefill-length
// threshold.
//
// What policies see (engine truth, for the baseline policies): cache() is the
// replica's prefix cache as described (prompts of waiting requests are not in
// it); busy_until() is the engine's estimate of when the prefill work
// admitted so far drains: the current step's end plus every uncached prompt
// token not yet computed (waiting requests' estimated at arrival by a cache
// match) at the prefill rate, plus t0 per budget-sized chunk. Decode steps
// interleaved with that work are not counted. Scrapes report waiting requests
// as the queue, running requests, and KV usage = held / capacity (vLLM's
// kv_cache_usage: cached blocks nobody holds count as free).
//
// Events: a running step's end has key (end, 2 x id of its first request);
// forming the next step has key (t, kAfterArrivals + replica), after the
// arrivals of tick t. Per replica at most one is pending; a TournamentTree
// over the replicas finds the next.
//
// Cost: forming and ending a step is O(running + admitted) plus, per prompt
// chunk, one cache probe and one insert (O(prompt pieces); under computed the
// insert happens at the step's end and skips the request's own cached path);
// an event is O(log replicas). Nothing scans the cache per step.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/sim/engine.h"

namespace prefixroute {

/// One formed step, as a step observer sees it (tests, debugging).
struct StepRecord {
  struct Entry {
    std::uint64_t id;        ///< request
    std::uint64_t context;   ///< tokens computed before the step
    std::uint64_t tokens;    ///< new tokens it computes in the step
  };
  std::uint32_t replica = 0;
  Tick start = 0;
  Tick end = 0;
  std::vector<Entry> entries;      ///< in schedule order: running requests, then admitted ones
  std::uint64_t held_tokens = 0;   ///< KV held once the step's blocks are allocated
  std::uint64_t capacity = 0;
  std::uint32_t waiting = 0;       ///< requests left waiting
  bool overcommitted = false;      ///< a lone request was allowed past the capacity
};

class BatchedEngine final : public Engine {
 public:
  BatchedEngine(const ClusterConfig& cluster, std::vector<Replica>& replicas, bool record_cache_ops);

  /// Called with every step formed (null: none; the default). For tests.
  void set_step_observer(std::function<void(const StepRecord&)> observer) { observer_ = std::move(observer); }

  void admit(std::uint32_t replica, const EngineRequest& request, Tick now, std::size_t known_cached,
             EngineEvents& events) override;
  EventKey next_event() const override { return next_.least(); }
  std::uint32_t handle_next_event(EngineEvents& events) override;
  void scrape(std::uint32_t replica, Tick now) override;
  ReplicaLoad load(std::uint32_t replica) const override;
  /// Writes each replica's step totals into run.replicas (ReplicaTotals).
  void finish(SimulationRun& run) const override;

 private:
  struct Request {
    std::uint64_t id = 0;
    Tick arrival = 0;
    PromptPieces prompt;
    std::uint64_t prompt_tokens = 0;   ///< P (at least 1)
    std::uint64_t output_tokens = 1;   ///< tokens to generate, the first included (at least 1)
    std::uint64_t tokens = 0;          ///< P + generated
    std::uint64_t computed = 0;        ///< tokens whose KV is computed
    std::uint64_t generated = 0;
    std::uint64_t tree_tokens = 0;     ///< leading prompt tokens it holds in the cache (pinned)
    std::uint64_t private_tokens = 0;  ///< its reserved KV
    RadixCache::PathHandle path = 0;   ///< end of its pinned path (0: none)
    std::uint64_t pending = 0;         ///< its share of the replica's uncomputed prefill estimate
    std::uint64_t scheduled = 0;       ///< tokens it computes in the current step
    bool counted = false;              ///< matched against the cache once (hit rate, prefill tokens)
    bool recomputing = false;          ///< preempted; its recompute is not counted as prefill
    bool path_changed = false;         ///< its pinned path grew in the current step (KV event at its end)
  };

  // What one request's allocation in a step would change.
  struct Plan {
    std::uint64_t tree = 0;     ///< tree_tokens after it
    std::uint64_t priv = 0;     ///< private_tokens after it
    std::int64_t need = 0;      ///< growth of held KV (pinned + reserved)
    std::size_t matched = 0;    ///< the cache's match of the prompt (when probed)
  };

  struct ReplicaState {
    std::deque<std::uint32_t> waiting;  ///< request slots, arrival order (preempted ones in front)
    std::vector<std::uint32_t> running; ///< admission order
    std::vector<std::uint32_t> step;    ///< scheduled in the current step, in order
    bool stepping = false;
    Tick step_end = 0;
    Tick step_ticks = 0;
    std::uint64_t pending_prefill = 0;  ///< estimated prefill tokens not yet scheduled
    // Totals of the run (see ReplicaTotals).
    std::uint64_t steps = 0;
    double sequence_ticks = 0;  ///< sum over steps of sequences x step ticks
    std::uint32_t peak_batch = 0;
    std::uint64_t peak_held = 0;
    std::uint64_t preemptions = 0;
    std::uint64_t recomputed = 0;
    std::uint64_t output_tokens = 0;
    std::uint64_t overcommits = 0;
  };

  Plan plan(const Request& q, const RadixCache& cache, std::uint64_t computed, std::uint64_t n,
            const RadixCache::Probe* probe) const;
  bool fits(const RadixCache& cache, const Plan& p) const;
  void allocate(std::uint32_t replica, Request& q, const Plan& p, Tick now, EngineEvents& events);
  void release_kv(std::uint32_t replica, Request& q, Tick now, EngineEvents& events);
  /// At the end of a step: the request's newly computed whole prompt blocks
  /// enter the cache (PrefixReuse::Computed), and the KV event of a path
  /// that grew in the step is reported.
  void commit_step(std::uint32_t replica, Request& q, Tick now, EngineEvents& events);
  void report_path(std::uint32_t replica, const Request& q, Tick now, EngineEvents& events) const;
  void preempt(std::uint32_t replica, std::uint32_t slot, Tick now, EngineEvents& events);
  void form_step(std::uint32_t replica, Tick now, EngineEvents& events);
  void end_step(std::uint32_t replica, Tick now, EngineEvents& events);
  void set_pending(ReplicaState& state, Request& q, std::uint64_t pending);
  void update_busy_until(std::uint32_t replica, Tick now);
  std::uint64_t block_floor(std::uint64_t tokens) const { return tokens / block_ * block_; }
  std::uint64_t block_ceil(std::uint64_t tokens) const { return (tokens + block_ - 1) / block_ * block_; }
  std::uint32_t new_slot();

  std::vector<Replica>& replicas_;
  StepModel step_model_;
  std::uint64_t budget_;
  std::uint32_t max_running_;
  std::uint64_t block_;
  std::uint64_t tree_limit_;  ///< the longest prompt prefix the cache holds: whole blocks within capacity
  PrefixReuse reuse_;
  bool record_cache_ops_;
  std::vector<ReplicaState> state_;
  std::vector<Request> pool_;
  std::vector<std::uint32_t> free_slots_;
  TournamentTree<EventKey> next_;  ///< per replica: its step's end, or its next step's forming
  std::function<void(const StepRecord&)> observer_;
};

}  // namespace prefixroute
