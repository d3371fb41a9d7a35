#include "prefixroute/workload/client.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace prefixroute {
namespace {

// Salt of the client's random stream ("client" in ASCII), so its gaps are
// independent of the workload's draws.
constexpr std::uint64_t kClientStreamSalt = 0x636c69656e74ULL;
constexpr Tick kNone = std::numeric_limits<Tick>::max();
// The longest a stage may last, and the largest load: a stage's requests
// (load x duration) stay below 2^53 and its ticks far from overflow.
constexpr double kMaxStageSeconds = 1e7;
constexpr double kMaxStageLoad = 1e7;

// A whole decimal number ("12", "0.5"): digits, at most one point, no sign,
// exponent, hex, inf or nan. strtod reads it in the C locale, which the
// core never changes.
bool read_decimal(std::string_view text, double& out) {
  if (text.empty() || text.size() > 24) return false;
  bool digit = false, point = false;
  for (const char c : text) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return false;
    }
  }
  if (!digit) return false;
  const std::string copy(text);
  out = std::strtod(copy.c_str(), nullptr);
  return std::isfinite(out);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

ClientKind client_kind(std::string_view name) {
  if (name == "constant") return ClientKind::Constant;
  if (name == "burst") return ClientKind::Burst;
  if (name == "closed") return ClientKind::Closed;
  return ClientKind::Poisson;
}

