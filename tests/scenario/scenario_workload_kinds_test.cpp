// The scenario's workload kinds (workload.kind): the choice, the per-kind
// limits refused before anything is allocated (each naming its field and
// what is allowed), the bounds they rest on computed by hand, fields another
// kind ignores, and every kind running every policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "field_errors.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/scenario/scenario.h"
#include "prefixroute/workload/session_workload.h"
#include "prefixroute/workload/synthetic.h"

namespace prefixroute::scenario_workload_kinds_test {
namespace {

using testsupport::has_error;

ScenarioParse parse(const std::vector<Override>& overrides) { return parse_scenario("", overrides); }

constexpr const char* kKinds[] = {"tenants",       "sessions",          "agentic",   "gsp",
                                  "shared_prefix", "prefix_repetition", "cumulative"};

TEST(WorkloadKind, IsOneOfSevenAndTenantsByDefault) {
  EXPECT_EQ(Scenario::reference().workload.kind, "tenants");
  for (const char* kind : kKinds) {
    const ScenarioParse p = parse({{"workload.kind", kind}});
    ASSERT_TRUE(p.ok()) << kind << ": " << p.error_text();
    EXPECT_EQ(p.scenario.workload.kind, kind);
    const ScenarioParse again = parse_scenario(scenario_to_json(p.scenario));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again.scenario.workload.kind, kind);
  }
  EXPECT_TRUE(has_error(parse({{"workload.kind", "chat"}}), "workload.kind",
                        {"must be one of tenants,sessions,agentic,gsp,shared_prefix,prefix_repetition,cumulative",
                         "got \"chat\""}));
  EXPECT_TRUE(has_error(parse_scenario(R"({"workload": {"kind": 2}})"), "workload.kind", {"must be a string", "got 2"}));
}

TEST(WorkloadKind, TheSchemaListsTheKindsAndTheNewFieldsWithUnits) {
  bool kind = false, rate = false, groups = false;
  for (const FieldSpec& f : scenario_fields()) {
    if (f.key == "workload.kind") {
      kind = true;
      EXPECT_EQ(f.kind, FieldKind::Text);
      EXPECT_EQ(f.choices, "tenants,sessions,agentic,gsp,shared_prefix,prefix_repetition,cumulative");
    }
    if (f.key == "workload.session_rate_per_s") {
      rate = true;
      EXPECT_EQ(f.unit, "sessions/s");
      EXPECT_NE(std::string(f.description).find("(sessions, agentic)"), std::string::npos);
    }
    if (f.key == "workload.gsp_num_groups") {
      groups = true;
      EXPECT_NE(std::string(f.description).find("gsp"), std::string::npos);
    }
  }
  EXPECT_TRUE(kind && rate && groups);
}

TEST(WorkloadKind, ReplyAndToolMinAboveMaxAreRejected) {
  EXPECT_TRUE(has_error(parse({{"workload.reply_tokens_min", "300"}}), "workload.reply_tokens_min",
                        {"must be <= workload.reply_tokens_max (250)", "got 300"}));
  EXPECT_TRUE(has_error(parse({{"workload.tool_tokens_min", "9"}, {"workload.tool_tokens_max", "8"}}),
                        "workload.tool_tokens_min", {"must be <= workload.tool_tokens_max (8)", "got 9"}));
}

// ---------------------------------------------------------------------------
// The session kinds: prompts grow with the history

WorkloadConfig agentic_defaults() {
  WorkloadConfig w;
  w.kind = "agentic";
  return w;
}

TEST(SessionLimits, TheLongestPromptIsTheContextWindowWhenCompactionBinds) {
  // max(5400, 880 + 500 + 500) = 5400; the longest session's growth (4000
  // calls of up to 500 + 250 tokens) is far longer.
  EXPECT_EQ(SessionWorkload::max_prompt_tokens(agentic_defaults()), 5400.0);
  WorkloadConfig w = agentic_defaults();
  w.sessions.context_tokens_max = 100;  // below system + summary + a message: that bounds
  EXPECT_EQ(SessionWorkload::max_prompt_tokens(w), 880.0 + 500 + 500);
}

TEST(SessionLimits, TheLongestPromptIsTheSessionsGrowthWhenItCannotReachTheWindow) {
  // Ten requests of a chat: at most one session of ten calls, the last one
  // 880 + 10 x 125 (user messages) + 9 x 250 (replies) = 4380 tokens.
  WorkloadConfig w;
  w.kind = "sessions";
  w.requests = 10;
  w.sessions.turns_mean = 1000;
  w.sessions.context_tokens_max = 10'000'000;
  EXPECT_EQ(SessionWorkload::max_prompt_tokens(w), 4380.0);
  // Agentic: the longest message is a tool result (500).
  w.kind = "agentic";
  EXPECT_EQ(SessionWorkload::max_prompt_tokens(w), 880.0 + 10 * 500 + 9 * 250);
  // The caps: 3.95 turns -> 79, 7.83 calls -> 157.
  EXPECT_EQ(SessionWorkload::cap_of(3.95), 79u);
  EXPECT_EQ(SessionWorkload::cap_of(7.83), 157u);
  EXPECT_EQ(SessionWorkload::cap_of(1.0), 20u);
}

TEST(SessionLimits, TooManyPromptTokensAreRefusedNamingRequests) {
  // 10^7 requests x 5400 tokens = 5.4e10 > 2e10; 3.7 x 10^6 x 5400 fits.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "agentic"}, {"workload.requests", "10000000"}}), "workload.requests",
                        {"requests x the longest possible prompt (5400 tokens", "must be at most 20000000000 tokens",
                         "got 54000000000"}));
  const ScenarioParse fits = parse({{"workload.kind", "agentic"}, {"workload.requests", "3700000"}});
  EXPECT_TRUE(fits.ok()) << fits.error_text();
}

