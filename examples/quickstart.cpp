// Route three requests of one tenant across four replicas and watch the
// shared 50-token system prompt get prefilled once, then served from cache.
// Prompts are pieces of runs: the system prompt is one run, shared by every
// request and cached by reference, each user turn a run of its own.
#include <cstdio>
#include <vector>

#include "prefixroute/policies/affinity_balanced.h"

int main() {
  using namespace prefixroute;
  TokenStore store;  // the runs the prompts and the caches refer to
  std::vector<Replica> replicas;
  for (int i = 0; i < 4; ++i)
    replicas.emplace_back(RadixCache(/*capacity_tokens=*/20000, RadixCache::kDefaultProtectAfterHits, &store));
  AffinityBalanced policy({.load_slack_s = 0.05});
  const PrefillModel prefill{/*tokens_per_s=*/10000};

  std::vector<Token> system_prompt(50);
  for (Token t = 0; t < 50; ++t) system_prompt[t] = 1000 + t;
  const RunId system = store.add(system_prompt);
  const std::vector<std::vector<Token>> user_turns = {{1, 2, 3}, {4, 5}, {6, 7, 8, 9}};

  Tick now = 0;
  for (std::size_t r = 0; r < user_turns.size(); ++r) {
    PromptPieces prompt;
    prompt.content = &store;
    prompt.push({system, 0, 50});
    prompt.push({store.add(user_turns[r]), 0, static_cast<std::uint32_t>(user_turns[r].size())});
    const std::size_t idx = policy.choose(prompt, replicas, now);
    const Replica::Admission a = replicas[idx].admit(prompt, now, prefill);
    std::printf("request %zu: routed to replica %zu cached_prefix=%llu tokens prefill=%llu tokens\n",
                r, idx, static_cast<unsigned long long>(a.cached_tokens),
                static_cast<unsigned long long>(a.prefill_tokens));
    now += seconds_to_ticks(0.1);
  }
}
