// The benchmark client: when each request of a workload is sent, as the load
// generators of published routing benchmarks send them (SGLang's
// bench_serving, vLLM's benchmark_serving, inference-perf, GuideLLM).
//
// A workload (synthetic or a replayed trace) fixes the prompts and their
// order; the client fixes the send times, and TTFT counts from the send:
//
//   kind       sends                                     load it takes
//   poisson    exponential gaps (open loop)              rate_per_s; 0 = the workload's own
//                                                        arrival times (a trace's timestamps)
//   constant   equal gaps 1 / rate (open loop)           rate_per_s
//   burst      every request at t = 0 (--request-rate inf)
//   closed     at most `concurrency` requests outstanding; a freed slot sends the
//              next request think_s after the completion; rate_per_s > 0 caps the
//              sends as bench_serving --request-rate R --max-concurrency C does:
//              request i is due at its Poisson time and waits in the client for a
//              free slot (the wait is reported apart, TTFT counts from the send)
//
// Stages (inference-perf's load stages): a list of (load, duration) run one
// after another, load a rate for poisson/constant and a concurrency for
// closed. An open-loop stage sends floor(rate x duration) requests at its
// gaps from the stage's start; a closed stage keeps its concurrency until
// `duration` after its start. A stage ends when its last request completes
// (or times out), and the next starts stage_interval_s later, as
// inference-perf's load generator waits for a stage's requests before the
// next (kubernetes-sigs/inference-perf : inference_perf/loadgen/load_generator.py,
// run_stage). An optional warm-up stage runs first and is left out of the
// stage results. Requests are taken from the workload in its order; a
// workload too short for the stages ends the last stage early (the stage
// reports the requests it sent).
//
// A timeout (timeout_s > 0) counts a request whose end-to-end time from its
// send exceeds it as failed: it frees its client slot at the timeout, its
// times are left out of the latency figures, and the server still runs it
// (the model has no abort).
//
// Simplifications, stated: the client is one process with no send overhead
// and no network delay; think time is a constant; a session's turns are sent
// in the workload's order whether or not the previous turn has completed
// (the open-loop tools do the same).
//
// Determinism: the gaps come from the project's Rng (seeded from the scenario
// seed with a salt of the client's own), so the same scenario sends at the
// same ticks on every platform.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/base/random.h"
#include "prefixroute/base/time.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

/// The client kinds, as the scenario's `client.kind` names them.
inline constexpr std::string_view kClientKinds = "poisson,constant,burst,closed";

enum class ClientKind : std::uint8_t { Poisson, Constant, Burst, Closed };

/// The kind named `name` (one of kClientKinds; anything else is Poisson).
ClientKind client_kind(std::string_view name);

/// The scenario's `client` section.
struct ClientConfig {
  std::string kind = "poisson";   ///< one of kClientKinds
  double rate_per_s = 0;          ///< open loop: the send rate (poisson: 0 = the workload's own); closed: a cap, 0 = none
  std::uint32_t concurrency = 0;  ///< closed: requests outstanding at most (without stages)
  double think_s = 0;             ///< closed: from a completion to the slot's next send
  double timeout_s = 0;           ///< a request slower than this from its send fails; 0 = none
  std::string stages;             ///< "LOADxSECONDS,..." (see parse_client_stages); "" = one unbounded stage
  std::string warmup;             ///< one stage "LOADxSECONDS" run first, left out of the stage results; "" = none
  double stage_interval_s = 0;    ///< pause between one stage's end and the next's start

  bool operator==(const ClientConfig&) const = default;

  /// Whether the client only re-times nothing: poisson at the workload's own
  /// arrivals, no stages, no timeout (the simulator then reads the workload directly).
  bool is_workload_timing() const {
    return client_kind(kind) == ClientKind::Poisson && rate_per_s == 0 && stages.empty() && warmup.empty() &&
           timeout_s == 0;
  }
};

/// One stage of a load ladder.
struct ClientStage {
  double load = 0;        ///< requests/s (poisson, constant) or requests outstanding (closed)
  double duration_s = 0;

  bool operator==(const ClientStage&) const = default;
};

/// Most stages a ladder may list.
inline constexpr std::size_t kMaxClientStages = 256;

/// Parses "LOADxSECONDS,LOADxSECONDS,..." (e.g. "3x20,10x20": 3 requests/s for
/// 20 s, then 10 for 20 s). Loads are > 0 and, when `integral`, whole numbers
/// (a concurrency); durations > 0. Returns false with what is wrong and the
/// expected form.
bool parse_client_stages(std::string_view text, bool integral, std::vector<ClientStage>& out, std::string& error);

