#include "prefixroute/sim/batched_engine.h"

#include <algorithm>
#include <cmath>

#include "prefixroute/sim/simulator.h"

namespace prefixroute {

BatchedEngine::BatchedEngine(const ClusterConfig& cluster, std::vector<Replica>& replicas, bool record_cache_ops)
    : replicas_(replicas),
      step_model_(cluster.step_model()),
      budget_(std::max<std::uint64_t>(1, cluster.max_batched_tokens)),
      max_running_(std::max<std::uint32_t>(1, cluster.max_running)),
      block_(std::max<std::uint32_t>(1, cluster.kv_block_tokens)),
      tree_limit_(cluster.cache_tokens / block_ * block_),
      reuse_(cluster.prefix_reuse),
      record_cache_ops_(record_cache_ops),
      state_(replicas.size()),
      next_(replicas.size(), kNoEvent) {}

std::uint32_t BatchedEngine::new_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    return slot;
  }
  pool_.emplace_back();
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

void BatchedEngine::set_pending(ReplicaState& state, Request& q, std::uint64_t pending) {
  state.pending_prefill = state.pending_prefill - q.pending + pending;
  q.pending = pending;
}

// The busy_until() policies read: the current step's end (or now, idle) plus
// the prefill work admitted and not yet scheduled, at the prefill rate and
// one step overhead per budget-sized chunk.
void BatchedEngine::update_busy_until(std::uint32_t r, Tick now) {
  const ReplicaState& state = state_[r];
  const Tick base = state.stepping ? state.step_end : now;
  Tick drain = 0;
  if (state.pending_prefill > 0) {
    const std::uint64_t chunks = (state.pending_prefill + budget_ - 1) / budget_;
    drain = std::llround(static_cast<double>(state.pending_prefill) * 1e9 / step_model_.linear.tokens_per_s +
                         static_cast<double>(chunks) * (step_model_.costs.overhead_ms * 1e6));
  }
  replicas_[r].set_busy_until(base + drain);
}

void BatchedEngine::admit(std::uint32_t r, const EngineRequest& request, Tick now, std::size_t known_cached,
                          EngineEvents&) {
  const std::uint32_t slot = new_slot();
  Request& q = pool_[slot];
  PromptPieces kept = std::move(q.prompt);  // a reused slot keeps its pieces' storage
  q = Request{};
  q.prompt = std::move(kept);
  q.prompt.pieces.assign(request.prompt->pieces.begin(), request.prompt->pieces.end());
  q.prompt.length = request.prompt->length;
  q.prompt.content = request.prompt->content;
  q.id = request.id;
  q.arrival = request.arrival;
  q.prompt_tokens = std::max<std::uint64_t>(1, q.prompt.length);
  q.output_tokens = std::max<std::uint64_t>(1, request.output_tokens);
  q.tokens = q.prompt_tokens;
  // The prefill it will need, as a cache match now estimates it (the
  // router's walk of this engine's cache, when it made one, is that match).
  const std::size_t matched = known_cached > 0 ? known_cached : replicas_[r].cache().match(q.prompt.view());
  const std::uint64_t cached = block_floor(std::min<std::uint64_t>(matched, q.tokens - 1));
  ReplicaState& state = state_[r];
  set_pending(state, q, q.tokens - cached);
  state.waiting.push_back(slot);
  // An idle replica forms a step at this tick, after its arrivals; a busy
  // one, or one already forming, takes the request at its next step.
  if (!state.stepping && next_[r] == kNoEvent) next_.set(r, EventKey{now, kAfterArrivals + r});
  update_busy_until(r, now);
}

BatchedEngine::Plan BatchedEngine::plan(const Request& q, const RadixCache& cache, std::uint64_t computed,
                                        std::uint64_t n, const RadixCache::Probe* probe) const {
  Plan p;
  const std::uint64_t end = computed + n;
  // Only whole prompt blocks enter the cache, and never more than it can
  // hold: those the step will compute (Scheduled), or only those computed
  // before it (Computed: the rest enter at the step's end, commit_step).
  const std::uint64_t cacheable = reuse_ == PrefixReuse::Scheduled ? end : computed;
  const std::uint64_t tree_target =
      std::min(block_floor(std::min<std::uint64_t>(cacheable, q.prompt.length)), tree_limit_);
  p.tree = std::max(tree_target, q.tree_tokens);
  p.priv = block_ceil(end) - p.tree;
  std::int64_t tree_growth = 0;
  if (p.tree > q.tree_tokens) {
    const RadixCache::Probe probed = probe != nullptr ? *probe : cache.probe(q.prompt.view());
    p.matched = probed.matched;
    // Tokens of [0, tree) already pinned (by this request or others) cost nothing more.
    const std::uint64_t held = std::max<std::uint64_t>(std::min<std::uint64_t>(probed.pinned, p.tree), q.tree_tokens);
    tree_growth = static_cast<std::int64_t>(p.tree - held);
  }
  p.need = tree_growth + static_cast<std::int64_t>(p.priv) - static_cast<std::int64_t>(q.private_tokens);
  return p;
}