TEST(SessionLimits, WithoutCompactionTheQuadraticGrowthIsWhatIsRefused) {
  // No effective window: the longest prompt is the longest session's growth,
  // so the total grows with requests squared. 4,000 requests: 4000 x
  // (880 + 4000 x 500 + 3999 x 250) = 1.2e10 tokens fit; 10,000 requests
  // (880 + 10000 x 500 + 9999 x 250 = 7500630 tokens each) do not.
  const std::vector<Override> base = {{"workload.kind", "agentic"}, {"workload.context_tokens_max", "10000000"}};
  const ScenarioParse fits = parse(base);
  EXPECT_TRUE(fits.ok()) << fits.error_text();
  std::vector<Override> more = base;
  more.emplace_back("workload.requests", "10000");
  EXPECT_TRUE(has_error(parse(more), "workload.requests",
                        {"requests x the longest possible prompt (7500630 tokens", "got 75006300000"}));
}

TEST(SessionLimits, ALongArrivalSpanIsRefusedNamingItsLargestTerm) {
  // Starts: 10^7 requests / 10^-3 sessions/s = 10^10 s.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "sessions"},
                               {"workload.requests", "10000000"},
                               {"workload.session_rate_per_s", "0.001"},
                               {"workload.context_tokens_max", "1000"}}),
                        "workload.session_rate_per_s",
                        {"requests / session_rate_per_s + the longest possible session's expected duration",
                         "(the expected arrival span) must be at most 1000000000 s"}));
  // Think times: sessions of up to 20,000 turns, each after 10^5 s on average.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "sessions"},
                               {"workload.requests", "100000"},
                               {"workload.session_rate_per_s", "10000000"},
                               {"workload.turns_mean", "1000"},
                               {"workload.think_s_mean", "100000"}}),
                        "workload.think_s_mean", {"(the expected arrival span) must be at most 1000000000 s"}));
  // Tool waits, for agent loops only.
  const std::vector<Override> tools = {{"workload.requests", "100000"},    {"workload.session_rate_per_s", "10000000"},
                                       {"workload.calls_per_turn", "1000"}, {"workload.tool_s_mean", "100000"},
                                       {"workload.think_s_mean", "0"}};
  std::vector<Override> agentic = tools;
  agentic.emplace_back("workload.kind", "agentic");
  EXPECT_TRUE(has_error(parse(agentic), "workload.tool_s_mean", {"must be at most 1000000000 s"}));
  std::vector<Override> chat = tools;
  chat.emplace_back("workload.kind", "sessions");
  const ScenarioParse p = parse(chat);
  EXPECT_TRUE(p.ok()) << "a chat has no tool waits: " << p.error_text();
}