/// A stage as a run went: when it started and ended, what it sent.
struct StageWindow {
  double load = 0;
  double duration_s = 0;
  bool warmup = false;
  Tick start = 0;
  Tick end = 0;               ///< its last request's completion (or timeout); start when it sent nothing
  std::uint64_t first = 0;    ///< its requests are first .. first + sent - 1
  std::uint64_t sent = 0;
};

/// What a client did in a run, for its results: the stages as they ran and
/// each request's wait in the client and stage (reactive clients only).
struct ClientRecord {
  bool present = false;               ///< the run had a client (not the workload's own timing)
  std::vector<StageWindow> stages;    ///< warm-up first when there is one; empty without stages
  std::vector<Tick> wait;             ///< per request sent: send - due (the time it waited for a slot); empty: all 0
  std::vector<std::int16_t> stage_of; ///< per request sent: index in `stages` (empty without stages)
  Tick timeout = 0;                   ///< 0: no timeout
};

/// Requests as a client sends them: a RequestSource over the workload's
/// source whose arrivals are the client's send times. Open-loop kinds without
/// stages compute every send time up front; closed loops and stages are
/// reactive (RequestSource::reactive). Invariants: requests go out in the
/// workload's order with non-decreasing send times; request ids are 0, 1,
/// 2, ... in send order; the stages run one at a time.
/// Cost: O(1) per request, O(log C) for C slots or outstanding requests;
/// O(requests) memory for the per-request record.
class ClientSource final : public RequestSource, public ReactiveSource {
 public:
  /// `base`: the workload, read once front to back. `seed`: the scenario's.
  /// The config must be valid (scenario validation checks it).
  ClientSource(std::unique_ptr<RequestSource> base, const ClientConfig& config, std::uint64_t seed);

  // RequestSource
  std::uint64_t size() const override { return base_->size(); }
  Tick last_arrival() const override { return last_arrival_; }
  const Content& content() const override { return base_->content(); }
  bool next(SourcedRequest& out) override;
  bool has_sessions() const override { return base_->has_sessions(); }
  ReactiveSource* reactive() override { return reactive_ ? this : nullptr; }
  SourceRecording recording() const override;

  // ReactiveSource
  bool exhausted() const override { return exhausted_; }
  Tick next_action() const override;
  bool act(Tick now) override;
  void completed(std::uint64_t id, Tick now) override;
  Tick span_hint() const override { return span_hint_; }

  /// The record of the run so far (complete once the run is over).
  const ClientRecord& record() const { return record_; }

 private:
  struct Plan {
    double load;     // rate or concurrency
    Tick duration;   // kNoEnd: until the workload ends
    bool warmup;
  };
  static constexpr Tick kNoEnd = std::numeric_limits<Tick>::max();

  void start_stage(Tick at);
  void maybe_end_stage();
  Tick next_send() const;
  void draw_next_due();
  void done(std::uint64_t id, Tick at);

  std::unique_ptr<RequestSource> base_;
  ClientKind kind_;
  bool reactive_ = false;
  double rate_ = 0;
  Tick think_ = 0;
  Tick interval_ = 0;
  Tick last_arrival_ = 0;
  Tick span_hint_ = 0;
  Rng rng_;
  ClientRecord record_;

  // The workload's next request, read ahead (base_has_next_: there is one).
  SourcedRequest ahead_;
  bool base_has_next_ = false;
  void read_ahead();

  // Open loop without stages: the next send time.
  Tick open_clock_ = 0;
  std::uint64_t open_index_ = 0;

  // Reactive: the stage plans and the current stage.
  std::vector<Plan> plans_;
  std::size_t stage_ = 0;
  Tick stage_start_ = 0;
  std::uint64_t stage_budget_ = 0;  // open loop: requests the stage sends
  std::uint64_t stage_sent_ = 0;
  std::uint64_t stage_open_ = 0;    // its requests neither completed nor timed out
  Tick stage_last_done_ = 0;
  Tick next_due_ = 0;               // the stage's next request's due time (drawn ahead)
  bool exhausted_ = false;
  // Closed loop: when each free slot is free (min-heap; the others are busy).
  std::priority_queue<Tick, std::vector<Tick>, std::greater<Tick>> free_at_;
  // Timeouts: (deadline, id) of the requests sent, earliest first.
  std::priority_queue<std::pair<Tick, std::uint64_t>, std::vector<std::pair<Tick, std::uint64_t>>,
                      std::greater<std::pair<Tick, std::uint64_t>>>
      deadlines_;
  std::vector<std::uint8_t> done_;  // per request: completed or timed out
  std::uint64_t sent_ = 0;
  Tick send_at_ = 0;                // act() decided a send at this time
};

}  // namespace prefixroute