bool BatchedEngine::fits(const RadixCache& cache, const Plan& p) const {
  const auto held = static_cast<std::int64_t>(cache.pinned_tokens() + cache.reserved());
  return held + p.need <= static_cast<std::int64_t>(cache.capacity());
}

void BatchedEngine::allocate(std::uint32_t r, Request& q, const Plan& p, Tick now, EngineEvents& events) {
  RadixCache& cache = replicas_[r].cache();
  if (p.tree > q.tree_tokens) {
    Prompt prefix = q.prompt.view();
    prefix.length = p.tree;
    const RadixCache::PathHandle path =
        cache.insert(prefix, std::min<std::size_t>(p.matched, p.tree)).path;
    cache.pin(path);
    cache.unpin(q.path);  // the root (nothing held yet) unpins nothing
    q.path = path;
    q.tree_tokens = p.tree;
    q.path_changed = true;  // reported at the step's end (report_path)
  }
  if (p.priv != q.private_tokens) {
    CacheOp op;
    op.replica = r;
    op.request = q.id;
    if (p.priv > q.private_tokens) {
      op.kind = CacheOp::Kind::Reserve;
      op.tokens = p.priv - q.private_tokens;
      cache.reserve(op.tokens);
    } else {
      op.kind = CacheOp::Kind::Release;
      op.tokens = q.private_tokens - p.priv;
      cache.release(op.tokens);
    }
    q.private_tokens = p.priv;
    if (record_cache_ops_) events.cache_op(op, now);
  }
}

// The KV event of the request's pinned path: it is reported when the step
// that computes its blocks ends, as engines publish (vLLM takes the block
// pool's events in update_from_output, after the step's forward; SGLang
// records them when cache_unfinished_req inserts the computed chunk).
void BatchedEngine::report_path(std::uint32_t r, const Request& q, Tick now, EngineEvents& events) const {
  if (!record_cache_ops_) return;
  CacheOp op;
  op.replica = r;
  op.request = q.id;
  op.prompt = &q.prompt;
  op.length = q.tree_tokens;
  op.pin = true;
  events.cache_op(op, now);
}

void BatchedEngine::commit_step(std::uint32_t r, Request& q, Tick now, EngineEvents& events) {
  if (reuse_ == PrefixReuse::Computed) {
    const std::uint64_t target =
        std::min(block_floor(std::min<std::uint64_t>(q.computed, q.prompt.length)), tree_limit_);
    if (target > q.tree_tokens) {
      // Its private blocks [tree_tokens, target) become tree nodes: released,
      // then inserted, so the insert never evicts for them. Where another
      // request inserted the same tokens meanwhile, the insert finds them and
      // this request's copies are freed (SGLang's cache_unfinished_req frees
      // the duplicates and re-points the request at the tree's).
      RadixCache& cache = replicas_[r].cache();
      const std::uint64_t moved = target - q.tree_tokens;
      cache.release(moved);
      q.private_tokens -= moved;
      if (record_cache_ops_) {
        CacheOp op;
        op.kind = CacheOp::Kind::Release;
        op.replica = r;
        op.request = q.id;
        op.tokens = moved;
        events.cache_op(op, now);
      }
      Prompt prefix = q.prompt.view();
      prefix.length = target;
      // Its own pinned path is cached: the walk need not compare it again.
      const RadixCache::PathHandle path = cache.insert(prefix, q.tree_tokens).path;
      cache.pin(path);
      cache.unpin(q.path);
      q.path = path;
      q.tree_tokens = target;
      q.path_changed = true;
    }
  }
  if (q.path_changed) {
    q.path_changed = false;
    report_path(r, q, now, events);
  }
}

void BatchedEngine::release_kv(std::uint32_t r, Request& q, Tick now, EngineEvents& events) {
  RadixCache& cache = replicas_[r].cache();
  CacheOp op;
  op.replica = r;
  op.request = q.id;
  if (q.tree_tokens > 0) {
    cache.unpin(q.path);
    op.kind = CacheOp::Kind::Unpin;
    if (record_cache_ops_) events.cache_op(op, now);
  }
  if (q.private_tokens > 0) {
    cache.release(q.private_tokens);
    op.kind = CacheOp::Kind::Release;
    op.tokens = q.private_tokens;
    if (record_cache_ops_) events.cache_op(op, now);
  }
  q.path = 0;
  q.tree_tokens = 0;
  q.private_tokens = 0;
  q.path_changed = false;
}

