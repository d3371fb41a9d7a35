// Micro-benchmarks (Google Benchmark) of the pieces a simulation spends its
// time in. Figures and how to read them: docs/performance.md.
//
//   BM_StreamRead/C            the memory roof: summing C tokens held in one array
//   BM_RadixMatch/shape/C      match() of a fresh prompt against a full cache of C tokens
//   BM_RadixInsert/shape/C     insert() of a fresh prompt into a full cache (so it evicts)
//   BM_EvictionChurn/leaf/C    insert of a new leaf into a full cache: one eviction per insert
//   BM_Materialize/source      writing one request's prompt tokens (the simulator's first step)
//   BM_TraceRead               parsing the shipped 1,000-line Mooncake excerpt
//   BM_Simulate/policy         one simulation of the reference scenario (4,000 requests)
//   BM_SimulateTrace/policy    one simulation of the 1,000-line Mooncake excerpt, 8 replicas
//   BM_Experiment              run_experiment of the reference scenario (4 policies + bounds)
//
// shape 0 = short shared prefix (32 tokens + 32-token unique turn), shape 1 =
// long shared prefix (2,048 tokens + 256-token unique turn). Throughput is
// reported as items/s = tokens/s (radix benchmarks) or requests/s (simulation).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "prefixroute/workload/block_trace.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/cache/radix_cache.h"
#include "prefixroute/base/random.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/sim/simulator.h"
#include "prefixroute/workload/trace_reader.h"
#include "prefixroute/workload/workload.h"

#ifndef PREFIXROUTE_SOURCE_DIR
#define PREFIXROUTE_SOURCE_DIR "."
#endif

namespace {

using prefixroute::RadixCache;
using prefixroute::Rng;
using prefixroute::Token;

// Cache sizes in tokens: 4k, 64k, 1M, 10M.
const std::vector<std::int64_t> kCacheSizes = {4096, 65536, 1 << 20, 10'000'000};

struct Shape {
  std::size_t prefix;  // shared prefix tokens (one per "tenant")
  std::size_t turn;    // unique tokens after it
  const char* name;
};
const Shape kShapes[] = {{32, 32, "short"}, {2048, 256, "long"}};

// A full cache of `capacity` tokens holding tenant prefixes (about half the
// budget, at most 4,096 of them) and unique turns below them, plus queries:
// a random tenant's prefix followed by a fresh turn (the routing probe's case:
// the prefix is cached, the turn is not).
struct Fixture {
  std::unique_ptr<RadixCache> cache;
  std::vector<std::vector<Token>> queries;
};

Token fresh_token(Rng& rng) { return static_cast<Token>(rng.next_u64()); }

Fixture build_fixture(const Shape& shape, std::size_t capacity) {
  Rng rng(prefixroute::mix_seed(capacity, shape.prefix));
  const std::size_t tenants = std::clamp<std::size_t>(capacity / (2 * shape.prefix), 1, 4096);
  std::vector<std::vector<Token>> prefixes(tenants);
  for (auto& p : prefixes) {
    p.resize(shape.prefix);
    for (auto& t : p) t = fresh_token(rng);
  }
  Fixture f;
  f.cache = std::make_unique<RadixCache>(capacity, 0);  // no protection: plain LRU
  std::vector<Token> prompt;
  std::size_t inserted = 0;
  for (std::size_t i = 0; inserted < capacity + capacity / 4; ++i) {
    prompt = prefixes[i % tenants];
    for (std::size_t k = 0; k < shape.turn; ++k) prompt.push_back(fresh_token(rng));
    inserted += f.cache->insert(prompt).inserted_tokens;
  }
  const std::size_t queries = shape.prefix + shape.turn > 1024 ? 2048 : 16384;
  f.queries.resize(queries);
  for (auto& q : f.queries) {
    q = prefixes[rng.uniform_int(0, tenants - 1)];
    for (std::size_t k = 0; k < shape.turn; ++k) q.push_back(fresh_token(rng));
  }
  return f;
}

// Fixtures are expensive at 10M tokens; build each once per process.
const Fixture& fixture(int shape, std::size_t capacity) {
  static std::map<std::pair<int, std::size_t>, Fixture> built;
  auto it = built.find({shape, capacity});
  if (it == built.end()) it = built.emplace(std::make_pair(shape, capacity), build_fixture(kShapes[shape], capacity)).first;
  return it->second;
}

void CacheArgs(benchmark::internal::Benchmark* b) {
  for (int shape = 0; shape < 2; ++shape)
    for (const auto c : kCacheSizes) b->Args({shape, c});
  b->ArgNames({"shape", "cache_tokens"});
}

void BM_StreamRead(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<Token> data(n);
  std::iota(data.begin(), data.end(), Token{1});
  for (auto _ : state) {
    const Token sum = std::accumulate(data.begin(), data.end(), Token{0});
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n * sizeof(Token)));
}
BENCHMARK(BM_StreamRead)->ArgName("tokens")->Arg(4096)->Arg(65536)->Arg(1 << 20)->Arg(10'000'000);

