#include "prefixroute/sim/simulator.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <optional>

#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/sim/router_instances.h"

namespace prefixroute {
namespace {

constexpr Tick kNever = std::numeric_limits<Tick>::max();

// A KV event on its way to the router's lagged cache view: the mirror replays
// the engine's cache operations `lag` later, in the same order, so it is
// exactly the engine's cache as it was `lag` ago.
struct MirrorOp {
  Tick time;
  CacheOp::Kind kind;
  std::uint32_t replica;
  std::uint64_t request;
  PromptPieces prompt;  // Insert only
  std::size_t length;   // Insert: the prefix inserted
  bool pin;             // Insert: pin its path (and unpin the request's previous one)
  std::size_t tokens;   // Reserve, Release
};

class Simulation final : public EngineEvents {
 public:
  Simulation(RequestSource& source, const ClusterConfig& cluster, std::span<RoutingPolicy* const> policies,
             const RouterConfig& router, bool record_timeline, std::uint64_t spill_results_above)
      : source_(source),
        cluster_(cluster),
        busy_until_tree_(cluster.replicas, kNever) {
    replicas_.reserve(cluster.replicas);
    for (std::uint32_t i = 0; i < cluster.replicas; ++i) {
      replicas_.emplace_back(RadixCache(cluster.cache_tokens, cluster.protect_after_hits, &source.content()));
      busy_until_tree_.set(i, replicas_[i].busy_until());
    }
    routers_ = std::make_unique<RouterInstances>(policies, replicas_);
    release_pending_.assign(routers_->size(), 0);
    const RoutingPolicy& policy = *policies.front();
    batched_ = cluster.engine == EngineKind::Batched;
    scrape_period_ = std::max<Tick>(1, seconds_to_ticks(router.scrape_period_ms / 1000.0));
    lag_ = seconds_to_ticks(router.kv_event_lag_ms / 1000.0);
    if (lag_ > 0) {
      mirrors_.reserve(cluster.replicas);
      for (std::uint32_t i = 0; i < cluster.replicas; ++i)
        mirrors_.emplace_back(cluster.cache_tokens, cluster.protect_after_hits, &source.content());
      for (std::uint32_t i = 0; i < cluster.replicas; ++i) replicas_[i].set_lagged_view(&mirrors_[i]);
      mirror_paths_.assign(source.size(), 0);
    }
    // One cluster-wide index of the caches the policy matches against, so
    // routing walks each prompt once, not once per replica.
    const CacheView view = policy.matched_view();
    if (view != CacheView::None) {
      index_ = std::make_unique<PrefixIndex>(cluster.replicas);
      const bool mirrored = view == CacheView::Precise && lag_ > 0;
      for (std::uint32_t i = 0; i < cluster.replicas; ++i)
        (mirrored ? mirrors_[i] : replicas_[i].cache()).attach_index(index_.get(), i);
    }
    engine_ = make_engine(cluster, replicas_, lag_ > 0);
    reactive_ = source.reactive();
    recording_ = source.recording();
    // A reactive client's last send is known only at the end: its samples
    // start at the period its span hint gives and thin out as the run grows
    // (sample_in_flight).
    const Tick span = reactive_ != nullptr ? reactive_->span_hint() : source.last_arrival();
    run_.in_flight_period = std::max<Tick>(1, span / kInFlightSamples + 1);
    run_.batched = batched_;
    run_.decode = batched_ || seconds_to_ticks(cluster.decode_ms_per_token / 1000.0) > 0;
    const auto n = static_cast<std::size_t>(source.size());
    if (source.size() > spill_results_above && !batched_ && !source.has_sessions() && !record_timeline &&
        source.reactive() == nullptr && !source.recording().request_sizes) {
      ttft_spill_ = std::make_shared<TickSpill>();
      end_to_end_spill_ = std::make_shared<TickSpill>();
    } else {
      run_.ttft.assign(n, 0);
      run_.end_to_end.assign(n, 0);
      run_.replica_of.assign(n, 0);
      run_.cached_of.assign(n, 0);
    }
    if (source.has_sessions()) sessions_.emplace();
    if (batched_) predicted_.assign(n, 0);
    if (recording_.request_sizes) {
      run_.prompt_tokens_of.assign(n, 0);
      run_.output_tokens_of.assign(n, 0);
      run_.tpot_of.assign(n, -1.0);
    }
    if (recording_.kv_sample_period > 0) {
      run_.kv_sample_period = recording_.kv_sample_period;
      next_kv_sample_ = 0;
    }
    run_.replicas.resize(cluster.replicas);
    if (record_timeline)
      timeline_ = std::make_unique<TimelineRecorder>(cluster.replicas, run_.in_flight_period, n, batched_,
                                                     /*deferred=*/reactive_ != nullptr);
    view_ = std::make_unique<ClusterView>(replicas_, index_.get(), view, view == CacheView::Engine || lag_ == 0,
                                          &busy_until_tree_);
    view_->set_scrape_count(&scrapes_);
    view_->set_in_flight_total(&routers_->shown_in_flight());
    view_->set_in_flight_announced(true);
    view_->set_in_flight_order(routers_->in_flight_order());
  }

  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  SimulationRun run(const ProgressCallback& progress, std::uint64_t progress_every) {
    SourcedRequest request;
    std::size_t routed = 0;
    if (reactive_ != nullptr) {
      routed = run_reactive(progress, progress_every);
    } else {
      for (std::size_t i = 0; source_.next(request); ++i) {
        if (progress && i > 0 && i % progress_every == 0 && !progress(i)) {
          run_.cancelled = true;
          break;
        }
        if (i == 0) run_.first_arrival = request.arrival;
        advance_to(request.arrival);
        arrive(i, request);
        routed = i + 1;
      }
    }
    arrivals_done_ = true;
    interruptible_ = false;
    advance_to(kNever);  // finish every request: completions, end-to-end times
    // A policy whose queue still holds requests with nothing left to run
    // would strand them: they go out one at a time, in queue order.
    while (release_stranded()) advance_to(kNever);
    if ((run_.cancelled || reactive_ != nullptr) && !ttft_spill_) {  // only the sent requests have results
      run_.ttft.resize(routed);
      run_.cached_of.resize(routed);
      run_.replica_of.resize(routed);
      if (reactive_ != nullptr) {
        run_.end_to_end.resize(routed);
        if (recording_.request_sizes) {
          run_.prompt_tokens_of.resize(routed);
          run_.output_tokens_of.resize(routed);
          run_.tpot_of.resize(routed);
        }
      }
    }
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      ReplicaTotals& t = run_.replicas[r];
      t.requests = replicas_[r].requests();
      t.prefill_tokens = replicas_[r].prefill_tokens();
      t.cached_tokens = replicas_[r].cached_tokens();
      t.busy_ticks = replicas_[r].busy_ticks();
    }
    engine_->finish(run_);
    if (ttft_spill_) {
      run_.spilled_ttft = std::move(ttft_spill_);
      run_.spilled_end_to_end = std::move(end_to_end_spill_);
    }
    if (sessions_) run_.sessions = sessions_->figures(run_.cached_of);
    if (batched_) {
      for (std::size_t r = 0; r < replicas_.size(); ++r) {
        ReplicaTotals& t = run_.replicas[r];
        const double capacity = static_cast<double>(replicas_[r].cache().capacity());
        t.peak_kv_usage = capacity > 0 ? static_cast<double>(t.peak_held_tokens) / capacity : 0.0;
      }
    }
    if (timeline_ && !run_.cancelled) {
      std::vector<std::uint64_t> capacity(replicas_.size());
      for (std::size_t r = 0; r < replicas_.size(); ++r) capacity[r] = replicas_[r].cache().capacity();
      run_.timeline = timeline_->finish(run_, capacity, cluster_.kv_block_tokens);
    }
    return std::move(run_);
  }