TEST(SessionLimits, LongPrefillWorkIsRefusedNamingThePrefillRate) {
  // 10^6 x 5400 tokens at 1 token/s.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "agentic"},
                               {"workload.requests", "1000000"},
                               {"cluster.prefill_tokens_per_s", "1"}}),
                        "cluster.prefill_tokens_per_s",
                        {"requests x the longest possible prompt / prefill_tokens_per_s", "got 5400000000 s"}));
}

TEST(SessionLimits, SystemPromptStorageIsBoundedAsTheTenantsKindsPrefixes) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "sessions"},
                               {"workload.tenants", "100000"},
                               {"workload.prefix_tokens_max", "1000"},
                               {"workload.context_tokens_max", "2000000"}}),
                        "workload.tenants", {"tenants x prefix_tokens_max must be at most 50000000 tokens"}));
}

// ---------------------------------------------------------------------------
// gsp

TEST(GspLimits, TooManyRequestsAreRefused) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "gsp"},
                               {"workload.gsp_num_groups", "1000000"},
                               {"workload.gsp_prompts_per_group", "1000000"}}),
                        "workload.gsp_prompts_per_group",
                        {"gsp_num_groups x gsp_prompts_per_group (the requests) must be at most 10000000",
                         "got 1000000000000"}));
}

TEST(GspLimits, TooManyPromptTokensAreRefusedAndTheCapItselfIsAllowed) {
  const std::vector<Override> base = {{"workload.kind", "gsp"},
                                      {"workload.gsp_num_groups", "10000"},
                                      {"workload.gsp_prompts_per_group", "1000"},
                                      {"workload.gsp_question_len", "1000"}};
  std::vector<Override> at_cap = base;  // 10^7 x (1000 + 1000) = 2e10 exactly
  at_cap.emplace_back("workload.gsp_system_prompt_len", "1000");
  const ScenarioParse ok = parse(at_cap);
  EXPECT_TRUE(ok.ok()) << ok.error_text();
  std::vector<Override> over = base;
  over.emplace_back("workload.gsp_system_prompt_len", "1001");
  EXPECT_TRUE(has_error(parse(over), "workload.gsp_system_prompt_len",
                        {"must be at most 20000000000 tokens", "got 20010000000"}));
}

TEST(GspLimits, ALongArrivalSpanAndLongPrefillWorkAreRefused) {
  const ScenarioParse slow = parse({{"workload.kind", "gsp"}, {"workload.arrival_rate_per_s", "0.001"}});
  EXPECT_TRUE(slow.ok()) << "1024 requests at 0.001/s span 1,024,000 s: " << slow.error_text();
  EXPECT_TRUE(has_error(parse({{"workload.kind", "gsp"},
                               {"workload.gsp_num_groups", "10000"},
                               {"workload.gsp_prompts_per_group", "1000"},
                               {"workload.arrival_rate_per_s", "0.001"}}),
                        "workload.arrival_rate_per_s",
                        {"(the expected arrival span) must be at most 1000000000 s", "got 10000000000 s"}));
  EXPECT_TRUE(has_error(parse({{"workload.kind", "gsp"},
                               {"workload.gsp_num_groups", "10000"},
                               {"workload.gsp_prompts_per_group", "100"},
                               {"cluster.prefill_tokens_per_s", "1"}}),
                        "cluster.prefill_tokens_per_s", {"must be at most 1000000000 s", "got 2176000000 s"}));
}

// ---------------------------------------------------------------------------
// shared_prefix (inference-perf)

TEST(SharedPrefixLimits, ALargerPoolThanTenMillionPromptsIsRefused) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"},
                               {"workload.shared_prefix_num_groups", "100000"},
                               {"workload.shared_prefix_num_prompts_per_group", "101"}}),
                        "workload.shared_prefix_num_prompts_per_group",
                        {"shared_prefix_num_groups x shared_prefix_num_prompts_per_group (the pool) must be at most "
                         "10000000",
                         "got 10100000"}));
  const ScenarioParse at_cap = parse({{"workload.kind", "shared_prefix"},
                                      {"workload.shared_prefix_num_groups", "100000"},
                                      {"workload.shared_prefix_num_prompts_per_group", "100"}});
  EXPECT_TRUE(at_cap.ok()) << at_cap.error_text();
}

