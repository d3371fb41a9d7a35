#include "shard_api.h"

#include <emscripten/emscripten.h>

#include <cmath>
#include <string>
#include <vector>

#include "coarse_api.h"
#include "prefixroute/scenario/overrides.h"
#include "prefixroute/io/results_json.h"
#include "prefixroute/io/shard_json.h"
#include "prefixroute/run/run_list.h"
#include "prefixroute/run/shard.h"

using emscripten::EM_VAL;
using emscripten::val;

// Length of an array whose elements are all strings; -1 when `v` is not an
// array, -2 - i when element i is not a string.
EM_JS(int, pr_string_array_check, (EM_VAL handle), {
  var v = Emval.toValue(handle);
  if (!Array.isArray(v)) return -1;
  for (var i = 0; i < v.length; i++)
    if (typeof v[i] !== 'string') return -2 - i;
  return v.length;
});

namespace prefixroute_wasm {

// shardIndex / shardCount as the core's Shard, or the "(shard)" error.
bool read_shard(const val& index_arg, const val& count_arg, prefixroute::Shard& out,
                std::vector<prefixroute::FieldError>& errors) {
  const auto integer = [](const val& v, double& x) {
    if (v.typeOf().as<std::string>() != "number") return false;
    x = v.as<double>();
    return std::isfinite(x) && std::floor(x) == x;
  };
  double index = 0, count = 0;
  if (!integer(index_arg, index) || !integer(count_arg, count) || count < 1 ||
      count > static_cast<double>(prefixroute::kMaxShards) || index < 1 || index > count) {
    errors.push_back({"(shard)", "shardIndex and shardCount must be integers with 1 <= shardIndex <= shardCount <= " +
                                     std::to_string(prefixroute::kMaxShards) +
                                     " (shardIndex is 1-based, as the command line's --shard K/N)"});
    return false;
  }
  out = prefixroute::Shard{static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
  return true;
}

// documents (a JS array of strings) as the core's inputs, named documents[i];
// or the "(shards)" error.
bool read_documents(const val& documents, std::vector<prefixroute::ShardInput>& out,
                    std::vector<prefixroute::FieldError>& errors) {
  const int n = pr_string_array_check(documents.as_handle());
  if (n < 0) {
    errors.push_back({"(shards)", n == -1 ? "documents must be an array of shard documents (strings)"
                                          : "documents[" + std::to_string(-2 - n) + "] must be a string (a shard document)"});
    return false;
  }
  for (int i = 0; i < n; ++i)
    out.push_back({"documents[" + std::to_string(i) + "]", documents[i].as<std::string>()});
  return true;
}

// What runShard / runTraceShard return once the shard has run.
val shard_outcome(const prefixroute::Scenario& scenario, prefixroute::ShardReport& report,
                  const std::string& callback_error) {
  if (val stopped = prefixroute_wasm::unfinished_outcome(callback_error, report.cancelled); !stopped.isUndefined())
    return stopped;
  val result = val::object();
  result.set("ok", true);
  result.set("shardJson", prefixroute::experiment_shard_to_json(scenario, report));
  val series = val::array();
  std::size_t k = 0;
  for (prefixroute::ShardRun& run : report.runs) {
    if (run.key.replicate != 0 || run.key.phase >= scenario.policies.size()) continue;
    val s = policy_series(run.outcome);
    s.set("run", static_cast<double>(run.run));
    series.set(k++, s);
  }
  result.set("series", series);
  return result;
}

using prefixroute::FieldError;

val run_shard(const val& scenario_json, const val& overrides_json, const val& shard_index, const val& shard_count,
              const val& on_progress) {
  const bool has_progress = !on_progress.isNull() && !on_progress.isUndefined();
  if (has_progress && on_progress.typeOf().as<std::string>() != "function")
    return failure({{"(onProgress)", "must be a function (run, done, total) => boolean, or null"}});
  std::vector<FieldError> errors;
  prefixroute::Shard shard;
  prefixroute_wasm::read_shard(shard_index, shard_count, shard, errors);
  const prefixroute::ScenarioParse parse = prefixroute_wasm::parse_with_overrides(scenario_json, overrides_json);
  for (const FieldError& e : parse.errors) errors.push_back(e);
  if (!errors.empty()) return failure(errors);

  std::string callback_error;
  prefixroute::ShardReport report = prefixroute::run_experiment_shard(
      parse.scenario, shard, prefixroute_wasm::progress_callback(on_progress, callback_error), nullptr, 1,
      /*keep_series=*/true);
  return prefixroute_wasm::shard_outcome(parse.scenario, report, callback_error);
}

val merge_shards(const val& documents) {
  std::vector<FieldError> errors;
  std::vector<prefixroute::ShardInput> inputs;
  if (!prefixroute_wasm::read_documents(documents, inputs, errors)) return failure(errors);
  prefixroute::MergedShards merged = prefixroute::merge_shards(inputs);
  if (!merged.ok()) return failure(merged.errors);
  if (merged.kind != prefixroute::MergedShards::Kind::Experiment)
    return failure({{"(shards)", "these are a sweep's shards (runSweepShard): merge them with mergeSweepShards"}});
  // What runScenario would refuse for this scenario, refused here too; a
  // replayed trace's shards (runTraceShard) merge into runTrace's results.
  if (!merged.scenario.replays_trace()) {
    const prefixroute::ScenarioParse checked =
        prefixroute_wasm::parse_checked(prefixroute::scenario_to_json(merged.scenario), {});
    if (!checked.ok()) return failure(checked.errors);
  }
  val result = val::object();
  result.set("ok", true);
  result.set("resultsJson", prefixroute::results_to_json(merged.scenario, merged.report));
  return result;
}

}  // namespace prefixroute_wasm