  // ---- EngineEvents ----
  void admitted(std::uint64_t id, std::uint32_t, std::uint64_t cached_tokens) override {
    last_cached_ = cached_tokens;
    if (!ttft_spill_) run_.cached_of[id] = static_cast<std::uint32_t>(cached_tokens);
    if (batched_ && predicted_[id] != 0) run_.predicted_actual_cached_tokens += cached_tokens;
  }

  void first_token(std::uint64_t id, std::uint32_t replica, Tick arrival, Tick now) override {
    // Arrival at the router: time held there counts.
    if (ttft_spill_)
      ttft_spill_->append(now - arrival);
    else
      run_.ttft[id] = now - arrival;
    const std::size_t k = routers_->of(id);
    routers_->policy(k).on_first_token(id, replica, now);
    note_release(k);
  }

  void completed(std::uint64_t id, std::uint32_t replica, Tick arrival, Tick now,
                 std::uint64_t decode_tokens) override {
    const std::size_t k = routers_->of(id);
    routers_->completed(k, replica);
    if (end_to_end_spill_)
      end_to_end_spill_->append(now - arrival);
    else
      run_.end_to_end[id] = now - arrival;
    run_.last_completion = std::max(run_.last_completion, now);
    if (batched_ && decode_tokens > 0) {
      const double tpot = static_cast<double>(run_.end_to_end[id] - run_.ttft[id]) / static_cast<double>(decode_tokens);
      run_.tpot_ns.push_back(tpot);
      if (recording_.request_sizes) run_.tpot_of[id] = tpot;
    }
    routers_->policy(k).on_completed(id, replica, now);
    note_release(k);
    if (reactive_ != nullptr) {
      reactive_->completed(id, now);
      // The client may send earlier than it said: run() asks it again.
      if (interruptible_) interrupted_ = true;
    }
  }

