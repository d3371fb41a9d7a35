#include "prefixroute/sim/simulator.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <memory>
#include <queue>

#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/base/tournament_tree.h"

namespace prefixroute {
namespace {

constexpr Tick kNever = std::numeric_limits<Tick>::max();

// The order of events: by time, then by admission. A request's first token
// has an even seq and its completion the next odd one, so at equal times a
// completion follows its own first token and precedes later admissions'.
struct EventKey {
  Tick time;
  std::uint64_t seq;

  bool operator<(const EventKey& other) const {
    return time != other.time ? time < other.time : seq < other.seq;
  }
};

constexpr EventKey kNoEvent{kNever, std::numeric_limits<std::uint64_t>::max()};

// What an event needs to know about its request, kept while it is in flight.
struct InFlight {
  std::uint64_t request;
  Tick arrival;
  Replica::Admission admission;
  std::uint32_t replica;
  std::uint32_t output_tokens;
};

// Requests are admitted one per arrival, in trace order, so request i's first
// token has seq 2i and its completion 2i + 1.
EventKey first_token_key(const InFlight& f) { return EventKey{f.admission.first_token, 2 * f.request}; }
EventKey completion_key(const InFlight& f) { return EventKey{f.admission.completion, 2 * f.request + 1}; }

// A decoding request's completion; its record is in `slot`. Completions do
// not come in admission order (outputs differ in length), so they wait in one
// heap. Without decode a request completes at its first token and never
// waits here.
struct Completion {
  EventKey key;
  std::uint32_t slot;

  bool operator>(const Completion& other) const { return other.key < key; }
};

// A KV event on its way to the router's lagged cache view: the mirror replays
// the engine's cache operations `lag` later, in the same order, so it is
// exactly the engine's cache as it was `lag` ago.
struct MirrorOp {
  Tick time;
  std::uint32_t replica;
  std::uint64_t request;
  bool admit;  // admit (insert + pin) or complete (unpin)
  PromptPieces prompt;
  std::uint32_t output_tokens;
  bool pinned;
};

class Simulation {
 public:
  Simulation(RequestSource& source, const ClusterConfig& cluster, RoutingPolicy& policy,
             const RouterConfig& router)
      : source_(source),
        cluster_(cluster),
        policy_(policy),
        prefilling_(cluster.replicas),
        next_first_tokens_(cluster.replicas, kNoEvent),
        busy_until_tree_(cluster.replicas, kNever) {
    replicas_.reserve(cluster.replicas);
    for (std::uint32_t i = 0; i < cluster.replicas; ++i) {
      replicas_.emplace_back(RadixCache(cluster.cache_tokens, cluster.protect_after_hits, &source.content()));
      busy_until_tree_.set(i, replicas_[i].busy_until());
    }
    decoding_.assign(cluster.replicas, 0);
    tick_per_output_token_ = seconds_to_ticks(cluster.decode_ms_per_token / 1000.0);
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
    const Tick span = source.last_arrival();
    run_.in_flight_period = std::max<Tick>(1, span / kInFlightSamples + 1);
    run_.decode = tick_per_output_token_ > 0;
    const auto n = static_cast<std::size_t>(source.size());
    run_.ttft.reserve(n);
    run_.end_to_end.assign(n, 0);
    run_.replica_of.reserve(n);
    run_.cached_of.reserve(n);
    run_.replicas.resize(cluster.replicas);
    view_ = std::make_unique<ClusterView>(replicas_, index_.get(), view, view == CacheView::Engine || lag_ == 0,
                                          &busy_until_tree_);
  }

  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  SimulationRun run(const ProgressCallback& progress, std::uint64_t progress_every) {
    SourcedRequest request;
    for (std::size_t i = 0; source_.next(request); ++i) {
      if (progress && i > 0 && i % progress_every == 0 && !progress(i)) {
        run_.cancelled = true;
        break;
      }
      advance_to(request.arrival);
      route(i, request);
    }
    arrivals_done_ = true;
    advance_to(kNever);  // finish every request: completions, end-to-end times
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      ReplicaTotals& t = run_.replicas[r];
      t.requests = replicas_[r].requests();
      t.prefill_tokens = replicas_[r].prefill_tokens();
      t.cached_tokens = replicas_[r].cached_tokens();
      t.busy_ticks = replicas_[r].busy_ticks();
    }
    return std::move(run_);
  }

