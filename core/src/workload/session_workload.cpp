#include "prefixroute/workload/session_workload.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/random.h"
#include "prefixroute/workload/seeded_tokens.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute {
namespace {

// Geometric on {1, 2, ...} with mean `mean` (success probability 1/mean per
// trial), capped at `cap`: one uniform draw per trial, so a mean of 1 takes
// exactly one draw (while cap > 1) and always gives 1.
std::uint32_t geometric(Rng& rng, double mean, std::uint32_t cap) {
  const double p = 1.0 / mean;
  std::uint32_t k = 1;
  while (k < cap && !(rng.uniform01() < p)) ++k;
  return k;
}

// The nominal decode time of a reply, in ticks.
Tick nominal_decode(std::uint32_t reply_tokens, double tpot_ms) {
  return seconds_to_ticks(static_cast<double>(reply_tokens) * tpot_ms / 1000.0);
}

bool is_agentic(const WorkloadConfig& w) { return w.kind == "agentic"; }

// Most calls one session of `w` can have in the trace.
double max_session_calls(const WorkloadConfig& w) {
  const double turns = SessionWorkload::cap_of(w.sessions.turns_mean);
  const double calls = is_agentic(w) ? SessionWorkload::cap_of(w.sessions.calls_per_turn) : 1.0;
  return std::min(static_cast<double>(w.requests), turns * calls);
}

// The longest new message of a call: a user message, or (agentic) a tool result.
double longest_message(const WorkloadConfig& w) {
  return std::max<double>(w.turn_tokens_max, is_agentic(w) ? w.sessions.tool_tokens_max : 0);
}

}  // namespace

std::uint32_t SessionWorkload::cap_of(double mean) {
  return static_cast<std::uint32_t>(std::max(1.0, std::ceil(kCapTimesMean * mean)));
}

SessionWorkload::SessionWorkload(const WorkloadConfig& w, std::uint64_t seed)
    : prefixes_(draw_tenant_prefixes(w, seed)), vocab_size_(w.vocab_size) {
  const SessionParams& p = w.sessions;
  const double calls_mean = is_agentic(w) ? p.calls_per_turn : 1.0;
  const std::uint32_t turn_cap = cap_of(p.turns_mean);
  const std::uint32_t call_cap = cap_of(calls_mean);
  const std::uint64_t n = w.requests;
  calls_.reserve(n);
  messages_.reserve(3 * n);  // at most a message, a reply and a summary per call: never reallocates

  // The tenants kind draws from streams 1 (prefixes), 2 (requests) and 3
  // (outputs); sessions have their own.
  Rng rng(mix_seed(seed, 4));
  const ZipfSampler popularity(w.tenants, w.zipf_s);
  Tick start = 0;
  while (calls_.size() < n) {
    const std::uint32_t session = sessions_++;
    start += seconds_to_ticks(rng.exponential(p.session_rate_per_s));
    const auto tenant = static_cast<std::uint32_t>(popularity.sample(rng));
    const auto system = static_cast<std::uint32_t>(prefixes_[tenant].size());
    const std::uint32_t turns = geometric(rng, p.turns_mean, turn_cap);
    Tick t = start;
    std::uint32_t index = 0;
    std::uint32_t first = 0, count = 0;  // the history: messages [first, first + count)
    std::uint64_t prompt = 0;            // tokens of the previous call's prompt
    std::uint32_t reply = 0;             // tokens of the previous call's reply
    for (std::uint32_t u = 0; u < turns && calls_.size() < n; ++u) {
      const std::uint32_t calls = geometric(rng, calls_mean, call_cap);
      for (std::uint32_t c = 0; c < calls && calls_.size() < n; ++c, ++index) {
        Call call;
        call.session = session;
        call.index = index;
        call.user_turn = u;
        call.call_in_turn = c;
        call.tenant = tenant;
        if (index > 0) {
          call.wait = seconds_to_ticks(rng.exponential(1.0) * (c == 0 ? p.think_s_mean : p.tool_s_mean));
          t += nominal_decode(reply, p.nominal_tpot_ms) + call.wait;
        }
        call.arrival = t;
        Message m;
        m.kind = c == 0 ? MessageKind::User : MessageKind::Tool;
        m.tokens = static_cast<std::uint32_t>(c == 0 ? rng.uniform_int(w.turn_tokens_min, w.turn_tokens_max)
                                                     : rng.uniform_int(p.tool_tokens_min, p.tool_tokens_max));
        m.seed = rng.next_u64();
        if (index == 0) {
          first = static_cast<std::uint32_t>(messages_.size());
          count = 0;
          prompt = system;
        } else if (prompt + reply + m.tokens > p.context_tokens_max) {
          // Compaction: the history (and the previous reply) becomes a summary.
          first = static_cast<std::uint32_t>(messages_.size());
          count = 1;
          messages_.push_back(Message{rng.next_u64(), p.summary_tokens, MessageKind::Summary});
          prompt = std::uint64_t{system} + p.summary_tokens;
          call.compacted = true;
        } else {
          ++count;  // the previous reply, stored right after the history
          prompt += reply;
        }
        messages_.push_back(m);
        ++count;
        prompt += m.tokens;
        call.first_message = first;
        call.messages = count;
        call.prompt_tokens = static_cast<std::uint32_t>(prompt);  // <= max_prompt_tokens < 2^32
        Message r;
        r.kind = MessageKind::Reply;
        r.tokens = static_cast<std::uint32_t>(rng.uniform_int(p.reply_tokens_min, p.reply_tokens_max));
        r.seed = rng.next_u64();
        call.reply = static_cast<std::uint32_t>(messages_.size());
        messages_.push_back(r);
        reply = r.tokens;
        calls_.push_back(call);
      }
    }
  }
  // Arrival order; (session, index) is unique, so the order is total and the
  // same under every standard library.
  std::sort(calls_.begin(), calls_.end(), [](const Call& a, const Call& b) {
    return std::tie(a.arrival, a.session, a.index) < std::tie(b.arrival, b.session, b.index);
  });
}