  void cache_op(const CacheOp& op, Tick now) override {
    MirrorOp m{now + lag_, op.kind, op.replica, op.request, {}, op.length, op.pin, op.tokens};
    if (op.kind == CacheOp::Kind::Insert) m.prompt = *op.prompt;
    mirror_ops_.push_back(std::move(m));
  }

 private:
  // Request i reaches its router instance: routed now, or held in the
  // instance's queue while its policy says every replica is busy.
  void arrive(std::size_t i, const SourcedRequest& request) {
    const std::size_t k = routers_->of(i);
    if (RouterQueue* queue = routers_->queue(k)) {
      routers_->enter(k);
      if (routers_->policy(k).holds(*view_, request.arrival)) {
        queue->push(i, request);
        ++held_count_;
        return;
      }
    }
    route(k, i, request, request.arrival);
  }

  // A hook of instance k's policy ran: its queue may release, after the
  // engine event that ran it (never inside the engine's own call; one
  // batched step can end the prefill of requests of several instances).
  void note_release(std::size_t k) {
    const RouterQueue* queue = routers_->queue(k);
    if (queue == nullptr || queue->empty()) return;
    release_pending_[k] = 1;
    any_release_pending_ = true;
  }

  // Releases the queues noted during the event just handled, by instance.
  void release_noted(Tick now) {
    any_release_pending_ = false;
    for (std::size_t k = 0; k < release_pending_.size(); ++k) {
      if (release_pending_[k] == 0) continue;
      release_pending_[k] = 0;
      release_held(k, now);
    }
  }

  // Routes instance k's held requests, best first, while its policy no
  // longer holds them (Dynamo's SchedulerQueue::update).
  void release_held(std::size_t k, Tick now) {
    RouterQueue& queue = *routers_->queue(k);
    RoutingPolicy& policy = routers_->policy(k);
    routers_->enter(k);
    while (!queue.empty() && !policy.holds(*view_, now)) {
      queue.pop(held_);
      --held_count_;
      route(k, held_.id, held_.request, now);
    }
  }