 private:
  void route(std::size_t i, const SourcedRequest& request) {
    const Tick now = request.arrival;
    const PromptPieces& pieces = request.prompt;
    const Prompt prompt = pieces.view();
    view_->forget_walk();
    const std::uint64_t output = run_.decode ? request.output_tokens : 0;
    const std::size_t chosen =
        policy_.choose(RouteRequest(prompt, i, request.session, request.turn, output), *view_, now);
    const std::int64_t predicted = policy_.predicted_cached_tokens();
    policy_.on_routed(RoutedRequest{i, chosen, prompt, output, now, request.session, request.turn});
    Replica& replica = replicas_[chosen];
    // When the policy's walk read the engines' caches, its answer for the
    // chosen replica is exactly what the insert would match (nothing changes
    // that cache between choose() and here): the insert need not re-read
    // those tokens. Never the policy's prediction, which may be wrong.
    const std::size_t known_cached = view_->known_engine_match(prompt, chosen).value_or(0);
    const Replica::Admission a =
        replica.admit_with_decode(prompt, now, cluster_.prefill, output, tick_per_output_token_, known_cached);
    busy_until_tree_.set(chosen, replica.busy_until());
    replica.router_dispatched();
    ReplicaTotals& totals = run_.replicas[chosen];
    totals.peak_in_flight = std::max(totals.peak_in_flight, replica.in_flight());
    run_.ttft.push_back(a.first_token - now);
    run_.replica_of.push_back(static_cast<std::uint32_t>(chosen));
    run_.cached_of.push_back(static_cast<std::uint32_t>(a.cached_tokens));
    if (predicted >= 0) {
      run_.predicted_cached_tokens += static_cast<std::uint64_t>(predicted);
      run_.predicted_actual_cached_tokens += a.cached_tokens;
      run_.predicted_prompt_tokens += prompt.size();
    }
    const auto r = static_cast<std::uint32_t>(chosen);
    const auto out = static_cast<std::uint32_t>(output);
    std::deque<InFlight>& queue = prefilling_[chosen];
    queue.push_back(InFlight{i, now, a, r, out});
    if (queue.size() == 1) next_first_tokens_.set(chosen, first_token_key(queue.front()));
    if (lag_ > 0) {
      mirror_ops_.push_back(MirrorOp{now + lag_, r, i, true, pieces, out, a.decodes()});
    }
  }

  // Processes everything that happens up to and including `now`, in the
  // documented order, then takes the scrape due at or before `now`.
  void advance_to(Tick now) {
    for (;;) {
      const EventKey first_token = next_first_tokens_.least();
      const EventKey completion = completions_.empty() ? kNoEvent : completions_.top().key;
      const bool first_token_next = first_token < completion;
      const Tick t_event = first_token_next ? first_token.time : completion.time;
      const Tick t_op = mirror_ops_.empty() ? kNever : mirror_ops_.front().time;
      const Tick t = std::min({t_event, t_op, next_sample_});
      if (t > now || t == kNever) break;
      scrape_through(t - 1);  // scrapes strictly before t see the state before t
      if (t_event == t) {
        if (first_token_next) {
          handle_first_token(next_first_tokens_.position_of_least(), t);
        } else {
          const Completion c = completions_.top();
          completions_.pop();
          complete(in_flight_[c.slot], t);
          free_slots_.push_back(c.slot);
        }
      } else if (t_op == t) {
        apply_mirror_op(mirror_ops_.front());
        mirror_ops_.pop_front();
      } else {
        sample_in_flight();
      }
    }
    if (now != kNever) scrape_through(now);
  }

  // The first token of the head of `replica`'s prefill queue, due at `now`.
  void handle_first_token(std::size_t replica, Tick now) {
    std::deque<InFlight>& queue = prefilling_[replica];
    const InFlight f = queue.front();
    queue.pop_front();
    next_first_tokens_.set(replica, queue.empty() ? kNoEvent : first_token_key(queue.front()));
    const bool decodes = f.admission.decodes();
    if (decodes) ++decoding_[f.replica];
    policy_.on_first_token(f.request, f.replica, now);
    if (!decodes) {
      // Its completion, (now, seq + 1), is the next event: an event due
      // before it would be due before this first token too.
      complete(f, now);
      return;
    }
    std::uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(in_flight_.size());
      in_flight_.push_back(f);
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
      in_flight_[slot] = f;
    }
    completions_.push(Completion{completion_key(f), slot});
  }