// Recompute preemption (vLLM v1's only mode): the request's KV is freed (its
// cached prompt blocks stay in the prefix cache, evictable), it forgets what
// it computed and waits at the front of the queue.
void BatchedEngine::preempt(std::uint32_t r, std::uint32_t slot, Tick now, EngineEvents& events) {
  ReplicaState& state = state_[r];
  Request& q = pool_[slot];
  release_kv(r, q, now, events);
  q.computed = 0;
  q.recomputing = true;
  set_pending(state, q, q.tokens);
  state.running.pop_back();  // the victim is always the most recently admitted
  state.waiting.push_front(slot);
  ++state.preemptions;
}

void BatchedEngine::form_step(std::uint32_t r, Tick now, EngineEvents& events) {
  ReplicaState& state = state_[r];
  Replica& replica = replicas_[r];
  const RadixCache& cache = replica.cache();
  state.step.clear();
  std::uint64_t budget = budget_;
  bool preempted = false;
  const std::uint64_t overcommits_before = state.overcommits;

  // 1. Running requests, oldest first.
  for (std::size_t i = 0; i < state.running.size() && budget > 0;) {
    const std::uint32_t slot = state.running[i];
    Request& q = pool_[slot];
    const std::uint64_t n = std::min(q.tokens - q.computed, budget);
    Plan p = plan(q, cache, q.computed, n, nullptr);
    bool self_preempted = false;
    while (!fits(cache, p)) {
      if (state.running.size() == 1) {  // alone and still too big: run it anyway
        ++state.overcommits;
        break;
      }
      const std::uint32_t victim = state.running.back();
      preempt(r, victim, now, events);
      preempted = true;
      if (victim == slot) {
        self_preempted = true;
        break;
      }
      p = plan(q, cache, q.computed, n, nullptr);
    }
    if (self_preempted) break;
    allocate(r, q, p, now, events);
    q.scheduled = n;
    if (q.recomputing) state.recomputed += n;
    set_pending(state, q, q.tokens - q.computed - n);  // 0 for a decode
    state.step.push_back(slot);
    budget -= n;
    ++i;
  }

  // 2. Waiting requests, in order, unless this step preempted (as vLLM).
  if (!preempted || state.step.empty()) {
    while (!state.waiting.empty() && budget > 0 && state.running.size() < max_running_) {
      const std::uint32_t slot = state.waiting.front();
      Request& q = pool_[slot];
      const RadixCache::Probe probe = cache.probe(q.prompt.view());
      const std::uint64_t cached = block_floor(std::min<std::uint64_t>(probe.matched, q.tokens - 1));
      const std::uint64_t n = std::min(q.tokens - cached, budget);
      const Plan p = plan(q, cache, cached, n, &probe);
      if (!fits(cache, p)) {
        if (!state.running.empty() || !state.step.empty()) break;  // head-of-line: wait for memory
        ++state.overcommits;
      }
      state.waiting.pop_front();
      q.computed = cached;
      allocate(r, q, p, now, events);
      state.running.push_back(slot);
      q.scheduled = n;
      if (!q.counted) {
        q.counted = true;
        replica.count_admission(cached, q.prompt_tokens - cached);
        events.admitted(q.id, r, cached);
      }
      if (q.recomputing) state.recomputed += n;
      set_pending(state, q, q.tokens - cached - n);
      state.step.push_back(slot);
      budget -= n;
    }
  }

  if (state.step.empty()) {  // nothing could run (cannot happen: see the overcommit rules)
    next_.set(r, kNoEvent);
    update_busy_until(r, now);
    return;
  }
  StepLoad load;
  for (const std::uint32_t slot : state.step) load.add(pool_[slot].scheduled, pool_[slot].computed);
  const Tick ticks = step_model_.step_ticks(load);
  state.stepping = true;
  // Saturates far below the Tick range (validation bounds realistic runs by
  // 1e9 s; recompute loops are not bounded there).
  constexpr Tick kLatest = Tick{1} << 62;
  state.step_end = ticks > kLatest - now ? kLatest : now + ticks;
  state.step_ticks = ticks;
  next_.set(r, EventKey{state.step_end, 2 * pool_[state.step.front()].id});
  ++state.steps;
  const auto sequences = static_cast<std::uint32_t>(state.step.size());
  state.sequence_ticks += static_cast<double>(sequences) * static_cast<double>(ticks);
  state.peak_batch = std::max(state.peak_batch, sequences);
  state.peak_held = std::max<std::uint64_t>(state.peak_held, cache.pinned_tokens() + cache.reserved());
  replica.add_busy(ticks);
  update_busy_until(r, now);
  if (observer_) {
    StepRecord record;
    record.replica = r;
    record.start = now;
    record.end = state.step_end;
    for (const std::uint32_t slot : state.step)
      record.entries.push_back({pool_[slot].id, pool_[slot].computed, pool_[slot].scheduled});
    record.held_tokens = cache.pinned_tokens() + cache.reserved();
    record.capacity = cache.capacity();
    record.waiting = static_cast<std::uint32_t>(state.waiting.size());
    record.overcommitted = state.overcommits != overcommits_before;
    observer_(record);
  }
}

