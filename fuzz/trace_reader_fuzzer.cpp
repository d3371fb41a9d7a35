// Trace reader fuzzer: JSONL of every format (trace.format = mooncake,
// bailian, openai or auto) fed in random-sized chunks.
//
// The last few input bytes choose the options (format, Mooncake block size,
// time scale, limit, time window) and the chunking; the rest is the trace text. For both OnError modes
// the text is read whole (read_trace) and fed to a TraceReader in chunks of
// random sizes (empty chunks included), and:
//   - both readings agree exactly: success, lines, bad lines, content hash,
//     every problem's text, the trace's length and fingerprint (a chunk
//     boundary must never change what is read);
//   - the content hash is the FNV-1a 64 of every byte;
//   - a trace that was read holds what the reader promises: arrivals in
//     order, 1 <= input_length, ceil(input / block size) block ids (16 for a
//     Bailian or openai trace), at most `limit` requests, arrivals within the
//     time window's length x time_scale, prompts that materialise to their
//     length and start each full block with its id and a partial last block
//     of a Bailian or openai trace with its id + 2^31; without a window start,
//     an openai trace's first arrival is 0 and a request's turn counts the
//     earlier requests of its session; its block ids are dense (each new id is
//     one more than the largest before it);
//   - a small trace is replayed through every policy and both cache bounds
//     (the simulator must survive whatever the reader accepts).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/run/replayed_trace.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/trace_reader.h"

namespace {

using prefixroute::TraceReadOptions;
using prefixroute::TraceReadResult;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "TRACE READER PROPERTY VIOLATED: %s\n", what.c_str());
  std::abort();
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

std::string problems_text(const TraceReadResult& r) {
  std::string text;
  for (const auto& p : r.problems) text += p.text() + "\n";
  return text;
}

void compare(const TraceReadResult& a, const TraceReadResult& b) {
  if (a.ok() != b.ok()) fail("whole and chunked reads disagree on success");
  if (a.lines != b.lines || a.bad_lines != b.bad_lines) fail("whole and chunked reads count lines differently");
  if (a.content_hash != b.content_hash) fail("whole and chunked reads hash differently");
  if (problems_text(a) != problems_text(b))
    fail("whole and chunked reads report different problems:\n" + problems_text(a) + "---\n" + problems_text(b));
  if (a.ok() && (a.trace->size() != b.trace->size() || a.trace->fingerprint() != b.trace->fingerprint() ||
                 a.trace->kind() != b.trace->kind()))
    fail("whole and chunked reads give different traces");
}