  void complete(const InFlight& f, Tick now) {
    Replica& replica = replicas_[f.replica];
    const bool decodes = f.admission.decodes();
    if (decodes) --decoding_[f.replica];
    replica.complete(f.admission, f.output_tokens);
    replica.router_completed();
    run_.end_to_end[f.request] = now - f.arrival;
    policy_.on_completed(f.request, f.replica, now);
    if (lag_ > 0 && decodes)
      mirror_ops_.push_back(MirrorOp{now + lag_, f.replica, f.request, false, {}, f.output_tokens, true});
  }

  void apply_mirror_op(const MirrorOp& op) {
    RadixCache& mirror = mirrors_[op.replica];
    if (op.admit) {
      const RadixCache::PathHandle path = mirror.insert(op.prompt.view()).path;
      mirror_paths_[op.request] = path;
      if (op.pinned) {
        mirror.pin(path);
        mirror.reserve(op.output_tokens);
      }
    } else {
      mirror.unpin(mirror_paths_[op.request]);
      mirror.release(op.output_tokens);
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
    // scrapes would visit every replica.
    if (arrivals_done_) final_scrape_taken_ = true;
    const Tick at = next_scrape_ + ((t - next_scrape_) / scrape_period_) * scrape_period_;
    for (std::size_t r = 0; r < replicas_.size(); ++r) {
      replicas_[r].scrape(at, decoding_[r]);
      ReplicaTotals& totals = run_.replicas[r];
      totals.peak_kv_usage = std::max(totals.peak_kv_usage, replicas_[r].scraped().kv_usage);
    }
    next_scrape_ = at + scrape_period_;
  }

  void sample_in_flight() {
    for (const Replica& r : replicas_) run_.in_flight_samples.push_back(r.in_flight());
    next_sample_ = run_.in_flight_samples.size() / replicas_.size() < kInFlightSamples
                       ? next_sample_ + run_.in_flight_period
                       : kNever;
  }

  RequestSource& source_;
  const ClusterConfig& cluster_;
  RoutingPolicy& policy_;
  std::vector<Replica> replicas_;
  std::vector<RadixCache> mirrors_;
  std::vector<RadixCache::PathHandle> mirror_paths_;
  std::deque<MirrorOp> mirror_ops_;
  std::vector<std::uint32_t> decoding_;
  // Per replica, the admitted requests whose first token is still ahead, in
  // admission order. A replica's first tokens come in that order (one FIFO
  // prefill queue: each starts when the previous one's ends), so each queue
  // is sorted and the run's next first token is the least of the heads.
  std::vector<std::deque<InFlight>> prefilling_;
  TournamentTree<EventKey> next_first_tokens_;        // per replica: its queue's head
  TournamentTree<Tick> busy_until_tree_;              // per replica: busy_until(), for the policy
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::vector<InFlight> in_flight_;  // records of decoding requests, by slot
  std::vector<std::uint32_t> free_slots_;
  Tick tick_per_output_token_ = 0;
  Tick scrape_period_ = 1;
  Tick next_scrape_ = 0;
  Tick next_sample_ = 0;
  Tick lag_ = 0;
  bool arrivals_done_ = false;       // run() has routed every request
  bool final_scrape_taken_ = false;  // the one scrape after that (see scrape_through)
  std::unique_ptr<PrefixIndex> index_;  // of the caches policy_ matches against, if any
  std::unique_ptr<ClusterView> view_;   // what policy_ sees: replicas_, index_, busy_until_tree_
  SimulationRun run_;
};

}  // namespace

SimulationRun simulate(RequestSource& source, const ClusterConfig& cluster, RoutingPolicy& policy,
                       const ProgressCallback& progress, std::uint64_t progress_every,
                       const RouterConfig& router) {
  Simulation simulation(source, cluster, policy, router);
  return simulation.run(progress, progress_every);
}

SimulationRun simulate(const RequestTrace& trace, const ClusterConfig& cluster, RoutingPolicy& policy,
                       const ProgressCallback& progress, std::uint64_t progress_every,
                       const RouterConfig& router) {
  TraceSource source(trace);
  return simulate(source, cluster, policy, progress, progress_every, router);
}

}  // namespace prefixroute