TEST(SharedPrefixLimits, ALengthsMinAboveItsMaxIsRefused) {
  for (const char* length : {"system_prompt_len", "question_len", "output_len"}) {
    const std::string stem = std::string("workload.shared_prefix_") + length;
    EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"}, {stem + "_min", "20"}, {stem + "_max", "19"}}),
                          stem + "_min", {"must be <= " + stem + "_max (19)", "got 20"}))
        << length;
  }
}

TEST(SharedPrefixLimits, MultiTurnNeedsTheCycledOrder) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"},
                               {"workload.shared_prefix_multi_turn", "on"},
                               {"workload.shared_prefix_order", "random"}}),
                        "workload.shared_prefix_order",
                        {"must be cycle when workload.shared_prefix_multi_turn is on", "got random"}));
  const ScenarioParse single = parse({{"workload.kind", "shared_prefix"}, {"workload.shared_prefix_order", "random"}});
  EXPECT_TRUE(single.ok()) << single.error_text();
  EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"}, {"workload.shared_prefix_order", "shuffle"}}),
                        "workload.shared_prefix_order", {"must be one of cycle,random", "got \"shuffle\""}));
  EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"}, {"workload.shared_prefix_multi_turn", "yes"}}),
                        "workload.shared_prefix_multi_turn", {"must be one of off,on", "got \"yes\""}));
}

TEST(SharedPrefixLimits, TooManyPromptTokensAreRefusedNamingRequests) {
  // Single turn: 10^7 requests x (1000 + 1001) tokens > 2e10; 1000 + 1000 is the cap itself.
  const std::vector<Override> base = {{"workload.kind", "shared_prefix"},
                                      {"workload.requests", "10000000"},
                                      {"workload.arrival_rate_per_s", "1000"},
                                      {"workload.shared_prefix_question_len", "1000"}};
  std::vector<Override> at_cap = base;
  at_cap.emplace_back("workload.shared_prefix_system_prompt_len", "1000");
  const ScenarioParse ok = parse(at_cap);
  EXPECT_TRUE(ok.ok()) << ok.error_text();
  std::vector<Override> over = base;
  over.emplace_back("workload.shared_prefix_system_prompt_len", "1001");
  EXPECT_TRUE(has_error(parse(over), "workload.requests",
                        {"the longest possible prompt, 2001 tokens", "must be at most 20000000000 tokens",
                         "got 20010000000"}));
  // A spread counts at its reach: mean + 12.1 standard deviations.
  std::vector<Override> spread = at_cap;
  spread.emplace_back("workload.shared_prefix_question_len_std", "1");
  EXPECT_TRUE(has_error(parse(spread), "workload.requests", {"the longest possible prompt, 2013 tokens"}));
  std::vector<Override> clipped = spread;
  clipped.emplace_back("workload.shared_prefix_question_len_max", "1000");
  const ScenarioParse clipped_ok = parse(clipped);
  EXPECT_TRUE(clipped_ok.ok()) << "a draw never passes its max: " << clipped_ok.error_text();
}

TEST(SharedPrefixLimits, MultiTurnGrowthIsWhatIsRefused) {
  // One session of 100-token questions and outputs: 10^5 rounds, the last
  // prompt 100 + 10^5 x 100 + 99,999 x 100 tokens, all of them about 10^12.
  const std::vector<Override> base = {{"workload.kind", "shared_prefix"},
                                      {"workload.shared_prefix_num_groups", "1"},
                                      {"workload.shared_prefix_num_prompts_per_group", "1"},
                                      {"workload.shared_prefix_question_len", "100"},
                                      {"workload.shared_prefix_output_len", "100"},
                                      {"workload.requests", "100000"}};
  const ScenarioParse single = parse(base);
  EXPECT_TRUE(single.ok()) << "one turn: 10^5 x 200 tokens: " << single.error_text();
  std::vector<Override> multi = base;
  multi.emplace_back("workload.shared_prefix_multi_turn", "on");
  EXPECT_TRUE(has_error(parse(multi), "workload.requests",
                        {"the longest possible prompt, 20000000 tokens",
                         "multi-turn prompts growing by a question and a response per cycle of the pool",
                         "got 1000010000000"}));
}