  // After the last event: one held request of each instance whose queue is
  // not empty, routed at the last event's time. False when nothing is held.
  bool release_stranded() {
    bool any = false;
    for (std::size_t k = 0; routers_->has_queues() && k < routers_->size(); ++k) {
      RouterQueue& queue = *routers_->queue(k);
      if (queue.empty()) continue;
      queue.pop(held_);
      --held_count_;
      route(k, held_.id, held_.request, std::max(clock_, held_.request.arrival));
      any = true;
    }
    return any;
  }

  // Instance k routes request i (arrived at request.arrival) at `now`.
  void route(std::size_t k, std::size_t i, const SourcedRequest& request, Tick now) {
    RoutingPolicy& policy = routers_->policy(k);
    routers_->enter(k);
    const PromptPieces& pieces = request.prompt;
    const Prompt prompt = pieces.view();
    view_->forget_walk();
    const std::uint64_t output = run_.decode ? request.output_tokens : 0;
    const std::size_t chosen =
        policy.choose(RouteRequest(prompt, i, request.session, request.turn, output), *view_, now);
    const std::int64_t predicted = policy.predicted_cached_tokens();
    policy.on_routed(RoutedRequest{i, chosen, prompt, output, now, request.session, request.turn});
    const auto r = static_cast<std::uint32_t>(chosen);
    Replica& replica = replicas_[chosen];
    if (predicted >= 0) {
      run_.predicted_cached_tokens += static_cast<std::uint64_t>(predicted);
      run_.predicted_prompt_tokens += prompt.size();
      if (batched_) predicted_[i] = 1;
    }
    // When the policy's walk read the engines' caches, its answer for the
    // chosen replica is exactly what the engine's own match would give
    // (nothing changes that cache between choose() and here): the engine
    // need not re-read those tokens. Never the policy's prediction, which
    // may be wrong.
    const std::size_t known_cached = view_->known_engine_match(prompt, chosen).value_or(0);
    // Fifo: the prefill starts when the replica's queue drains
    // (Replica::Admission::start), so this is the request's exact queue wait.
    const Tick wait = timeline_ && !batched_ ? std::max<Tick>(0, replica.busy_until() - now) : 0;
    EngineRequest admitted_request;
    admitted_request.id = i;
    admitted_request.arrival = request.arrival;
    admitted_request.prompt = &pieces;
    admitted_request.output_tokens = static_cast<std::uint32_t>(output);
    engine_->admit(r, admitted_request, now, known_cached, *this);
    // The fifo engine reported the admission's cached tokens during admit().
    if (predicted >= 0 && !batched_) run_.predicted_actual_cached_tokens += static_cast<std::uint32_t>(last_cached_);
    busy_until_tree_.set(chosen, replica.busy_until());
    routers_->dispatched(k, chosen);
    ReplicaTotals& totals = run_.replicas[chosen];
    totals.peak_in_flight = std::max(totals.peak_in_flight, routers_->total(chosen));
    if (!ttft_spill_) run_.replica_of[i] = r;
    if (recording_.request_sizes) {
      run_.prompt_tokens_of[i] = static_cast<std::uint32_t>(prompt.size());
      run_.output_tokens_of[i] = static_cast<std::uint32_t>(output);
    }
    if (sessions_) sessions_->routed(i, request.session, r, prompt.size());
    if (timeline_)
      timeline_->routed(i, request.arrival, r, pieces.pieces.empty() ? 0 : pieces.pieces.front().run, prompt.size(), wait);
  }