void SessionWorkload::prompt(std::size_t i, PromptPieces& out) const {
  const Call& c = calls_[i];
  out.clear();
  out.content = this;
  out.push(Piece{c.tenant, 0, static_cast<std::uint32_t>(prefixes_[c.tenant].size())});
  for (std::uint32_t m = c.first_message; m < c.first_message + c.messages; ++m)
    out.push(Piece{kMessageRun + m, 0, messages_[m].tokens});  // push skips empty pieces
}

const Token* SessionWorkload::stored(RunId run) const {
  return run < kMessageRun ? prefixes_[run].data() : nullptr;
}

void SessionWorkload::copy(RunId run, std::uint32_t offset, std::uint32_t n, Token* out) const {
  if (run < kMessageRun) {
    std::copy_n(prefixes_[run].data() + offset, n, out);
    return;
  }
  seeded_tokens(messages_[run - kMessageRun].seed, offset, n, vocab_size_, out);
}

std::uint64_t SessionWorkload::fingerprint() const {
  hashing::Fnv1a64 h;
  h.feed(vocab_size_);
  for (const auto& prefix : prefixes_) {
    h.feed(prefix.size());
    h.feed_tokens(prefix.data(), prefix.size());
  }
  for (const Message& m : messages_) {
    h.feed(static_cast<std::uint64_t>(m.kind));
    h.feed(m.seed);
    h.feed(m.tokens);
  }
  PromptPieces pieces;
  for (std::size_t i = 0; i < calls_.size(); ++i) {
    const Call& c = calls_[i];
    h.feed(static_cast<std::uint64_t>(c.arrival));
    h.feed(c.session);
    h.feed(c.index);
    h.feed(output_tokens(i));
    h.feed(c.prompt_tokens);
    prompt(i, pieces);
    for (const Piece& p : pieces.pieces) {
      h.feed(p.run);
      h.feed(p.offset);
      h.feed(p.length);
    }
  }
  return h.value;
}

double SessionWorkload::max_prompt_tokens(const WorkloadConfig& w) {
  const SessionParams& p = w.sessions;
  const double system = w.prefix_tokens_max;
  const double message = longest_message(w);
  const double n = max_session_calls(w);
  const double growth = system + n * message + (n - 1) * p.reply_tokens_max;
  const double context = std::max<double>(p.context_tokens_max, system + p.summary_tokens + message);
  return std::min(growth, context);
}

double SessionWorkload::max_prompt_pieces(const WorkloadConfig& w) {
  const SessionParams& p = w.sessions;
  const double longest = max_prompt_tokens(w);
  const double shortest_message = is_agentic(w) ? std::min(w.turn_tokens_min, p.tool_tokens_min) : w.turn_tokens_min;
  const double growth = p.reply_tokens_min + shortest_message;  // tokens each call adds, at least
  double calls = max_session_calls(w) - 1;                      // calls since the last compaction
  if (growth > 0) calls = std::min(calls, std::ceil(longest / growth));
  return std::min(longest, 3 + 2 * calls);
}

double SessionWorkload::max_distinct_tokens(const WorkloadConfig& w) {
  const SessionParams& p = w.sessions;
  return static_cast<double>(w.tenants) * w.prefix_tokens_max +
         static_cast<double>(w.requests) * (longest_message(w) + p.reply_tokens_max + p.summary_tokens);
}

double SessionWorkload::max_expected_span_s(const WorkloadConfig& w) {
  const SessionParams& p = w.sessions;
  const double wait = std::max(p.think_s_mean, is_agentic(w) ? p.tool_s_mean : 0.0);
  const double gap = p.reply_tokens_max * p.nominal_tpot_ms / 1000.0 + wait;
  return static_cast<double>(w.requests) / p.session_rate_per_s + (max_session_calls(w) - 1) * gap;
}

double SessionWorkload::estimated_bytes(const WorkloadConfig& w) {
  const double requests = static_cast<double>(w.requests);
  const double tenants = w.tenants;
  return tenants * (static_cast<double>(w.prefix_tokens_max) * sizeof(Token) + sizeof(std::vector<Token>) +
                    sizeof(double)) +
         requests * sizeof(Call) + max_messages(w) * sizeof(Message);
}

}  // namespace prefixroute