TEST(SharedPrefixLimits, ALongArrivalSpanAndLongPrefillWorkAreRefused) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"},
                               {"workload.requests", "10000000"},
                               {"workload.arrival_rate_per_s", "0.001"}}),
                        "workload.arrival_rate_per_s",
                        {"(the expected arrival span) must be at most 1000000000 s", "got 10000000000 s"}));
  EXPECT_TRUE(has_error(parse({{"workload.kind", "shared_prefix"},
                               {"workload.requests", "10000000"},
                               {"workload.arrival_rate_per_s", "1000"},
                               {"cluster.prefill_tokens_per_s", "1"}}),
                        "cluster.prefill_tokens_per_s", {"must be at most 1000000000 s", "got 1500000000 s"}));
}

// ---------------------------------------------------------------------------
// prefix_repetition (vLLM)

TEST(PrefixRepetitionLimits, MorePrefixesThanRequestsAreRefusedAsVllmDoes) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "prefix_repetition"},
                               {"workload.requests", "9"},
                               {"workload.prefix_repetition_num_prefixes", "10"}}),
                        "workload.prefix_repetition_num_prefixes",
                        {"must be at most workload.requests (9)", "got 10"}));
  const ScenarioParse p = parse({{"workload.kind", "prefix_repetition"}, {"workload.requests", "10"}});
  ASSERT_TRUE(p.ok()) << p.error_text();
  EXPECT_EQ(synthetic_bounds(p.scenario.workload).requests, 10.0);
  const ScenarioParse rounded = parse({{"workload.kind", "prefix_repetition"}, {"workload.requests", "4007"}});
  ASSERT_TRUE(rounded.ok()) << rounded.error_text();
  EXPECT_EQ(synthetic_bounds(rounded.scenario.workload).requests, 4000.0) << "vLLM drops the remainder";
}

TEST(PrefixRepetitionLimits, TooManyPromptTokensAreRefusedNamingRequests) {
  // 10^7 requests x (1000 + 1001) tokens.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "prefix_repetition"},
                               {"workload.requests", "10000000"},
                               {"workload.arrival_rate_per_s", "1000"},
                               {"workload.prefix_repetition_prefix_len", "1000"},
                               {"workload.prefix_repetition_suffix_len", "1001"}}),
                        "workload.requests", {"the longest possible prompt, 2001 tokens", "got 20010000000"}));
}

// ---------------------------------------------------------------------------
// cumulative (KubeAI)

TEST(CumulativeLimits, TheFirstPromptMustFitTheLongestPromptSent) {
  // The defaults' first prompt: at most 880 + 125 tokens.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "cumulative"}, {"workload.cumulative_max_prompt_tokens", "1004"}}),
                        "workload.cumulative_max_prompt_tokens",
                        {"must be at least workload.prefix_tokens_max + workload.turn_tokens_max (1005",
                         "got 1004"}));
  const ScenarioParse fits = parse({{"workload.kind", "cumulative"}, {"workload.cumulative_max_prompt_tokens", "1005"}});
  EXPECT_TRUE(fits.ok()) << fits.error_text();
}

TEST(CumulativeLimits, TooManyPromptTokensAreRefusedNamingRequests) {
  // 10^7 requests x 8192 tokens > 2e10; 2 x 10^6 fit.
  EXPECT_TRUE(has_error(parse({{"workload.kind", "cumulative"},
                               {"workload.requests", "10000000"},
                               {"workload.arrival_rate_per_s", "1000"},
                               {"workload.turns_mean", "100"}}),
                        "workload.requests",
                        {"requests x the longest prompt sent (8192 tokens", "got 81920000000"}));
  const ScenarioParse fits = parse({{"workload.kind", "cumulative"},
                                    {"workload.requests", "2000000"},
                                    {"workload.arrival_rate_per_s", "1000"},
                                    {"workload.turns_mean", "100"}});
  EXPECT_TRUE(fits.ok()) << fits.error_text();
  // Short conversations cannot reach the limit: their growth bounds the prompt.
  EXPECT_EQ(synthetic_bounds(parse({{"workload.kind", "cumulative"}, {"workload.turns_mean", "1"}}).scenario.workload)
                .max_prompt_tokens,
            880.0 + 20 * 125 + 19 * 250);
}