  // Processes everything that happens up to `now`, in the documented order:
  // at one tick the engine's events, lagged KV events, the scrape, then (the
  // caller's) arrivals; the engine's events that come after arrivals are left
  // for the next call. now == kNever drains everything.
  void advance_to(Tick now) {
    for (;;) {
      const EventKey event = engine_->next_event();
      const bool after_arrivals = event.seq >= kAfterArrivals;
      const Tick t_op = mirror_ops_.empty() ? kNever : mirror_ops_.front().time;
      const Tick t = std::min({event.time, t_op, next_sample_, next_kv_sample_});
      if (t > now || t == kNever) break;
      clock_ = t;
      if (event.time == t && !after_arrivals) {
        scrape_through(t - 1);  // scrapes strictly before t see the state before t
        handle_engine_event(t);
        if (interrupted_) return;  // a reactive client may now send before `now`
      } else if (t_op == t) {
        scrape_through(t - 1);
        apply_mirror_op(mirror_ops_.front());
        mirror_ops_.pop_front();
      } else if (next_sample_ == t) {
        scrape_through(t - 1);
        sample_in_flight();
      } else if (next_kv_sample_ == t) {
        sample_kv_use();
      } else {
        // An engine event after the arrivals of tick t: due only once the
        // caller has routed them (t < now), and after the scrape at t.
        if (t == now) break;
        scrape_through(t);
        handle_engine_event(t);
        if (interrupted_) return;
      }
    }
    if (now != kNever) scrape_through(now);
  }

  void handle_engine_event(Tick t) {
    const std::uint32_t r = engine_->handle_next_event(*this);
    const Tick busy_until = replicas_[r].busy_until();
    if (busy_until_tree_[r] != busy_until) busy_until_tree_.set(r, busy_until);
    if (any_release_pending_) release_noted(t);
  }

  void apply_mirror_op(const MirrorOp& op) {
    RadixCache& mirror = mirrors_[op.replica];
    switch (op.kind) {
      case CacheOp::Kind::Insert: {
        Prompt prefix = op.prompt.view();
        prefix.length = op.length;
        const RadixCache::PathHandle path = mirror.insert(prefix).path;
        if (op.pin) {
          mirror.pin(path);
          if (mirror_paths_[op.request] != 0) mirror.unpin(mirror_paths_[op.request]);
        }
        mirror_paths_[op.request] = path;
        break;
      }
      case CacheOp::Kind::Unpin:
        mirror.unpin(mirror_paths_[op.request]);
        mirror_paths_[op.request] = 0;
        break;
      case CacheOp::Kind::Reserve:
        mirror.reserve(op.tokens);
        break;
      case CacheOp::Kind::Release:
        mirror.release(op.tokens);
        break;
    }
  }

  // Takes the scrape at the last period boundary <= t, if one is due. Only the
  // latest scrape before an arrival is ever read, so idle periods are skipped.
  void scrape_through(Tick t) {
    if (t < next_scrape_ || final_scrape_taken_) return;
    // After the last arrival no policy reads a scrape, and an engine cache
    // only unpins and releases (completions): used() never rises again, so
    // the first scrape after it is the last that can raise peak_kv_usage. An
    // overloaded run drains for long after its last arrival, and each of its
    // scrapes would visit every replica. (The batched engine keeps its own
    // exact peak; see ReplicaTotals.)
    // (Requests held at the router are routed later: until the last is,
    // caches can still grow and policies still route.)
    if (arrivals_done_ && held_count_ == 0) final_scrape_taken_ = true;
    const Tick at = next_scrape_ + ((t - next_scrape_) / scrape_period_) * scrape_period_;
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      engine_->scrape(static_cast<std::uint32_t>(r), at);
      ReplicaTotals& totals = run_.replicas[r];
      totals.peak_kv_usage = std::max(totals.peak_kv_usage, replicas_[r].scraped().kv_usage);
    }
    next_scrape_ = at + scrape_period_;
    ++scrapes_;
  }