void BM_RadixMatch(benchmark::State& state) {
  const auto shape = static_cast<int>(state.range(0));
  const Fixture& f = fixture(shape, static_cast<std::size_t>(state.range(1)));
  std::size_t i = 0;
  std::int64_t matched = 0;
  for (auto _ : state) {
    const std::size_t m = f.cache->match(f.queries[i]);
    benchmark::DoNotOptimize(m);
    matched += static_cast<std::int64_t>(m);
    if (++i == f.queries.size()) i = 0;
  }
  state.SetItemsProcessed(matched);  // matched tokens per second
  state.SetLabel(kShapes[shape].name);
  state.counters["nodes"] = static_cast<double>(f.cache->node_count());
}
BENCHMARK(BM_RadixMatch)->Apply(CacheArgs);

void BM_RadixInsert(benchmark::State& state) {
  const auto shape = static_cast<int>(state.range(0));
  const Fixture& f = fixture(shape, static_cast<std::size_t>(state.range(1)));
  RadixCache cache = *f.cache;  // inserts change the tree: work on a copy
  std::vector<std::vector<Token>> queries = f.queries;
  const std::size_t turn_at = kShapes[shape].prefix;
  Token unique = 0x80000000u;
  std::size_t i = 0;
  std::int64_t tokens = 0;
  std::int64_t evicted = 0;
  for (auto _ : state) {
    // A new first turn token every time: every insert adds a fresh leaf below
    // a cached prefix and so evicts about one old leaf.
    queries[i][turn_at] = unique++;
    const RadixCache::InsertResult r = cache.insert(queries[i]);
    tokens += static_cast<std::int64_t>(queries[i].size());
    evicted += static_cast<std::int64_t>(r.evicted_tokens);
    if (++i == queries.size()) i = 0;
  }
  state.SetItemsProcessed(tokens);  // prompt tokens per second
  state.SetLabel(kShapes[shape].name);
  state.counters["evicted_per_insert"] =
      benchmark::Counter(static_cast<double>(evicted) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_RadixInsert)->Apply(CacheArgs);

// Churn: 16 group prefixes of 64 tokens, leaves of `leaf` tokens below them;
// every insert adds a new leaf to a full cache and so evicts the LRU leaf.
// Only the leaf's first token has to be new for it to be a new branch, so each
// group keeps one prompt buffer and rewrites that token in place.
void BM_EvictionChurn(benchmark::State& state) {
  const auto leaf = static_cast<std::size_t>(state.range(0));
  const auto capacity = static_cast<std::size_t>(state.range(1));
  constexpr std::size_t kGroups = 16, kPrefix = 64;
  Rng rng(leaf * 7919 + capacity);
  std::vector<std::vector<Token>> prompts(kGroups, std::vector<Token>(kPrefix + leaf));
  for (auto& p : prompts)
    for (auto& t : p) t = fresh_token(rng);
  RadixCache cache(capacity, 0);
  Token unique = 0;
  std::size_t i = 0;
  auto next_prompt = [&]() -> const std::vector<Token>& {
    std::vector<Token>& p = prompts[i++ % kGroups];
    p[kPrefix] = unique++;
    return p;
  };
  for (std::size_t inserted = 0; inserted < capacity + capacity / 4;)
    inserted += cache.insert(next_prompt()).inserted_tokens;
  std::int64_t evicted = 0;
  for (auto _ : state) evicted += static_cast<std::int64_t>(cache.insert(next_prompt()).evicted_tokens);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));  // inserts per second
  state.counters["evicted_tokens/s"] =
      benchmark::Counter(static_cast<double>(evicted), benchmark::Counter::kIsRate);
  state.counters["nodes"] = static_cast<double>(cache.node_count());
}
BENCHMARK(BM_EvictionChurn)
    ->ArgNames({"leaf", "cache_tokens"})
    ->ArgsProduct({{32, 512}, {4096, 65536, 1 << 20, 10'000'000}});