TEST(CumulativeLimits, SystemPromptStorageAndTheArrivalSpanAreBoundedAsTheOtherKinds) {
  EXPECT_TRUE(has_error(parse({{"workload.kind", "cumulative"},
                               {"workload.tenants", "100000"},
                               {"workload.prefix_tokens_max", "1000"},
                               {"workload.cumulative_max_prompt_tokens", "10000"}}),
                        "workload.tenants", {"tenants x prefix_tokens_max must be at most 50000000 tokens"}));
  EXPECT_TRUE(has_error(parse({{"workload.kind", "cumulative"},
                               {"workload.requests", "10000000"},
                               {"workload.arrival_rate_per_s", "0.001"},
                               {"workload.cumulative_max_prompt_tokens", "1005"}}),
                        "workload.arrival_rate_per_s", {"(the expected arrival span) must be at most 1000000000 s"}));
}

// ---------------------------------------------------------------------------
// The new kinds' fields in the scenario document

TEST(WorkloadKind, ThePoolKindsFieldsRoundTripThroughTheScenarioDocument) {
  const std::vector<Override> overrides = {{"workload.kind", "shared_prefix"},
                                           {"workload.shared_prefix_num_groups", "150"},
                                           {"workload.shared_prefix_num_prompts_per_group", "5"},
                                           {"workload.shared_prefix_system_prompt_len", "6000"},
                                           {"workload.shared_prefix_system_prompt_len_std", "12.5"},
                                           {"workload.shared_prefix_system_prompt_len_min", "10"},
                                           {"workload.shared_prefix_system_prompt_len_max", "9000"},
                                           {"workload.shared_prefix_question_len", "1200"},
                                           {"workload.shared_prefix_question_len_std", "360"},
                                           {"workload.shared_prefix_question_len_min", "2"},
                                           {"workload.shared_prefix_question_len_max", "4000"},
                                           {"workload.shared_prefix_output_len", "1000"},
                                           {"workload.shared_prefix_output_len_std", "300"},
                                           {"workload.shared_prefix_output_len_min", "1"},
                                           {"workload.shared_prefix_output_len_max", "3000"},
                                           {"workload.shared_prefix_multi_turn", "on"},
                                           {"workload.prefix_repetition_prefix_len", "512"},
                                           {"workload.prefix_repetition_suffix_len", "128"},
                                           {"workload.prefix_repetition_num_prefixes", "7"},
                                           {"workload.prefix_repetition_output_len", "64"},
                                           {"workload.cumulative_pool_prompts", "1234"},
                                           {"workload.cumulative_max_prompt_tokens", "4096"}};
  const ScenarioParse p = parse(overrides);
  ASSERT_TRUE(p.ok()) << p.error_text();
  const SharedPrefixParams& sp = p.scenario.workload.shared_prefix;
  EXPECT_EQ(sp.num_groups, 150u);
  EXPECT_EQ(sp.prompts_per_group, 5u);
  EXPECT_EQ(sp.system_prompt, (LengthSpread{6000, 12.5, 10, 9000}));
  EXPECT_EQ(sp.question, (LengthSpread{1200, 360, 2, 4000}));
  EXPECT_EQ(sp.output, (LengthSpread{1000, 300, 1, 3000}));
  EXPECT_TRUE(sp.multi_turn);
  EXPECT_EQ(sp.order, PoolOrder::Cycle);
  EXPECT_EQ(p.scenario.workload.prefix_repetition, (PrefixRepetitionParams{512, 128, 7, 64}));
  EXPECT_EQ(p.scenario.workload.cumulative, (CumulativeParams{1234, 4096}));
  const std::string json = scenario_to_json(p.scenario);
  const ScenarioParse again = parse_scenario(json);
  ASSERT_TRUE(again.ok()) << again.error_text();
  EXPECT_EQ(again.scenario.workload, p.scenario.workload);
  EXPECT_EQ(scenario_to_json(again.scenario), json);
  // The new fields follow the workload section's earlier ones in the document.
  EXPECT_LT(json.find("\"gsp_output_len\""), json.find("\"shared_prefix_num_groups\""));
  EXPECT_LT(json.find("\"cumulative_max_prompt_tokens\""), json.find("\"cluster\""));
  // The defaults, written and read back, are the defaults.
  const ScenarioParse defaults = parse_scenario(scenario_to_json(Scenario::reference()));
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults.scenario.workload, Scenario::reference().workload);
}