  // Every sample period, every replica's router in-flight count (and, under
  // the batched engine, its batch and KV blocks). A run with a reactive
  // client samples until its last send: at kInFlightSamples samples it keeps
  // every other one and doubles the period, so the samples stay between half
  // and all of kInFlightSamples, evenly spaced from 0.
  void sample_in_flight() {
    const std::size_t replicas = replicas_.size();
    if (reactive_ != nullptr && run_.in_flight_samples.size() / replicas == kInFlightSamples) {
      const auto thin = [replicas](std::vector<std::uint32_t>& v) {
        if (v.empty()) return;
        const std::size_t samples = v.size() / replicas;
        for (std::size_t s = 0; 2 * s < samples; ++s)
          std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(2 * s * replicas), replicas,
                      v.begin() + static_cast<std::ptrdiff_t>(s * replicas));
        v.resize((samples + 1) / 2 * replicas);
      };
      thin(run_.in_flight_samples);
      thin(run_.batch_samples);
      thin(run_.kv_block_samples);
      run_.in_flight_period *= 2;
    }
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      run_.in_flight_samples.push_back(routers_->total(r));
      if (batched_) {
        const ReplicaLoad load = engine_->load(static_cast<std::uint32_t>(r));
        run_.batch_samples.push_back(load.running);
        run_.kv_block_samples.push_back(
            static_cast<std::uint32_t>((load.held_tokens + cluster_.kv_block_tokens - 1) / cluster_.kv_block_tokens));
      }
    }
    if (reactive_ != nullptr)
      next_sample_ = arrivals_done_ ? kNever : next_sample_ + run_.in_flight_period;
    else
      next_sample_ = run_.in_flight_samples.size() / replicas_.size() < kInFlightSamples
                         ? next_sample_ + run_.in_flight_period
                         : kNever;
  }

  // KV use of every replica (held / capacity, as its scrape would report
  // it), every kv_sample_period until the last send, for a source that asks.
  // At kKvSamples samples it keeps every other one and doubles the period,
  // so a run far longer than its stages planned stays within the budget.
  void sample_kv_use() {
    const std::size_t replicas = replicas_.size();
    if (run_.kv_samples.size() / replicas == kKvSamples) {
      for (std::size_t k = 0; 2 * k < kKvSamples; ++k)
        std::copy_n(run_.kv_samples.begin() + static_cast<std::ptrdiff_t>(2 * k * replicas), replicas,
                    run_.kv_samples.begin() + static_cast<std::ptrdiff_t>(k * replicas));
      run_.kv_samples.resize(kKvSamples / 2 * replicas);
      run_.kv_sample_period *= 2;
    }
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      const RadixCache& cache = replicas_[r].cache();
      const double held = batched_ ? static_cast<double>(engine_->load(static_cast<std::uint32_t>(r)).held_tokens)
                                   : static_cast<double>(cache.used());
      run_.kv_samples.push_back(cache.capacity() == 0 ? 0.0 : held / static_cast<double>(cache.capacity()));
    }
    next_kv_sample_ = arrivals_done_ ? kNever : next_kv_sample_ + run_.kv_sample_period;
  }

  // The reactive client's loop: it says when it acts next; the events up to
  // then run, stopping at a completion (which may move the client's next
  // action earlier); then it acts, and a send is routed. Returns the requests sent.
  std::size_t run_reactive(const ProgressCallback& progress, std::uint64_t progress_every) {
    SourcedRequest request;
    std::size_t sent = 0;
    interruptible_ = true;
    while (!reactive_->exhausted()) {
      const Tick t = reactive_->next_action();
      interrupted_ = false;
      advance_to(t == ReactiveSource::kWaiting ? kNever : t);
      if (interrupted_) continue;
      if (t == ReactiveSource::kWaiting) {
        // Nothing left to happen but requests held at a router: release one.
        if (release_stranded()) continue;
        break;
      }
      if (!reactive_->act(t) || !source_.next(request)) continue;
      if (progress && sent > 0 && sent % progress_every == 0 && !progress(sent)) {
        run_.cancelled = true;
        break;
      }
      if (sent == 0) run_.first_arrival = request.arrival;
      arrive(sent, request);
      ++sent;
    }
    return sent;
  }

  RequestSource& source_;
  const ClusterConfig& cluster_;
  std::vector<Replica> replicas_;
  std::unique_ptr<RouterInstances> routers_;  // the router instances, their policies and queues
  std::vector<std::uint8_t> release_pending_;  // per instance: its queue may release after this event
  bool any_release_pending_ = false;
  std::uint64_t held_count_ = 0;  // requests held in the router queues
  HeldRequest held_;                          // scratch: the request a queue releases
  Tick clock_ = 0;                            // the time of the last event processed
  std::vector<RadixCache> mirrors_;
  std::vector<RadixCache::PathHandle> mirror_paths_;
  std::deque<MirrorOp> mirror_ops_;
  std::unique_ptr<Engine> engine_;
  TournamentTree<Tick> busy_until_tree_;  // per replica: busy_until(), for the policy
  std::vector<std::uint8_t> predicted_;   // batched: whether the policy predicted request i's hit
  std::optional<SessionTally> sessions_;  // when the source has sessions (per-session figures)
  bool batched_ = false;
  Tick scrape_period_ = 1;
  Tick next_scrape_ = 0;
  std::uint64_t scrapes_ = 0;  // scrapes taken: the view's scrape_count()
  Tick next_sample_ = 0;
  Tick next_kv_sample_ = kNever;  // recording_.kv_sample_period > 0: the next KV-use sample
  Tick lag_ = 0;
  ReactiveSource* reactive_ = nullptr;  // the source's reactive client, if any
  SourceRecording recording_;           // what the source asks the run to record
  bool interruptible_ = false;          // run_reactive() is routing: a completion interrupts advance_to
  bool interrupted_ = false;
  bool arrivals_done_ = false;       // run() has routed every request
  bool final_scrape_taken_ = false;  // the one scrape after that (see scrape_through)
  std::unique_ptr<PrefixIndex> index_;  // of the caches policy_ matches against, if any
  std::unique_ptr<ClusterView> view_;   // what policy_ sees: replicas_, index_, busy_until_tree_
  std::unique_ptr<TimelineRecorder> timeline_;  // when asked to record one
  SimulationRun run_;
  // Spilled results (simulate's spill_results_above), moved into run_ at the end.
  std::shared_ptr<TickSpill> ttft_spill_;
  std::shared_ptr<TickSpill> end_to_end_spill_;
  std::uint64_t last_cached_ = 0;  // the last admitted() request's cached tokens
};

}  // namespace

SimulationRun simulate(RequestSource& source, const ClusterConfig& cluster, std::span<RoutingPolicy* const> routers,
                       const ProgressCallback& progress, std::uint64_t progress_every,
                       const RouterConfig& router, bool record_timeline, std::uint64_t spill_results_above) {
  Simulation simulation(source, cluster, routers, router, record_timeline, spill_results_above);
  return simulation.run(progress, progress_every);
}

SimulationRun simulate(RequestSource& source, const ClusterConfig& cluster, RoutingPolicy& policy,
                       const ProgressCallback& progress, std::uint64_t progress_every,
                       const RouterConfig& router, bool record_timeline) {
  RoutingPolicy* const one[] = {&policy};
  return simulate(source, cluster, std::span<RoutingPolicy* const>(one), progress, progress_every, router, record_timeline);
}

SimulationRun simulate(const RequestTrace& trace, const ClusterConfig& cluster, RoutingPolicy& policy,
                       const ProgressCallback& progress, std::uint64_t progress_every,
                       const RouterConfig& router, bool record_timeline) {
  TraceSource source(trace);
  return simulate(source, cluster, policy, progress, progress_every, router, record_timeline);
}

}  // namespace prefixroute