bool parse_client_stages(std::string_view text, bool integral, std::vector<ClientStage>& out, std::string& error) {
  out.clear();
  const char* form = integral ? "CONCURRENCYxSECONDS, e.g. 16x60 (16 requests outstanding for 60 s)"
                              : "RATExSECONDS, e.g. 10x30 (10 requests/s for 30 s)";
  if (trim(text).empty()) {
    error = std::string("is empty; expected stages ") + form + ", separated by commas";
    return false;
  }
  std::size_t index = 0;
  while (true) {
    ++index;
    const auto comma = text.find(',');
    const std::string_view part = trim(text.substr(0, comma));
    const auto x = part.find('x');
    double load = 0, duration = 0;
    const std::string shown(part.substr(0, 40));
    if (x == std::string_view::npos || !read_decimal(trim(part.substr(0, x)), load) ||
        !read_decimal(trim(part.substr(x + 1)), duration)) {
      error = "stage " + std::to_string(index) + " (\"" + shown + "\"): expected " + form;
      return false;
    }
    if (!(load > 0) || load > kMaxStageLoad || (integral && load != std::floor(load))) {
      error = "stage " + std::to_string(index) + " (\"" + shown + "\"): the " +
              (integral ? "concurrency must be a whole number" : "rate must be a number") + " in (0, 1e7]";
      return false;
    }
    if (!(duration > 0) || duration > kMaxStageSeconds) {
      error = "stage " + std::to_string(index) + " (\"" + shown + "\"): the duration must be in (0, 1e7] seconds";
      return false;
    }
    if (out.size() == kMaxClientStages) {
      error = "lists more than " + std::to_string(kMaxClientStages) + " stages";
      return false;
    }
    out.push_back({load, duration});
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

ClientSource::ClientSource(std::unique_ptr<RequestSource> base, const ClientConfig& config, std::uint64_t seed)
    : base_(std::move(base)),
      kind_(client_kind(config.kind)),
      rate_(config.rate_per_s),
      think_(seconds_to_ticks(config.think_s)),
      interval_(seconds_to_ticks(config.stage_interval_s)),
      rng_(mix_seed(seed, kClientStreamSalt)) {
  record_.present = true;
  record_.timeout = config.timeout_s > 0 ? seconds_to_ticks(config.timeout_s) : 0;
  const bool closed = kind_ == ClientKind::Closed;
  std::vector<ClientStage> stages;
  std::string ignored;
  if (!config.warmup.empty() && parse_client_stages(config.warmup, closed, stages, ignored))
    for (const ClientStage& s : stages) plans_.push_back({s.load, seconds_to_ticks(s.duration_s), true});
  if (!config.stages.empty() && parse_client_stages(config.stages, closed, stages, ignored))
    for (const ClientStage& s : stages) plans_.push_back({s.load, seconds_to_ticks(s.duration_s), false});
  reactive_ = closed || !plans_.empty();
  if (!reactive_) {
    // Open loop: every send time is known before the run; the last one by a
    // dry run of the same draws.
    const std::uint64_t n = base_->size();
    if (kind_ == ClientKind::Poisson && rate_ == 0) {
      last_arrival_ = base_->last_arrival();
    } else if (kind_ == ClientKind::Poisson) {
      Rng dry = rng_;
      Tick clock = 0;
      for (std::uint64_t i = 0; i < n; ++i) clock += seconds_to_ticks(dry.exponential(rate_));
      last_arrival_ = clock;
    } else if (kind_ == ClientKind::Constant) {
      last_arrival_ = n == 0 ? 0 : seconds_to_ticks(static_cast<double>(n - 1) / rate_);
    }
    return;
  }
  if (plans_.empty()) plans_.push_back({static_cast<double>(config.concurrency), kNoEnd, false});
  for (const Plan& p : plans_)
    if (p.duration != kNoEnd) span_hint_ += p.duration + interval_;
  read_ahead();
  if (!base_has_next_) {
    exhausted_ = true;
    return;
  }
  start_stage(0);
}

SourceRecording ClientSource::recording() const {
  SourceRecording r;
  // A timeout leaves failed requests out of the figures: per request TPOTs.
  r.request_sizes = record_.timeout > 0;
  if (plans_.empty() || plans_.front().duration == kNoEnd) return r;
  r.request_sizes = true;
  // KV use sampled at least 16 times in the shortest stage, at most every second.
  Tick shortest = kNone;
  for (const Plan& p : plans_) shortest = std::min(shortest, p.duration);
  r.kv_sample_period = std::max<Tick>(1, std::min<Tick>(kTicksPerSecond, shortest / 16));
  return r;
}

void ClientSource::read_ahead() { base_has_next_ = base_->next(ahead_); }

bool ClientSource::next(SourcedRequest& out) {
  if (!reactive_) {
    if (!base_->next(out)) return false;
    if (kind_ == ClientKind::Poisson && rate_ > 0) {
      open_clock_ += seconds_to_ticks(rng_.exponential(rate_));
      out.arrival = open_clock_;
    } else if (kind_ == ClientKind::Constant) {
      out.arrival = seconds_to_ticks(static_cast<double>(open_index_) / rate_);
    } else if (kind_ == ClientKind::Burst) {
      out.arrival = 0;
    }
    ++open_index_;
    return true;
  }
  // Reactive: act() decided a send at send_at_.
  if (!base_has_next_) return false;
  out = std::move(ahead_);
  out.arrival = send_at_;
  const std::uint64_t id = sent_++;
  const bool closed = kind_ == ClientKind::Closed;
  // A capped closed loop's request was due at its Poisson time; every other
  // request is sent when due.
  record_.wait.push_back(closed && rate_ > 0 ? send_at_ - next_due_ : 0);
  record_.stage_of.push_back(static_cast<std::int16_t>(record_.stages.size() - 1));
  ++record_.stages.back().sent;
  done_.push_back(0);
  ++stage_sent_;
  ++stage_open_;
  if (closed) free_at_.pop();
  if (record_.timeout > 0) deadlines_.push({send_at_ + record_.timeout, id});
  draw_next_due();
  read_ahead();
  return true;
}

// The due time of the stage's next request, after a send.
void ClientSource::draw_next_due() {
  const double load = plans_[stage_].load;
  switch (kind_) {
    case ClientKind::Poisson:
      next_due_ += seconds_to_ticks(rng_.exponential(load));
      break;
    case ClientKind::Constant:
      next_due_ = stage_start_ + seconds_to_ticks(static_cast<double>(stage_sent_) / load);
      break;
    case ClientKind::Burst:
      break;
    case ClientKind::Closed:
      // Capped: the next Poisson time; uncapped: due as soon as a slot is free.
      if (rate_ > 0) next_due_ += seconds_to_ticks(rng_.exponential(rate_));
      break;
  }
}

void ClientSource::start_stage(Tick at) {
  const Plan& p = plans_[stage_];
  stage_start_ = at;
  stage_sent_ = 0;
  stage_open_ = 0;
  stage_last_done_ = at;
  StageWindow w;
  w.load = p.load;
  w.duration_s = p.duration == kNoEnd ? 0 : static_cast<double>(p.duration) / 1e9;
  w.warmup = p.warmup;
  w.start = w.end = at;
  w.first = sent_;
  record_.stages.push_back(w);
  if (kind_ == ClientKind::Closed) {
    free_at_ = {};
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(p.load); ++i) free_at_.push(at);
    next_due_ = at;
    if (rate_ > 0) next_due_ += seconds_to_ticks(rng_.exponential(rate_));
  } else {
    // inference-perf sends int(rate x duration) requests a stage.
    stage_budget_ = p.duration == kNoEnd ? std::numeric_limits<std::uint64_t>::max()
                                         : static_cast<std::uint64_t>(std::floor(p.load * w.duration_s));
    next_due_ = at;
    if (kind_ == ClientKind::Poisson) next_due_ += seconds_to_ticks(rng_.exponential(p.load));
  }
  maybe_end_stage();
}

Tick ClientSource::next_send() const {
  if (exhausted_ || !base_has_next_) return kNone;
  if (kind_ != ClientKind::Closed) return stage_sent_ < stage_budget_ ? next_due_ : kNone;
  if (free_at_.empty()) return kNone;
  const Tick t = std::max(free_at_.top(), next_due_);
  const Tick duration = plans_[stage_].duration;
  if (duration != kNoEnd && t >= stage_start_ + duration) return kNone;
  return t;
}

Tick ClientSource::next_action() const {
  Tick t = next_send();
  if (!deadlines_.empty()) t = std::min(t, deadlines_.top().first);
  return t == kNone ? kWaiting : t;
}

bool ClientSource::act(Tick now) {
  // The client's own timers first: requests that time out now.
  while (!deadlines_.empty() && deadlines_.top().first <= now) {
    const auto [deadline, id] = deadlines_.top();
    deadlines_.pop();
    if (done_[id] == 0) done(id, deadline);
  }
  if (next_send() != now) return false;
  send_at_ = now;
  return true;
}

void ClientSource::completed(std::uint64_t id, Tick now) {
  if (id < done_.size() && done_[id] == 0) done(id, now);
}

void ClientSource::done(std::uint64_t id, Tick at) {
  done_[id] = 1;
  --stage_open_;
  stage_last_done_ = std::max(stage_last_done_, at);
  record_.stages.back().end = stage_last_done_;
  if (kind_ == ClientKind::Closed) free_at_.push(at + think_);
  maybe_end_stage();
}

// The stage ends once it will send no more and its last request is done;
// the next starts stage_interval_s after that (or the client is exhausted).
void ClientSource::maybe_end_stage() {
  if (stage_open_ > 0 || next_send() != kNone) return;
  if (!base_has_next_ || stage_ + 1 >= plans_.size()) {
    exhausted_ = true;
    return;
  }
  ++stage_;
  start_stage(stage_last_done_ + interval_);
}

}  // namespace prefixroute