// ---------------------------------------------------------------------------
// Fields another kind ignores

TEST(WorkloadKind, LimitsOfOtherKindsDoNotApply) {
  // Huge tenant prefixes matter to tenants and sessions, not to gsp.
  const std::vector<Override> prefixes = {{"workload.tenants", "100000"}, {"workload.prefix_tokens_max", "1000"}};
  EXPECT_TRUE(has_error(parse(prefixes), "workload.tenants"));
  std::vector<Override> gsp = prefixes;
  gsp.emplace_back("workload.kind", "gsp");
  const ScenarioParse p = parse(gsp);
  EXPECT_TRUE(p.ok()) << p.error_text();
  // 10^7 requests of the tenants kind fit; 10^7 agentic ones do not (above).
  const ScenarioParse tenants = parse({{"workload.requests", "10000000"}});
  EXPECT_TRUE(tenants.ok()) << tenants.error_text();
}

TEST(WorkloadKind, AKindsTraceDependsOnlyOnTheFieldsItReads) {
  const Scenario reference = Scenario::reference();
  const ScenarioParse others = parse({{"workload.turns_mean", "9"},
                                      {"workload.context_tokens_max", "100"},
                                      {"workload.gsp_num_groups", "3"},
                                      {"workload.session_rate_per_s", "7"}});
  ASSERT_TRUE(others.ok());
  EXPECT_EQ(generate_synthetic(others.scenario.workload, 42)->fingerprint(),
            generate_synthetic(reference.workload, 42)->fingerprint());
  const ScenarioParse gsp_a = parse({{"workload.kind", "gsp"}});
  const ScenarioParse gsp_b = parse({{"workload.kind", "gsp"},
                                     {"workload.requests", "17"},
                                     {"workload.tenants", "3"},
                                     {"workload.turns_mean", "9"},
                                     {"workload.output_tokens_max", "9"}});
  ASSERT_TRUE(gsp_a.ok() && gsp_b.ok());
  EXPECT_EQ(generate_synthetic(gsp_a.scenario.workload, 42)->fingerprint(),
            generate_synthetic(gsp_b.scenario.workload, 42)->fingerprint());
  const ScenarioParse agent_a = parse({{"workload.kind", "agentic"}});
  const ScenarioParse agent_b = parse({{"workload.kind", "agentic"},
                                       {"workload.arrival_rate_per_s", "3"},
                                       {"workload.output_tokens_max", "9"},
                                       {"workload.gsp_question_len", "5"}});
  ASSERT_TRUE(agent_a.ok() && agent_b.ok());
  EXPECT_EQ(generate_synthetic(agent_a.scenario.workload, 42)->fingerprint(),
            generate_synthetic(agent_b.scenario.workload, 42)->fingerprint());
}

// The schema's x-kinds (FieldSpec::kinds) lists exactly the kinds whose
// trace a workload field changes: the page shows only the chosen kind's
// fields, so a field read but not listed would be hidden from its users.
// What a kind's trace is: its fingerprint (arrivals, prompts) and its
// output lengths, which the fingerprint leaves out.
std::vector<std::uint64_t> trace_identity(const std::vector<Override>& overrides) {
  const ScenarioParse p = parse(overrides);
  EXPECT_TRUE(p.ok()) << p.error_text();
  if (!p.ok()) return {};
  const std::unique_ptr<RequestTrace> trace = generate_synthetic(p.scenario.workload, 42);
  std::vector<std::uint64_t> identity = {trace->fingerprint()};
  for (std::size_t i = 0; i < trace->size(); ++i) identity.push_back(trace->output_tokens(i));
  return identity;
}

