// The scenario's engine and hardware fields: given values against derived
// ones, the canonical echo that keeps them apart, the summary that shows
// which is in force, the refusals, and what the results JSON gains.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "field_errors.h"
#include "prefixroute/run/experiment.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/scenario/hardware_summary.h"
#include "prefixroute/scenario/scenario.h"

namespace prefixroute::hardware_scenario_test {
namespace {

using Json = nlohmann::json;
using testsupport::has_error;

const std::vector<Override> kLlama8 = {{"hardware.model", "llama-3.1-8b"}, {"hardware.gpu", "h100"}};

Scenario parsed(const std::string& doc, const std::vector<Override>& overrides) {
  const ScenarioParse p = parse_scenario(doc, overrides);
  EXPECT_TRUE(p.ok()) << p.error_text();
  return p.scenario;
}

std::vector<Override> plus(std::vector<Override> a, const std::vector<Override>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Json summary_of(const Scenario& s) { return Json::parse(hardware_summary_json(s)); }

Json field_row(const Json& summary, const std::string& key) {
  for (const Json& row : summary["fields"])
    if (row["key"] == key) return row;
  return Json();
}

TEST(HardwareScenario, WithoutAModelNothingIsDerivedAndTheEchoIsAsBefore) {
  const Scenario s = parsed("", {});
  EXPECT_FALSE(s.hardware.enabled());
  EXPECT_EQ(s.cluster.cache_tokens, 4000u);
  EXPECT_EQ(s.cluster.prefill.tokens_per_s, 11000.0);
  EXPECT_EQ(s.cluster.step, StepCosts{});
  EXPECT_EQ(s.cluster.engine, EngineKind::Fifo);
  const Json echo = Json::parse(scenario_to_json(s));
  EXPECT_EQ(echo["cluster"]["cache_tokens"], 4000);
  EXPECT_EQ(echo["cluster"]["engine"], "fifo");
  EXPECT_EQ(echo["hardware"]["model"], "none");
  EXPECT_EQ(field_row(summary_of(s), "cluster.cache_tokens")["source"], "default");
}

TEST(HardwareScenario, AModelDerivesEveryRawFieldNotGiven) {
  const Scenario s = parsed("", kLlama8);
  EXPECT_EQ(s.cluster.cache_tokens, 448608u);
  EXPECT_NEAR(s.cluster.prefill.tokens_per_s, 42520.6, 0.1);
  EXPECT_EQ(s.cluster.step.overhead_ms, 0.5);
  EXPECT_GT(s.cluster.step.weight_read_ms, 6.6);
  EXPECT_EQ(s.given, 0u);
  const Json summary = summary_of(s);
  EXPECT_EQ(field_row(summary, "cluster.cache_tokens")["source"], "derived");
  EXPECT_EQ(field_row(summary, "cluster.cache_tokens")["in_force"], 448608);
  EXPECT_EQ(summary["text"],
            "Llama-3.1-8B on 1 x H100-SXM 80GB per replica: 448,608 cache tokens, prefill 42,521 tokens/s, "
            "128 KiB of KV per token");
  EXPECT_EQ(summary["memory"]["kv_bytes_per_token"], 131072.0);
}

TEST(HardwareScenario, AGivenRawFieldWinsOverItsDerivedValue) {
  const Scenario s = parsed("", plus(kLlama8, {{"cluster.cache_tokens", "100000"}}));
  EXPECT_EQ(s.cluster.cache_tokens, 100000u);
  EXPECT_TRUE(s.is_given("cluster.cache_tokens"));
  EXPECT_FALSE(s.is_given("cluster.prefill_tokens_per_s"));
  const Json row = field_row(summary_of(s), "cluster.cache_tokens");
  EXPECT_EQ(row["source"], "given");
  EXPECT_EQ(row["in_force"], 100000);
  EXPECT_EQ(row["derived"], 448608);  // still shown, with its arithmetic, beside the value in force
  EXPECT_FALSE(row["formula"].get<std::string>().empty());
  // Given in the document works the same as an override.
  const Scenario d = parsed(R"({"hardware": {"model": "llama-3.1-8b"}, "cluster": {"cache_tokens": 5000}})", {});
  EXPECT_EQ(d.cluster.cache_tokens, 5000u);
}

TEST(HardwareScenario, TheEchoWritesDerivedValuesAsNullSoParsingItDerivesAgain) {
  const Scenario s = parsed("", plus(kLlama8, {{"cluster.prefill_tokens_per_s", "20000"}}));
  const std::string echo = scenario_to_json(s);
  const Json doc = Json::parse(echo);
  EXPECT_TRUE(doc["cluster"]["cache_tokens"].is_null());
  EXPECT_EQ(doc["cluster"]["prefill_tokens_per_s"], 20000.0);
  const Scenario again = parsed(echo, {});
  EXPECT_EQ(scenario_to_json(again), echo);
  EXPECT_EQ(again.given, s.given);
  // A derived value follows the hardware: four GPUs, more room for KV.
  const Scenario tp4 = parsed(echo, {{"hardware.tp", "4"}});
  EXPECT_GT(tp4.cluster.cache_tokens, 4 * s.cluster.cache_tokens);
  EXPECT_EQ(tp4.cluster.prefill.tokens_per_s, 20000.0);  // given: stays
  // Without a model, null means the default.
  EXPECT_EQ(parsed(R"({"cluster": {"cache_tokens": null}})", {}).cluster.cache_tokens, 4000u);
}

TEST(HardwareScenario, SettingHardwareInCodeDerivesAgainAndSettingARawFieldGivesIt) {
  Scenario s = parsed("", kLlama8);
  ASSERT_TRUE(set_number(s, "hardware.tp", 2));
  EXPECT_EQ(s.cluster.cache_tokens, parsed("", plus(kLlama8, {{"hardware.tp", "2"}})).cluster.cache_tokens);
  ASSERT_TRUE(set_number(s, "cluster.cache_tokens", 1234));
  EXPECT_TRUE(s.is_given("cluster.cache_tokens"));
  s.hardware.model = "qwen2.5-7b";
  EXPECT_TRUE(apply_hardware(s).empty());
  EXPECT_EQ(s.cluster.cache_tokens, 1234u);
  EXPECT_EQ(s.cluster.prefill.tokens_per_s, derive_hardware(s.hardware, 16).prefill_tokens_per_s);
}

TEST(HardwareScenario, BadHardwareIsRefusedNamingTheFieldAndWhatIsAllowed) {
  EXPECT_TRUE(has_error(parse_scenario("", {{"hardware.model", "gpt-5"}}), "hardware.model",
                        {"must be one of none,llama-3.1-8b,llama-3.1-70b,qwen2.5-7b,qwen2.5-32b,deepseek-v3,"
                         "qwen3-32b,qwen3-30b-a3b,gpt-oss-120b,qwen3-0.6b",
                         "got \"gpt-5\""}));
  EXPECT_TRUE(has_error(parse_scenario("", plus(kLlama8, {{"hardware.gpu", "v100"}})), "hardware.gpu",
                        {"must be one of a100,h100,h200,b200,a100-40gb,a10g,l4,l40s,l20,h20", "got \"v100\""}));
  EXPECT_TRUE(has_error(parse_scenario("", plus(kLlama8, {{"hardware.tp", "3"}})), "hardware.tp",
                        {"must be 1, 2, 4 or 8", "got 3"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"hardware.model", "llama-3.1-70b"}, {"hardware.gpu", "a100"}}),
                        "hardware.tp",
                        {"141.11 GB", "hardware.tp = 1", "hardware.gpu = a100", "76.55 GB usable",
                         "use hardware.tp = 2 or more"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"cluster.engine", "vllm"}}), "cluster.engine",
                        {"must be one of fifo,batched", "got \"vllm\""}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"cluster.engine", "batched"}, {"cluster.decode_ms_per_token", "20"}}),
                        "cluster.decode_ms_per_token", {"fifo engine only", "got 20"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"cluster.engine", "batched"}, {"cluster.max_batched_tokens", "100"}}),
                        "cluster.max_batched_tokens", {"cluster.max_running (256)", "got 100"}));
  EXPECT_TRUE(has_error(parse_scenario("", {{"cluster.engine", "batched"},
                                            {"cluster.attention_ns_per_token_pair", "1000"},
                                            {"workload.turn_tokens_max", "1000000"},
                                            {"workload.requests", "10000"}}),
                        "cluster.prefill_tokens_per_s", {"longest possible busy time under the step model"}));
  // Nothing runs on a refused scenario: the module and the command line stop at the errors.
  const ScenarioParse refused = parse_scenario("", {{"hardware.model", "deepseek-v3"}, {"hardware.tp", "8"}});
  EXPECT_FALSE(refused.ok());
  EXPECT_TRUE(has_error(refused, "hardware.tp", {"no tensor-parallel degree up to 8 of hardware.gpu = h100"}));
}