void check_trace(const prefixroute::BlockTrace& trace, const TraceReadOptions& options) {
  if (trace.size() == 0) fail("a successful read with no requests");
  const bool bailian = trace.kind() == prefixroute::BlockTrace::Kind::Sessions;  // Bailian or openai
  if (options.format == TraceReadOptions::Format::Bailian && !bailian) fail("a Bailian read gave a Mooncake trace");
  if (options.format == TraceReadOptions::Format::OpenAI && !bailian) fail("an openai read gave a Mooncake trace");
  if (options.format == TraceReadOptions::Format::Mooncake && bailian) fail("a Mooncake read gave a sessions trace");
  const std::uint32_t block_size = bailian ? TraceReadOptions::kBailianBlockSize : options.block_size;
  if (options.format == TraceReadOptions::Format::OpenAI) {
    const bool from_start = options.start_s == 0;
    if (from_start && trace.arrival(0) != 0) fail("an openai trace's first arrival is not 0");
    std::int64_t next_id = 0;
    std::map<std::uint64_t, std::uint32_t> requests_of_session;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      for (const std::uint32_t id : trace.blocks_of(i)) {
        if (id > next_id) fail("openai block ids are not dense in order of first appearance");
        if (id == next_id) ++next_id;
      }
      if (from_start && trace.turn(i) != requests_of_session[trace.session(i)]++) fail("an openai turn does not count its session's requests");
    }
  }
  if (trace.block_size() != block_size) fail("wrong block size for the format");
  if (options.limit > 0 && trace.size() > options.limit) fail("more requests than the limit");
  if (options.end_s > 0 &&
      prefixroute::ticks_to_ms(trace.arrival(trace.size() - 1)) / 1000.0 > (options.end_s - options.start_s) * options.time_scale * (1 + 1e-9))
    fail("an arrival past the window's end");
  std::uint64_t total = 0;
  std::vector<prefixroute::Token> prompt;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const auto& e = trace.entry(i);
    if (i > 0 && trace.arrival(i) < trace.arrival(i - 1)) fail("arrivals out of order");
    if (trace.arrival(i) < 0) fail("negative arrival");
    if (e.input_tokens < 1) fail("empty prompt accepted");
    if (e.blocks != (e.input_tokens + block_size - 1) / block_size) fail("wrong block count");
    if (!bailian && (trace.session(i) != i || trace.turn(i) != 0)) fail("a Mooncake request with a session");
    total += e.input_tokens;
    if (e.input_tokens <= 100000) {
      trace.materialize(i, prompt);
      if (prompt.size() != e.input_tokens) fail("materialised prompt has the wrong length");
      const auto blocks = trace.blocks_of(i);
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        const bool partial = bailian && (b + 1) * block_size > e.input_tokens;
        if (prompt[b * block_size] != (partial ? (blocks[b] | 0x80000000u) : blocks[b]))
          fail("a block does not start with its id");
      }
    }
  }
  if (total != trace.total_prompt_tokens()) fail("total prompt tokens disagree");
  if (total <= 50000 && trace.size() <= 200) {
    prefixroute::Scenario scenario = prefixroute::Scenario::reference();
    scenario.cluster.replicas = 3;
    scenario.cluster.cache_tokens = 300;
    const prefixroute::InMemoryReplay replay(trace);
    const auto report = prefixroute::run_experiment(scenario, {}, &replay);
    if (report.requests != trace.size()) fail("the replay lost requests");
    for (const auto& o : report.outcomes)
      if (o.run.ttft.size() != trace.size()) fail("a policy did not serve every request");
    (void)prefixroute::results_to_json(scenario, report);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  static constexpr double kTimeScales[] = {1.0, 0.5, 2.0, 1e-6, 1e6};
  static constexpr std::uint32_t kBlockSizes[] = {1, 2, 3, 16, 512, 1048576};
  static constexpr TraceReadOptions::Format kFormats[] = {
      TraceReadOptions::Format::Auto, TraceReadOptions::Format::Mooncake, TraceReadOptions::Format::Bailian,
      TraceReadOptions::Format::OpenAI};
  TraceReadOptions options;
  options.format = kFormats[in.ConsumeIntegralInRange<std::size_t>(0, 3)];
  options.block_size = kBlockSizes[in.ConsumeIntegralInRange<std::size_t>(0, 5)];
  options.time_scale = kTimeScales[in.ConsumeIntegralInRange<std::size_t>(0, 4)];
  options.limit = in.ConsumeIntegralInRange<std::uint64_t>(0, 4);
  // Windows of the trace's clock in seconds (Mooncake timestamps are ms): none, from 0.5 s, to 1 s, 1-2 ms.
  static constexpr double kWindows[][2] = {{0, 0}, {0.5, 0}, {0, 1}, {0.001, 0.002}};
  const std::size_t window = in.ConsumeIntegralInRange<std::size_t>(0, 3);
  options.start_s = kWindows[window][0];
  options.end_s = kWindows[window][1];
  std::uint64_t chunk_state = in.ConsumeIntegral<std::uint64_t>() | 1;
  const std::string text = in.ConsumeRemainingBytesAsString();

  for (const auto mode : {TraceReadOptions::OnError::Stop, TraceReadOptions::OnError::Skip}) {
    options.on_error = mode;
    const TraceReadResult whole = prefixroute::read_trace(text, options);
    prefixroute::TraceReader reader(options);
    std::size_t pos = 0;
    while (pos < text.size()) {
      chunk_state ^= chunk_state << 13;  // xorshift64: chunk sizes 0..63, sometimes larger
      chunk_state ^= chunk_state >> 7;
      chunk_state ^= chunk_state << 17;
      std::size_t n = chunk_state % 64;
      if ((chunk_state >> 8) % 8 == 0) n = (chunk_state >> 16) % 1024;
      n = std::min(n, text.size() - pos);
      reader.feed(std::string_view(text).substr(pos, n));  // keep feeding after a stop: the hash covers all
      pos += n;
    }
    const TraceReadResult chunked = reader.finish();
    compare(whole, chunked);
    if (whole.content_hash != fnv1a(text)) fail("content hash is not FNV-1a of the bytes");
    if (!whole.ok() && whole.problems.empty()) fail("a failed read without a problem");
    if (whole.ok() && mode == TraceReadOptions::OnError::Stop && !whole.problems.empty())
      fail("a successful read in stop mode with problems");
    if (whole.problems.size() > prefixroute::TraceReader::kMaxProblemsKept + 1) fail("too many problems kept");
    if (whole.ok()) check_trace(*whole.trace, options);
  }
  return 0;
}