TEST(WorkloadKind, EachFieldsKindsAreExactlyTheKindsWhoseTraceItChanges) {
  std::vector<const FieldSpec*> numbers;
  for (const FieldSpec& f : scenario_fields())
    if (f.key.rfind("workload.", 0) == 0 && f.kind != FieldKind::Text) numbers.push_back(&f);
  ASSERT_GT(numbers.size(), 20u);
  const auto ends_with = [](const std::string& key, const char* tail) {
    const std::size_t n = std::string(tail).size();
    return key.size() > n && key.compare(key.size() - n, n, tail) == 0;
  };
  for (const std::string kind : kKinds) {
    for (const FieldSpec* f : numbers) {
      if (f->key == "workload.requests") continue;  // set below (gsp's count is groups x prompts per group)
      std::vector<Override> base = {{"workload.kind", kind}, {"workload.requests", "300"}};
      // A summary is only written once a history outgrows the context window.
      if (f->key == "workload.summary_tokens") base.emplace_back("workload.context_tokens_max", "1500");
      // A length's bounds matter once its draws spread past them.
      for (const char* length : {"system_prompt_len", "question_len", "output_len"}) {
        const std::string stem = std::string("workload.shared_prefix_") + length;
        if (f->key == stem + "_min" || f->key == stem + "_max") base.emplace_back(stem + "_std", "5000");
      }
      // A changed value every kind accepts: a min raised with its max to
      // 1000, a max set to 2000, anything else to 3 (or a value near it).
      std::vector<Override> changed = base;
      if (ends_with(f->key, "_min")) {
        changed.emplace_back(f->key.substr(0, f->key.size() - 4) + "_max", "1000");
        changed.emplace_back(f->key, "1000");
      } else if (ends_with(f->key, "_max")) {
        changed.emplace_back(f->key, "2000");
      } else {
        // The longest prompt sent must hold a conversation's first (1,005 tokens at most here).
        changed.emplace_back(f->key, f->key == "workload.zipf_s"                         ? "0.5"
                                     : f->key == "workload.vocab_size"                   ? "1000"
                                     : f->key == "workload.cumulative_max_prompt_tokens" ? "1500"
                                                                                         : "3");
      }
      const bool differs = trace_identity(changed) != trace_identity(base);
      const std::string kinds(f->kinds);
      bool listed = kinds.empty();
      for (std::size_t at = 0; !listed && at <= kinds.size();) {
        const std::size_t comma = std::min(kinds.find(',', at), kinds.size());
        listed = kinds.substr(at, comma - at) == kind;
        at = comma + 1;
      }
      EXPECT_EQ(differs, listed) << "workload.kind " << kind << ", " << f->key << " (x-kinds \"" << kinds << "\")";
    }
  }
}

// ---------------------------------------------------------------------------
// Runs

TEST(WorkloadKind, EveryKindRunsEveryPolicy) {
  for (const std::string kind : {"sessions", "agentic", "gsp", "shared_prefix", "shared_prefix multi-turn",
                                 "prefix_repetition", "cumulative"}) {
    const bool multi = kind == "shared_prefix multi-turn";
    const ScenarioParse p = parse({{"workload.kind", multi ? "shared_prefix" : kind},
                                   {"workload.shared_prefix_multi_turn", multi ? "on" : "off"},
                                   {"workload.shared_prefix_question_len_std", "20"},
                                   {"policies", "all"},
                                   {"workload.requests", "600"},
                                   {"workload.gsp_num_groups", "8"},
                                   {"workload.cumulative_pool_prompts", "200"},
                                   {"cluster.cache_tokens", "20000"},
                                   {"cluster.decode_ms_per_token", "5"}});
    ASSERT_TRUE(p.ok()) << kind << ": " << p.error_text();
    const ExperimentReport report = run_experiment(p.scenario);
    const std::unique_ptr<RequestTrace> trace = generate_synthetic(p.scenario.workload, p.scenario.seed);
    EXPECT_EQ(report.requests, kind == "gsp" ? 8u * 16u : 600u) << kind;
    EXPECT_EQ(report.fingerprint, trace->fingerprint()) << kind;
    EXPECT_EQ(report.prompt_tokens, trace->total_prompt_tokens()) << kind;
    ASSERT_EQ(report.outcomes.size(), policy_catalogue().size()) << kind;
    for (const PolicyOutcome& o : report.outcomes) {
      EXPECT_EQ(o.run.ttft.size(), report.requests) << kind << " " << o.policy;
      EXPECT_LE(o.summary.hit_rate, report.ideal.hit_rate + 1e-12) << kind << " " << o.policy;
    }
    // prefix_repetition's defaults: half of each 512-token prompt is its prefix.
    EXPECT_GT(report.ideal.hit_rate, kind == "prefix_repetition" ? 0.49 : 0.5) << kind;
  }
}

}  // namespace
}  // namespace prefixroute::scenario_workload_kinds_test