prefixroute::Scenario reference_with(const std::vector<prefixroute::Override>& overrides) {
  prefixroute::ScenarioParse p = prefixroute::parse_scenario("", overrides);
  if (!p.ok()) {
    std::fprintf(stderr, "bad scenario: %s\n", p.error_text().c_str());
    std::abort();
  }
  return p.scenario;
}

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto* info : prefixroute::policy_catalogue()) v.emplace_back(info->name());
    return v;
  }();
  return names;
}

const prefixroute::BlockTrace& excerpt_trace() {
  static const std::unique_ptr<prefixroute::BlockTrace> trace = [] {
    std::ifstream in(PREFIXROUTE_SOURCE_DIR "/scenarios/traces/mooncake-conversation-first-1000.jsonl");
    std::ostringstream text;
    text << in.rdbuf();
    prefixroute::TraceReadResult r = prefixroute::read_trace(text.str(), {});
    if (!r.ok()) {
      std::fprintf(stderr, "cannot read the trace excerpt: %s\n", r.error_text().c_str());
      std::abort();
    }
    return std::move(r.trace);
  }();
  return *trace;
}

void BM_Materialize(benchmark::State& state) {
  const prefixroute::Workload synthetic = prefixroute::generate_workload(prefixroute::WorkloadConfig{}, 42);
  const prefixroute::RequestTrace& trace =
      state.range(0) == 0 ? static_cast<const prefixroute::RequestTrace&>(synthetic) : excerpt_trace();
  std::vector<Token> prompt;
  std::size_t i = 0;
  std::int64_t tokens = 0;
  for (auto _ : state) {
    trace.materialize(i, prompt);
    benchmark::DoNotOptimize(prompt.data());
    tokens += static_cast<std::int64_t>(prompt.size());
    if (++i == trace.size()) i = 0;
  }
  state.SetItemsProcessed(tokens);
  state.SetLabel(state.range(0) == 0 ? "reference workload" : "mooncake excerpt");
}
BENCHMARK(BM_Materialize)->ArgName("source")->Arg(0)->Arg(1);

void BM_TraceRead(benchmark::State& state) {
  std::ifstream in(PREFIXROUTE_SOURCE_DIR "/scenarios/traces/mooncake-conversation-first-1000.jsonl");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  for (auto _ : state) {
    prefixroute::TraceReadResult r = prefixroute::read_trace(text, {});
    benchmark::DoNotOptimize(r.trace.get());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1000));  // lines
}
BENCHMARK(BM_TraceRead)->Unit(benchmark::kMillisecond);

void BM_Simulate(benchmark::State& state) {
  const std::string& policy = policy_names()[static_cast<std::size_t>(state.range(0))];
  const prefixroute::Scenario scenario = reference_with({});
  const prefixroute::Workload workload = prefixroute::generate_workload(scenario.workload, scenario.seed);
  for (auto _ : state) {
    auto p = prefixroute::make_policy(policy, scenario.policy_params, policy_context(scenario));
    const prefixroute::SimulationRun run = prefixroute::simulate(workload, scenario.cluster, *p, {}, 4096, scenario.router);
    benchmark::DoNotOptimize(run.ttft.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * workload.size()));
  state.SetLabel(policy);
}
BENCHMARK(BM_Simulate)->ArgName("policy")->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

void BM_SimulateTrace(benchmark::State& state) {
  const std::string& policy = policy_names()[static_cast<std::size_t>(state.range(0))];
  const prefixroute::Scenario scenario =
      reference_with({{"cluster.replicas", "8"}, {"cluster.cache_tokens", "1000000"}});
  const prefixroute::BlockTrace& trace = excerpt_trace();
  for (auto _ : state) {
    auto p = prefixroute::make_policy(policy, scenario.policy_params, policy_context(scenario));
    const prefixroute::SimulationRun run = prefixroute::simulate(trace, scenario.cluster, *p, {}, 4096, scenario.router);
    benchmark::DoNotOptimize(run.ttft.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trace.size()));
  state.SetLabel(policy);
}
BENCHMARK(BM_SimulateTrace)->ArgName("policy")->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

void BM_Experiment(benchmark::State& state) {
  const prefixroute::Scenario scenario = reference_with({});
  for (auto _ : state) {
    const prefixroute::ExperimentReport report = prefixroute::run_experiment(scenario);
    benchmark::DoNotOptimize(report.fingerprint);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * scenario.workload.requests));
}
BENCHMARK(BM_Experiment)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
