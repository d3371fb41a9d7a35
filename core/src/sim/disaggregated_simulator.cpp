#include "prefixroute/sim/disaggregated_simulator.h"

#include <algorithm>
#include <memory>
#include <queue>

#include "prefixroute/base/random.h"
#include "prefixroute/base/tournament_tree.h"
#include "prefixroute/cache/prefix_index.h"
#include "prefixroute/sim/fifo_engine.h"
#include "prefixroute/sim/kv_link.h"
#include "prefixroute/sim/router_instances.h"

namespace prefixroute {
namespace {

constexpr Tick kNeverTick = std::numeric_limits<Tick>::max();

// The decode pool's events (the prefill pool's are its fifo engine's).
enum class PdEventKind : std::uint8_t { SetupDone, LinkFinish, FirstToken, Completion };

struct PdEvent {
  Tick time;
  std::uint64_t seq;  // scheduling order: ties at one tick
  PdEventKind kind;
  std::uint64_t id;   // request, or (LinkFinish) the link
  std::uint64_t version;  // LinkFinish: the link's version when scheduled
  bool operator>(const PdEvent& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

// A request between its routing and its completion.
struct PdRequest {
  Tick arrival = 0;
  PromptPieces prompt;      // kept until the decode worker caches it
  std::uint32_t decode = 0;
  std::uint32_t output = 0;
  bool split = false;
  Tick transfer_start = 0;
  double bytes = 0;         // to send, from the transfer's start to its joining the link
  Replica::Admission decode_admission;  // the decode worker's (path pinned, outputs reserved)
};

class DisaggregatedSimulation final : public EngineEvents {
 public:
  DisaggregatedSimulation(RequestSource& source, const PoolClusters& pools, const TopologySettings& topology,
                          RoutingPolicy& policy, std::uint64_t seed, const RouterConfig& router)
      : source_(source),
        pools_(pools),
        topology_(topology),
        prefill_cluster_(pools.prefill),
        busy_until_tree_(pools.prefill.replicas, kNeverTick),
        rng_(seed ^ 0x9d2c5680a1b3e7f1ULL) {
    prefill_cluster_.decode_ms_per_token = 0;  // the prefill request ends at its first token
    const std::uint32_t np = pools.prefill.replicas, nd = pools.decode.replicas;
    prefill_.reserve(np);
    for (std::uint32_t i = 0; i < np; ++i) {
      prefill_.emplace_back(RadixCache(pools.prefill.cache_tokens, pools.prefill.protect_after_hits, &source.content()));
      busy_until_tree_.set(i, 0);
    }
    decode_.reserve(nd);
    for (std::uint32_t i = 0; i < nd; ++i)
      decode_.emplace_back(RadixCache(pools.decode.cache_tokens, pools.decode.protect_after_hits, &source.content()));
    policies_[0] = &policy;
    routers_ = std::make_unique<RouterInstances>(std::span<RoutingPolicy* const>(policies_, 1), prefill_);
    const CacheView view = policy.matched_view();
    if (view != CacheView::None) {
      index_ = std::make_unique<PrefixIndex>(np);
      for (std::uint32_t i = 0; i < np; ++i) prefill_[i].cache().attach_index(index_.get(), i);
    }
    engine_ = std::make_unique<FifoEngine>(prefill_cluster_, prefill_, false);
    view_ = std::make_unique<ClusterView>(prefill_, index_.get(), view, true, &busy_until_tree_);
    view_->set_scrape_count(&scrapes_);
    view_->set_in_flight_total(&routers_->shown_in_flight());
    view_->set_in_flight_announced(true);
    view_->set_in_flight_order(routers_->in_flight_order());
    scrape_period_ = std::max<Tick>(1, seconds_to_ticks(router.scrape_period_ms / 1000.0));
    decode_step_ = pools.decode.step_model();
    tick_per_output_ = seconds_to_ticks(pools.decode.decode_ms_per_token / 1000.0);
    setup_ = seconds_to_ticks(topology.link_setup_ms / 1000.0);
    for (std::uint32_t i = 0; i < nd; ++i) links_.emplace_back(topology.link_bytes_per_s());
    link_version_.assign(nd, 0);
    active_.assign(nd, 0);
    decoding_.assign(nd, 0);
    decode_peak_kv_.assign(nd, 0);
    decoded_.assign(nd, 0);
    recording_ = source.recording();
    run_.decode = tick_per_output_ > 0;
    const auto n = static_cast<std::size_t>(source.size());
    run_.ttft.assign(n, 0);
    run_.end_to_end.assign(n, 0);
    run_.replica_of.assign(n, 0);
    run_.cached_of.assign(n, 0);
    if (recording_.request_sizes) {
      run_.prompt_tokens_of.assign(n, 0);
      run_.output_tokens_of.assign(n, 0);
      run_.tpot_of.assign(n, -1.0);
    }
    run_.in_flight_period = std::max<Tick>(1, source.last_arrival() / kInFlightSamples + 1);
    run_.replicas.resize(np + nd);
    slot_of_.assign(n, 0);
  }

  SimulationRun run(const ProgressCallback& progress, std::uint64_t progress_every) {
    SourcedRequest request;
    std::size_t routed = 0;
    for (std::size_t i = 0; source_.next(request); ++i) {
      if (progress && i > 0 && i % progress_every == 0 && !progress(i)) {
        run_.cancelled = true;
        break;
      }
      if (i == 0) run_.first_arrival = request.arrival;
      advance_to(request.arrival);
      route(i, request);
      routed = i + 1;
    }
    arrivals_done_ = true;
    advance_to(kNeverTick);
    if (run_.cancelled) {
      run_.ttft.resize(routed);
      run_.end_to_end.resize(routed);
      run_.cached_of.resize(routed);
      run_.replica_of.resize(routed);
    }
    finish();
    return std::move(run_);
  }

  // ---- the prefill pool's engine events ----
  void admitted(std::uint64_t id, std::uint32_t, std::uint64_t cached_tokens) override {
    run_.cached_of[id] = static_cast<std::uint32_t>(cached_tokens);
  }

  void first_token(std::uint64_t id, std::uint32_t replica, Tick, Tick now) override {
    policies_[0]->on_first_token(id, replica, now);
    start_transfer(id, now);
  }

  void completed(std::uint64_t id, std::uint32_t replica, Tick, Tick now, std::uint64_t) override {
    routers_->completed(0, replica);
    policies_[0]->on_completed(id, replica, now);
  }

  void cache_op(const CacheOp&, Tick) override {}

 private:
  // A free slot for request `id`, reset.
  PdRequest& take_slot(std::uint64_t id) {
    std::uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
      slots_[slot] = PdRequest{};
    }
    slot_of_[id] = slot;
    return slots_[slot];
  }

  // ---- routing ----
  std::uint32_t choose_decode() {
    const auto nd = static_cast<std::uint32_t>(decode_.size());
    if (topology_.decode_choice == "round_robin") return static_cast<std::uint32_t>(next_decode_++ % nd);
    if (topology_.decode_choice == "power_of_two" && nd > 1) {
      const auto a = static_cast<std::uint32_t>(rng_.uniform_int(0, nd - 1));
      auto b = static_cast<std::uint32_t>(rng_.uniform_int(0, nd - 2));
      if (b >= a) ++b;  // two distinct workers
      return active_[b] < active_[a] ? b : a;
    }
    std::uint32_t best = 0;  // least_loaded
    for (std::uint32_t d = 1; d < nd; ++d)
      if (active_[d] < active_[best]) best = d;
    return best;
  }

  bool split(const Prompt& prompt, std::uint32_t d) const {
    if (topology_.split == "never") return false;
    if (topology_.split == "always") return true;
    const std::size_t hit = decode_[d].cache().match(prompt);
    const auto uncached = static_cast<double>(prompt.size() - hit);
    if (topology_.split == "dynamo_isl")  // Dynamo isl_bounding: bypass iff eff < cap and eff / prompt < ratio
      return !(uncached < topology_.split_eff_isl_tokens &&
               uncached / static_cast<double>(std::max<std::size_t>(prompt.size(), 1)) < topology_.split_eff_isl_ratio);
    // llm-d prefix-based-pd-decider: inputTokens - hit >= nonCachedTokens.
    return uncached >= topology_.split_uncached_tokens;
  }

  void route(std::size_t i, const SourcedRequest& request) {
    const PromptPieces& pieces = request.prompt;
    const Prompt prompt = pieces.view();
    const auto output = static_cast<std::uint32_t>(tick_per_output_ > 0 ? request.output_tokens : 0);
    const Tick now = request.arrival;
    const std::uint32_t d = choose_decode();
    integrate_active(now);
    ++active_[d];
    ++active_total_;
    PdRequest& r = take_slot(i);
    r.arrival = now;
    r.decode = d;
    r.output = output;
    r.split = split(prompt, d);
    run_.replica_of[i] = static_cast<std::uint32_t>(prefill_.size()) + d;
    if (recording_.request_sizes) {
      run_.prompt_tokens_of[i] = static_cast<std::uint32_t>(prompt.size());
      run_.output_tokens_of[i] = output;
    }
    if (!r.split) {
      // Local prefill on the decode worker, in its own FIFO queue.
      Replica& replica = decode_[d];
      local_wait_ += std::max<Tick>(0, replica.busy_until() - now);
      ++local_prefills_;
      r.decode_admission = replica.admit_with_decode(prompt, now, decode_step_, output, tick_per_output_);
      run_.cached_of[i] = static_cast<std::uint32_t>(r.decode_admission.cached_tokens);
      note_decode_kv(d);
      push(r.decode_admission.first_token, PdEventKind::FirstToken, i);
      return;
    }
    r.prompt = pieces;
    RoutingPolicy& policy = *policies_[0];
    routers_->enter(0);
    view_->forget_walk();
    const std::size_t p = policy.choose(RouteRequest(prompt, i, request.session, request.turn, output), *view_, now);
    const std::int64_t predicted = policy.predicted_cached_tokens();
    policy.on_routed(RoutedRequest{i, p, prompt, output, now, request.session, request.turn});
    if (predicted >= 0) {
      run_.predicted_cached_tokens += static_cast<std::uint64_t>(predicted);
      run_.predicted_prompt_tokens += prompt.size();
    }
    const std::size_t known = view_->known_engine_match(prompt, p).value_or(0);
    prefill_wait_ += std::max<Tick>(0, prefill_[p].busy_until() - now);
    EngineRequest admitted;
    admitted.id = i;
    admitted.arrival = now;
    admitted.prompt = &pieces;
    admitted.output_tokens = 0;
    engine_->admit(static_cast<std::uint32_t>(p), admitted, now, known, *this);
    if (predicted >= 0) run_.predicted_actual_cached_tokens += run_.cached_of[i];
    busy_until_tree_.set(p, prefill_[p].busy_until());
    routers_->dispatched(0, p);
    ReplicaTotals& totals = run_.replicas[p];
    totals.peak_in_flight = std::max(totals.peak_in_flight, routers_->total(p));
  }

  // ---- the transfer ----
  // Request id's prefill ended at `now`: the decode worker takes its prompt
  // (reserving its KV) and the transfer of what it did not hold begins.
  void start_transfer(std::uint64_t id, Tick now) {
    PdRequest& r = slots_[slot_of_[id]];
    Replica& replica = decode_[r.decode];
    const Prompt prompt = r.prompt.view();
    const RadixCache::InsertResult inserted = replica.cache().insert(prompt);
    Replica::Admission& a = r.decode_admission;
    a.cached_tokens = inserted.cached_tokens;
    a.path = inserted.path;
    if (r.output > 0) {
      replica.cache().pin(a.path);
      replica.cache().reserve(r.output);
    }
    r.prompt = PromptPieces{};
    note_decode_kv(r.decode);
    const std::uint64_t sent = prompt.size() - inserted.cached_tokens;
    ++transfers_;
    transferred_tokens_ += sent;
    decode_hit_tokens_ += inserted.cached_tokens;
    r.transfer_start = now;
    r.bytes = static_cast<double>(sent) * pools_.kv_bytes_per_token;
    push(now + setup_, PdEventKind::SetupDone, id);
  }

  void join_link(std::uint64_t id, Tick now) {
    const PdRequest& r = slots_[slot_of_[id]];
    const std::uint32_t d = r.decode;
    links_[d].join(id, r.bytes, now);
    peak_link_ = std::max<std::uint32_t>(peak_link_, static_cast<std::uint32_t>(links_[d].active()));
    schedule_link(d);
  }

  void schedule_link(std::uint32_t d) {
    ++link_version_[d];
    const Tick t = links_[d].next_finish();
    if (t != KvLink::kNever) push(t, PdEventKind::LinkFinish, d, link_version_[d]);
  }

  // ---- decode ----
  // Request id's first token, from its decode worker, at `now`.
  void first_token_at(std::uint64_t id, Tick now) {
    const PdRequest& r = slots_[slot_of_[id]];
    run_.ttft[id] = now - r.arrival;
    if (r.split) transfer_ticks_ += now - r.transfer_start;
    const Tick completion = now + static_cast<Tick>(r.output) * tick_per_output_;
    if (r.output > 0) ++decoding_[r.decode];
    push(completion, PdEventKind::Completion, id);
  }

  void complete(std::uint64_t id, Tick now) {
    const PdRequest& r = slots_[slot_of_[id]];
    Replica& replica = decode_[r.decode];
    if (r.output > 0) {
      replica.cache().unpin(r.decode_admission.path);
      replica.cache().release(r.output);
      --decoding_[r.decode];
    }
    integrate_active(now);
    --active_[r.decode];
    --active_total_;
    ++decoded_[r.decode];
    run_.end_to_end[id] = now - r.arrival;
    run_.last_completion = std::max(run_.last_completion, now);
    free_slots_.push_back(slot_of_[id]);
  }

  // ---- events ----
  void push(Tick t, PdEventKind kind, std::uint64_t id, std::uint64_t version = 0) {
    events_.push(PdEvent{t, seq_++, kind, id, version});
  }

  void advance_to(Tick now) {
    for (;;) {
      const EventKey prefill = engine_->next_event();
      const Tick decode = events_.empty() ? kNeverTick : events_.top().time;
      const Tick t = std::min(prefill.time, decode);
      if (t == kNeverTick || t > now) break;
      scrape_through(t - 1);
      if (prefill.time == t) {
        const std::uint32_t r = engine_->handle_next_event(*this);
        busy_until_tree_.set(r, prefill_[r].busy_until());
        continue;
      }
      const PdEvent e = events_.top();
      events_.pop();
      switch (e.kind) {
        case PdEventKind::SetupDone:
          join_link(e.id, e.time);
          break;
        case PdEventKind::LinkFinish: {
          const auto d = static_cast<std::uint32_t>(e.id);
          if (e.version != link_version_[d]) break;  // superseded by a later join or finish
          first_token_at(links_[d].finish_next(), e.time);
          schedule_link(d);
          break;
        }
        case PdEventKind::FirstToken:
          first_token_at(e.id, e.time);
          break;
        case PdEventKind::Completion:
          complete(e.id, e.time);
          break;
      }
    }
    if (now != kNeverTick) scrape_through(now);
  }

  // The prefill pool's scrape at the last period boundary <= t (what its
  // policy reads), as simulate() takes it; none after the last arrival.
  void scrape_through(Tick t) {
    if (t < next_scrape_ || arrivals_done_) return;
    const Tick at = next_scrape_ + ((t - next_scrape_) / scrape_period_) * scrape_period_;
    for (std::size_t r = 0; r < prefill_.size(); ++r) {
      engine_->scrape(static_cast<std::uint32_t>(r), at);
      ReplicaTotals& totals = run_.replicas[r];
      totals.peak_kv_usage = std::max(totals.peak_kv_usage, prefill_[r].scraped().kv_usage);
    }
    next_scrape_ = at + scrape_period_;
    ++scrapes_;
  }

  void note_decode_kv(std::uint32_t d) {
    const RadixCache& cache = decode_[d].cache();
    if (cache.capacity() > 0)
      decode_peak_kv_[d] =
          std::max(decode_peak_kv_[d], static_cast<double>(cache.used()) / static_cast<double>(cache.capacity()));
  }

  // The time integral of the decode pool's assigned requests, up to `now`.
  void integrate_active(Tick now) {
    if (now <= active_since_) return;
    active_area_ += static_cast<double>(active_total_) * static_cast<double>(now - active_since_);
    active_since_ = now;
  }

  void finish() {
    const std::size_t np = prefill_.size(), nd = decode_.size();
    PoolTotals prefill, decode;
    prefill.name = "prefill";
    decode.name = "decode";
    prefill.replicas = static_cast<std::uint32_t>(np);
    decode.replicas = static_cast<std::uint32_t>(nd);
    for (std::size_t r = 0; r < np; ++r) {
      ReplicaTotals& t = run_.replicas[r];
      t.requests = prefill_[r].requests();
      t.prefill_tokens = prefill_[r].prefill_tokens();
      t.cached_tokens = prefill_[r].cached_tokens();
      t.busy_ticks = prefill_[r].busy_ticks();
      prefill.requests += t.requests;
      prefill.busy_ticks += t.busy_ticks;
      prefill.peak_kv_usage = std::max(prefill.peak_kv_usage, t.peak_kv_usage);
    }
    prefill.prefills = prefill.requests;
    for (std::size_t r = 0; r < nd; ++r) {
      ReplicaTotals& t = run_.replicas[np + r];
      t.requests = decoded_[r];
      t.prefill_tokens = decode_[r].prefill_tokens();
      t.cached_tokens = decode_[r].cached_tokens();
      t.busy_ticks = decode_[r].busy_ticks();
      t.peak_kv_usage = decode_peak_kv_[r];
      decode.requests += t.requests;
      decode.busy_ticks += t.busy_ticks;
      decode.peak_kv_usage = std::max(decode.peak_kv_usage, t.peak_kv_usage);
    }
    decode.prefills = local_prefills_;
    const double span = static_cast<double>(std::max<Tick>(1, run_.last_completion - run_.first_arrival));
    const auto share = [span](const PoolTotals& p) {
      return p.replicas == 0 ? 0.0 : static_cast<double>(p.busy_ticks) / (span * p.replicas);
    };
    prefill.busy_share = share(prefill);
    decode.busy_share = share(decode);
    prefill.mean_queue_ms = prefill.prefills == 0 ? 0 : static_cast<double>(prefill_wait_) / 1e6 / static_cast<double>(prefill.prefills);
    decode.mean_queue_ms = local_prefills_ == 0 ? 0 : static_cast<double>(local_wait_) / 1e6 / static_cast<double>(local_prefills_);
    integrate_active(run_.last_completion);
    decode.mean_active = active_area_ / span / static_cast<double>(nd);
    decode.transfers = transfers_;
    decode.transferred_tokens = transferred_tokens_;
    decode.decode_hit_tokens = decode_hit_tokens_;
    decode.mean_transfer_ms = transfers_ == 0 ? 0 : static_cast<double>(transfer_ticks_) / 1e6 / static_cast<double>(transfers_);
    decode.peak_link_transfers = peak_link_;
    run_.pools = {prefill, decode};
  }

  RequestSource& source_;
  const PoolClusters& pools_;
  const TopologySettings& topology_;
  ClusterConfig prefill_cluster_;
  std::vector<Replica> prefill_;
  std::vector<Replica> decode_;
  RoutingPolicy* policies_[1] = {nullptr};
  std::unique_ptr<RouterInstances> routers_;
  std::unique_ptr<PrefixIndex> index_;
  std::unique_ptr<FifoEngine> engine_;
  TournamentTree<Tick> busy_until_tree_;
  std::unique_ptr<ClusterView> view_;
  Rng rng_;
  StepModel decode_step_;
  Tick tick_per_output_ = 0;
  Tick setup_ = 0;
  Tick scrape_period_ = 1;
  Tick next_scrape_ = 0;
  std::uint64_t scrapes_ = 0;
  bool arrivals_done_ = false;
  SourceRecording recording_;
  std::vector<KvLink> links_;
  std::vector<std::uint64_t> link_version_;
  std::vector<std::uint32_t> active_;    // per decode worker: assigned, not completed
  std::vector<std::uint32_t> decoding_;  // per decode worker: past the first token
  std::vector<double> decode_peak_kv_;
  std::vector<std::uint64_t> decoded_;  // per decode worker: requests completed there
  // The requests in flight, in slots reused after completion (memory grows
  // with the requests in flight, not the trace), and each request's slot.
  std::vector<PdRequest> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> slot_of_;
  std::priority_queue<PdEvent, std::vector<PdEvent>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  std::uint64_t next_decode_ = 0;
  Tick prefill_wait_ = 0, local_wait_ = 0, transfer_ticks_ = 0;
  std::uint64_t local_prefills_ = 0, transfers_ = 0, transferred_tokens_ = 0, decode_hit_tokens_ = 0;
  std::uint32_t peak_link_ = 0;
  double active_area_ = 0;
  Tick active_since_ = 0;  // (from the first arrival: no request is assigned before)
  std::uint64_t active_total_ = 0;
  SimulationRun run_;
};

}  // namespace

SimulationRun simulate_disaggregated(RequestSource& source, const PoolClusters& pools,
                                     const TopologySettings& topology, RoutingPolicy& policy, std::uint64_t seed,
                                     const ProgressCallback& progress, std::uint64_t progress_every,
                                     const RouterConfig& router) {
  DisaggregatedSimulation simulation(source, pools, topology, policy, seed, router);
  return simulation.run(progress, progress_every);
}

}  // namespace prefixroute