// hardware.mfu is derived like the raw fields: the GPU preset's calibrated
// value unless given, written as null in the echo; without a model it stays
// 0.5 and the echo of a scenario without hardware is unchanged.
TEST(HardwareScenario, TheMfuIsTheGpusCalibratedValueUnlessGiven) {
  const Scenario none = parsed("", {});
  EXPECT_EQ(none.hardware.mfu, 0.5);
  EXPECT_EQ(Json::parse(scenario_to_json(none))["hardware"]["mfu"], 0.5);
  EXPECT_EQ(field_row(summary_of(none), "hardware.mfu")["source"], "default");

  const Scenario derived = parsed("", kLlama8);
  EXPECT_EQ(derived.hardware.mfu, find_gpu_preset("h100")->mfu);
  EXPECT_FALSE(derived.is_given("hardware.mfu"));
  EXPECT_TRUE(Json::parse(scenario_to_json(derived))["hardware"]["mfu"].is_null());
  EXPECT_EQ(field_row(summary_of(derived), "hardware.mfu")["source"], "derived");

  const Scenario given = parsed("", plus(kLlama8, {{"hardware.mfu", "0.5"}}));
  EXPECT_TRUE(given.is_given("hardware.mfu"));
  EXPECT_EQ(given.hardware.mfu, 0.5);
  EXPECT_LT(given.cluster.prefill.tokens_per_s, derived.cluster.prefill.tokens_per_s);
  EXPECT_EQ(Json::parse(scenario_to_json(given))["hardware"]["mfu"], 0.5);
  const Json row = field_row(summary_of(given), "hardware.mfu");
  EXPECT_EQ(row["source"], "given");
  EXPECT_EQ(row["derived"], find_gpu_preset("h100")->mfu);
  // The echo of either reads back to the same scenario.
  EXPECT_EQ(scenario_to_json(parsed(scenario_to_json(derived), {})), scenario_to_json(derived));
  EXPECT_EQ(parsed(scenario_to_json(given), {}).cluster.prefill.tokens_per_s, given.cluster.prefill.tokens_per_s);
}

