// Streaming replay: a trace read once into a RequestSpill streams back the
// very requests the in-memory reading gives, so every run sees the same
// stream whichever way the trace was read.
#include "prefixroute/workload/request_spill.h"

#include <gtest/gtest.h>

#include <stdlib.h>  // mkdtemp, setenv

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "files.h"
#include "prefixroute/cache/cache_bounds.h"
#include "prefixroute/policies/affinity_balanced.h"
#include "prefixroute/run/replay.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/trace_reader.h"

namespace prefixroute::request_spill_test {
namespace {

struct BothReadings {
  TraceReadResult memory;
  SpilledTrace spilled;
};

BothReadings read_both(const TraceReadOptions& options) {
  BothReadings both;
  const auto text = testsupport::read_file(testsupport::kMooncakeExcerpt);
  EXPECT_TRUE(text.has_value());
  both.memory = read_trace(*text, options);
  std::FILE* file = std::fopen(testsupport::kMooncakeExcerpt.c_str(), "rb");
  EXPECT_NE(file, nullptr);
  std::string error;
  both.spilled = spill_trace(file, options, error);
  std::fclose(file);
  EXPECT_EQ(error, "");
  return both;
}

TEST(SpillTrace, StreamsBackTheRequestsTheInMemoryReadingKeeps) {
  const BothReadings both = read_both(TraceReadOptions{});
  ASSERT_TRUE(both.memory.ok());
  ASSERT_TRUE(both.spilled.read().ok());
  const BlockTrace& trace = *both.memory.trace;
  EXPECT_EQ(both.spilled.read().requests, trace.size());
  EXPECT_EQ(both.spilled.read().lines, both.memory.lines);
  EXPECT_EQ(both.spilled.read().content_hash, both.memory.content_hash);
  EXPECT_EQ(both.spilled.figures().fingerprint, trace.fingerprint());
  EXPECT_EQ(both.spilled.figures().prompt_tokens, trace.total_prompt_tokens());
  EXPECT_EQ(both.spilled.figures().size.pieces, replay_size(trace).pieces);
  EXPECT_EQ(both.spilled.figures().size.max_prompt_tokens, replay_size(trace).max_prompt_tokens);
  const auto spilled = both.spilled.open();
  ASSERT_NE(spilled, nullptr);
  TraceSource memory(trace);
  EXPECT_EQ(spilled->size(), memory.size());
  EXPECT_EQ(spilled->last_arrival(), memory.last_arrival());
  SourcedRequest a, b;
  std::size_t n = 0;
  while (memory.next(a)) {
    ASSERT_TRUE(spilled->next(b)) << "request " << n;
    ASSERT_EQ(a.arrival, b.arrival) << n;
    ASSERT_EQ(a.output_tokens, b.output_tokens) << n;
    ASSERT_EQ(a.session, b.session) << n;
    ASSERT_EQ(a.prompt.pieces, b.prompt.pieces) << n;
    ASSERT_EQ(a.prompt.length, b.prompt.length) << n;
    ++n;
  }
  EXPECT_FALSE(spilled->next(b));
  EXPECT_EQ(n, 1000u);
}

TEST(SpillTrace, ARunOnTheSpillEqualsTheRunOnTheTraceInMemory) {
  TraceReadOptions options;
  options.limit = 300;
  const BothReadings both = read_both(options);
  ClusterConfig cluster;
  cluster.replicas = 4;
  cluster.cache_tokens = 200'000;
  AffinityBalanced p1, p2;
  const SimulationRun in_memory = simulate(*both.memory.trace, cluster, p1);
  const auto source = both.spilled.open();
  const SimulationRun streamed = simulate(*source, cluster, p2);
  EXPECT_EQ(in_memory.ttft, streamed.ttft);
  EXPECT_EQ(in_memory.replica_of, streamed.replica_of);
  EXPECT_EQ(in_memory.cached_of, streamed.cached_of);
  const auto bound_source = both.spilled.open();
  EXPECT_EQ(ideal_bound(*bound_source, both.spilled.figures().prompt_tokens).cached_tokens,
            ideal_bound(*both.memory.trace).cached_tokens);
}

TEST(SpillTrace, EveryOpenReadsFromTheStart) {
  TraceReadOptions options;
  options.limit = 10;
  const BothReadings both = read_both(options);
  const auto first = both.spilled.open();
  SourcedRequest r;
  ASSERT_TRUE(first->next(r));
  const Tick arrival = r.arrival;
  const auto second = both.spilled.open();
  ASSERT_TRUE(second->next(r));
  EXPECT_EQ(r.arrival, arrival);
}

TEST(SpillTrace, ABadLineUnderStopReadsNothingAndSaysWhy) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  const std::string text =
      "{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 1, \"hash_ids\": [1]}\n"
      "{\"timestamp\": 5, \"input_length\": 4, \"output_length\": 1}\n";
  std::fwrite(text.data(), 1, text.size(), file);
  std::rewind(file);
  TraceReadOptions options;
  options.block_size = 16;
  std::string error;
  const SpilledTrace spilled = spill_trace(file, options, error);
  std::fclose(file);
  EXPECT_FALSE(spilled.read().ok());
  ASSERT_EQ(spilled.read().problems.size(), 1u);
  EXPECT_EQ(spilled.read().problems[0].line, 2u);
  EXPECT_EQ(spilled.read().problems[0].field, "hash_ids");
  EXPECT_THROW(spilled.open(), std::runtime_error);
}

TEST(RequestSpill, LeavesNoFileInTheTemporaryDirectory) {
  const std::string dir = ::testing::TempDir() + "spill-dir-XXXXXX";
  std::vector<char> name(dir.begin(), dir.end());
  name.push_back('\0');
  ASSERT_NE(mkdtemp(name.data()), nullptr);
  const char* saved = std::getenv("TMPDIR");
  const std::string old = saved != nullptr ? saved : "";
  setenv("TMPDIR", name.data(), 1);
  std::string error;
  auto spill = RequestSpill::create(error);
  if (saved != nullptr) setenv("TMPDIR", old.c_str(), 1); else unsetenv("TMPDIR");
  ASSERT_NE(spill, nullptr) << error;
  SourcedRequest request;
  request.prompt.content = &BlockContent::instance();
  request.prompt.push(Piece{7, 0, 16});
  ASSERT_TRUE(spill->append(request));
  ASSERT_TRUE(spill->finish());
  // Unlinked at creation: a killed process leaves nothing behind.
  EXPECT_TRUE(std::filesystem::is_empty(name.data()));
  const auto reader = spill->open(BlockContent::instance());
  ASSERT_TRUE(reader->next(request));
  EXPECT_EQ(request.prompt.length, 16u);
  std::filesystem::remove(name.data());
}

TEST(RequestSpill, ARequestLargerThanTheReadersBufferStreamsBackWhole) {
  // 200,000 one-token blocks: 3.2 MB of pieces, three times the 1 MiB buffer.
  std::string line = "{\"timestamp\": 1, \"input_length\": 200000, \"output_length\": 2, \"hash_ids\": [";
  for (int i = 0; i < 200000; ++i) line += (i ? ", " : "") + std::to_string(i);
  line += "]}\n";
  const std::string text = line + "{\"timestamp\": 2, \"input_length\": 3, \"output_length\": 1, \"hash_ids\": [9, 8, 7]}\n";
  TraceReadOptions options;
  options.block_size = 1;
  const TraceReadResult memory = read_trace(text, options);
  ASSERT_TRUE(memory.ok());
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  std::fwrite(text.data(), 1, text.size(), file);
  std::rewind(file);
  std::string error;
  const SpilledTrace spilled = spill_trace(file, options, error);
  std::fclose(file);
  ASSERT_TRUE(spilled.read().ok()) << error;
  const auto source = spilled.open();
  TraceSource expected(*memory.trace);
  SourcedRequest a, b;
  while (expected.next(a)) {
    ASSERT_TRUE(source->next(b));
    EXPECT_EQ(a.arrival, b.arrival);
    EXPECT_EQ(a.prompt.pieces, b.prompt.pieces);
  }
  EXPECT_FALSE(source->next(b));
}

}  // namespace
}  // namespace prefixroute::request_spill_test
