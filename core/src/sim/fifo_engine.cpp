#include "prefixroute/sim/fifo_engine.h"

namespace prefixroute {

FifoEngine::FifoEngine(const ClusterConfig& cluster, std::vector<Replica>& replicas, bool record_cache_ops)
    : replicas_(replicas),
      step_(cluster.step_model()),
      tick_per_output_token_(seconds_to_ticks(cluster.decode_ms_per_token / 1000.0)),
      record_cache_ops_(record_cache_ops),
      decoding_(replicas.size(), 0),
      prefilling_(replicas.size()),
      next_first_tokens_(replicas.size(), kNoEvent) {}

void FifoEngine::admit(std::uint32_t r, const EngineRequest& request, Tick now, std::size_t known_cached,
                       EngineEvents& events) {
  Replica& replica = replicas_[r];
  const std::uint64_t output = tick_per_output_token_ > 0 ? request.output_tokens : 0;
  const Replica::Admission a =
      replica.admit_with_decode(request.prompt->view(), now, step_, output, tick_per_output_token_, known_cached);
  events.admitted(request.id, r, a.cached_tokens);
  RingQueue<InFlight>& queue = prefilling_[r];
  queue.push_back(InFlight{request.id, request.arrival, a, r, static_cast<std::uint32_t>(output)});
  if (queue.size() == 1) next_first_tokens_.set(r, first_token_key(queue.front()));
  if (record_cache_ops_) {
    CacheOp op;
    op.replica = r;
    op.request = request.id;
    op.prompt = request.prompt;
    op.length = request.prompt->length;
    op.pin = a.decodes();
    events.cache_op(op, now);
    if (a.decodes()) {
      op.kind = CacheOp::Kind::Reserve;
      op.tokens = output;
      events.cache_op(op, now);
    }
  }
}

EventKey FifoEngine::next_event() const {
  const EventKey first_token = next_first_tokens_.least();
  const EventKey completion = completions_.empty() ? kNoEvent : completions_.top().key;
  return first_token < completion ? first_token : completion;
}

std::uint32_t FifoEngine::handle_next_event(EngineEvents& events) {
  const EventKey first_token = next_first_tokens_.least();
  const EventKey completion = completions_.empty() ? kNoEvent : completions_.top().key;
  if (first_token < completion) {
    const std::size_t r = next_first_tokens_.position_of_least();
    handle_first_token(r, first_token.time, events);
    return static_cast<std::uint32_t>(r);
  }
  const Completion c = completions_.top();
  completions_.pop();
  const InFlight f = in_flight_[c.slot];
  free_slots_.push_back(c.slot);
  complete(f, completion.time, events);
  return f.replica;
}

// The first token of the head of `replica`'s prefill queue, due at `now`.
void FifoEngine::handle_first_token(std::size_t replica, Tick now, EngineEvents& events) {
  RingQueue<InFlight>& queue = prefilling_[replica];
  const InFlight f = queue.front();
  queue.pop_front();
  next_first_tokens_.set(replica, queue.empty() ? kNoEvent : first_token_key(queue.front()));
  const bool decodes = f.admission.decodes();
  if (decodes) ++decoding_[f.replica];
  events.first_token(f.request, f.replica, f.arrival, now);
  if (!decodes) {
    // Its completion, (now, seq + 1), is the next event: an event due
    // before it would be due before this first token too.
    complete(f, now, events);
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

void FifoEngine::complete(const InFlight& f, Tick now, EngineEvents& events) {
  Replica& replica = replicas_[f.replica];
  const bool decodes = f.admission.decodes();
  if (decodes) --decoding_[f.replica];
  replica.complete(f.admission, f.output_tokens);
  events.completed(f.request, f.replica, f.arrival, now, decodes ? f.output_tokens : 0);
  if (record_cache_ops_ && decodes) {
    CacheOp op;
    op.kind = CacheOp::Kind::Unpin;
    op.replica = f.replica;
    op.request = f.request;
    events.cache_op(op, now);
    op.kind = CacheOp::Kind::Release;
    op.tokens = f.output_tokens;
    events.cache_op(op, now);
  }
}

void FifoEngine::scrape(std::uint32_t replica, Tick now) { replicas_[replica].scrape(now, decoding_[replica]); }

ReplicaLoad FifoEngine::load(std::uint32_t replica) const {
  const Replica& r = replicas_[replica];
  ReplicaLoad load;
  load.running = decoding_[replica] + static_cast<std::uint32_t>(prefilling_[replica].empty() ? 0 : 1);
  load.waiting = static_cast<std::uint32_t>(prefilling_[replica].size()) - (prefilling_[replica].empty() ? 0 : 1);
  load.held_tokens = r.cache().pinned_tokens() + r.cache().reserved();
  return load;
}

}  // namespace prefixroute