TEST(HardwareScenario, EveryPresetCombinationEitherRunsOrSaysWhyNot) {
  for (const ModelPreset& m : model_presets())
    for (const GpuPreset& g : gpu_presets())
      for (const char* tp : {"1", "2", "4", "8"}) {
        const ScenarioParse p = parse_scenario(
            "", {{"hardware.model", std::string(m.name)}, {"hardware.gpu", std::string(g.name)}, {"hardware.tp", tp}});
        if (p.ok()) {
          EXPECT_GT(p.scenario.cluster.cache_tokens, 0u);
        } else {
          EXPECT_TRUE(has_error(p, "hardware.tp", {"hardware.gpu = " + std::string(g.name)})) << p.error_text();
        }
      }
}

TEST(HardwareScenario, ResultsGainHardwareAndBatchedMetricsOnlyWhereTheyApply) {
  const std::vector<Override> small = {{"workload.requests", "200"}, {"policies", "round_robin"}};
  const Scenario fifo = parsed("", small);
  const Json f = Json::parse(results_to_json(fifo, run_experiment(fifo)));
  EXPECT_FALSE(f.contains("hardware"));
  EXPECT_FALSE(f["results"][0].contains("mean_tpot_ms"));
  EXPECT_FALSE(f["results"][0]["replicas"][0].contains("steps"));

  const Scenario batched = parsed("", plus(plus(small, kLlama8), {{"cluster.engine", "batched"},
                                                                 {"workload.output_tokens_min", "5"},
                                                                 {"workload.output_tokens_max", "50"}}));
  const Json b = Json::parse(results_to_json(batched, run_experiment(batched)));
  EXPECT_EQ(b["hardware"]["schema"], "prefixroute.hardware/1");
  const Json& row = b["results"][0];
  for (const char* key : {"mean_tpot_ms", "p50_tpot_ms", "p99_tpot_ms", "output_tokens", "output_tokens_per_s",
                          "span_s", "mean_batch", "preemptions", "recomputed_tokens", "mean_e2e_ms", "timeline"})
    EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_GT(row["mean_tpot_ms"].get<double>(), 0);
  EXPECT_EQ(row["timeline"]["batch"].size(), 4u);
  EXPECT_EQ(row["timeline"]["kv_capacity_blocks"], 448608 / 16);
  for (const char* key : {"steps", "mean_batch", "peak_batch", "output_tokens", "output_tokens_per_s", "preemptions",
                          "recomputed_tokens", "overcommits"})
    EXPECT_TRUE(row["replicas"][0].contains(key)) << key;
  // Outputs of one token: no time per output token to report.
  const Scenario single = parsed("", plus(small, {{"cluster.engine", "batched"}}));
  const Json one = Json::parse(results_to_json(single, run_experiment(single)));
  EXPECT_TRUE(one["results"][0]["mean_tpot_ms"].is_null());
}

}  // namespace
}  // namespace prefixroute::hardware_scenario_test