void BatchedEngine::end_step(std::uint32_t r, Tick now, EngineEvents& events) {
  ReplicaState& state = state_[r];
  state.stepping = false;
  bool any_done = false;
  for (const std::uint32_t slot : state.step) {
    Request& q = pool_[slot];
    q.computed += q.scheduled;
    q.scheduled = 0;
    commit_step(r, q, now, events);
    if (q.computed < q.tokens) continue;  // a chunk of a longer prompt
    // Caught up: the step sampled its next token.
    q.recomputing = false;
    ++q.generated;
    ++q.tokens;
    ++state.output_tokens;
    if (q.generated == 1) events.first_token(q.id, r, q.arrival, now);
    if (q.generated >= q.output_tokens) {
      release_kv(r, q, now, events);
      events.completed(q.id, r, q.arrival, now, q.generated - 1);
      q.output_tokens = 0;  // marks it done for the compaction below
      any_done = true;
    }
  }
  if (any_done) {
    std::size_t kept = 0;
    for (const std::uint32_t slot : state.running) {
      if (pool_[slot].output_tokens == 0) {
        pool_[slot].prompt.clear();
        free_slots_.push_back(slot);
      } else {
        state.running[kept++] = slot;
      }
    }
    state.running.resize(kept);
  }
  state.step.clear();
  const bool work = !state.running.empty() || !state.waiting.empty();
  next_.set(r, work ? EventKey{now, kAfterArrivals + r} : kNoEvent);
  update_busy_until(r, now);
}

std::uint32_t BatchedEngine::handle_next_event(EngineEvents& events) {
  const EventKey key = next_.least();
  const auto r = static_cast<std::uint32_t>(next_.position_of_least());
  if (key.seq >= kAfterArrivals) {
    form_step(r, key.time, events);
  } else {
    end_step(r, key.time, events);
  }
  return r;
}

void BatchedEngine::scrape(std::uint32_t r, Tick now) {
  const ReplicaState& state = state_[r];
  const RadixCache& cache = replicas_[r].cache();
  EngineMetrics m;
  m.scraped_at = now;
  m.queue_length = static_cast<std::uint32_t>(state.waiting.size());
  m.running = static_cast<std::uint32_t>(state.running.size());
  m.kv_usage = cache.capacity() == 0 ? 0.0
                                     : static_cast<double>(cache.pinned_tokens() + cache.reserved()) /
                                           static_cast<double>(cache.capacity());
  replicas_[r].set_scraped(m);
}

ReplicaLoad BatchedEngine::load(std::uint32_t r) const {
  const ReplicaState& state = state_[r];
  const RadixCache& cache = replicas_[r].cache();
  return ReplicaLoad{static_cast<std::uint32_t>(state.waiting.size()), static_cast<std::uint32_t>(state.running.size()),
                     cache.pinned_tokens() + cache.reserved()};
}

void BatchedEngine::finish(SimulationRun& run) const {
  for (std::size_t r = 0; r < state_.size(); ++r) {
    const ReplicaState& state = state_[r];
    ReplicaTotals& t = run.replicas[r];
    t.steps = state.steps;
    const Tick busy = replicas_[r].busy_ticks();
    t.mean_batch = busy > 0 ? state.sequence_ticks / static_cast<double>(busy) : 0.0;
    t.peak_batch = state.peak_batch;
    t.peak_held_tokens = state.peak_held;
    t.preemptions = state.preemptions;
    t.recomputed_tokens = state.recomputed;
    t.output_tokens = state.output_tokens;
    t.overcommits = state.overcommits;
  }
}

}  // namespace prefixroute
