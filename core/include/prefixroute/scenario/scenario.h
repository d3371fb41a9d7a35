// Scenario: every parameter of a run, in one document.
//
// The same JSON schema is read by the command line (--scenario, --set), kept in
// the playground's URL and echoed in every results JSON. A missing key takes
// its default; an unknown key, a wrong type, a value outside its allowed range
// or an inconsistent combination is an error. Parsing never throws and never
// aborts: it returns the scenario or the full list of problems, each naming
// its field and what is allowed.
//
// The field table (scenario_fields()) is the single description of the schema:
// parsing, validation, serialisation and the published JSON Schema all read it.
// Its rows are the fixed sections (seed, workload, cluster, hardware, router,
// trace) and one section per policy of the catalogue, `<policy>.<param>`,
// generated from the policy's spec (policies/policy_spec.h).
//
// Given and derived values. The fields a hardware preset can derive
// (kDerivableFields: cache tokens, prefill rate, the step costs, and
// hardware.mfu, which defaults to the GPU preset's calibrated value) are
// each either given (a number in the document or an override) or not
// (absent, or null). When hardware.model names a preset, every field not
// given takes its derived value (cluster/hardware.h); otherwise it takes its
// default. Scenario::cluster always holds the values in force; Scenario::given
// remembers which were given, and the canonical document writes a derived
// value as null, so parsing it derives again (change hardware.tp and the
// cache follows). Without hardware.model nothing is derived and the document
// writes every value, as before; a value written so then counts as given if
// the document is later run with a hardware preset (hardware_summary says
// which value is in force and why).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prefixroute/policies/policy_spec.h"
#include "prefixroute/cluster/cluster_config.h"
#include "prefixroute/cluster/hardware.h"
#include "prefixroute/cluster/topology.h"
#include "prefixroute/workload/client.h"
#include "prefixroute/workload/workload.h"

namespace prefixroute {

inline constexpr int kScenarioVersion = 1;

/// Longest text a text field takes (a trace's recorded file name is cut to it).
inline constexpr std::size_t kMaxTextFieldLength = 256;

/// Replay of a recorded trace instead of the synthetic workload. The
/// settings say how to read it; name, lines, skipped_lines and content_hash record which file
/// was replayed (set by whoever reads the file; a given content_hash must
/// match the file). With no trace (name empty) the synthetic workload runs.
struct TraceSettings {
  std::uint32_t block_size = 512;    ///< tokens per hash id (Mooncake: 512)
  double time_scale = 1.0;           ///< arrival = timestamp x time_scale
  std::uint64_t limit = 0;           ///< replay the first `limit` requests; 0 = all
  double start_s = 0;                ///< replay from this second of the trace's clock (before time_scale)
  double end_s = 0;                  ///< replay up to this second of the trace's clock; 0 = to the end
  std::string on_error = "stop";     ///< "stop" at a bad line, or "skip" it (counted)
  std::string format = "auto";       ///< "auto" (from the first JSON line), "mooncake", "bailian" or "openai"
  /// An openai log's keys: "auto" (timestamp else created), "timestamp" or "created".
  std::string time_field = "auto";
  /// "auto" (messages or prompt, whichever a line has), "messages" or "prompt".
  std::string prompt_field = "auto";
  /// "auto" (session_id else user), "session_id", "user" or "none" (every request a session of its own).
  std::string session_field = "auto";
  std::string name;                  ///< file name of the replayed trace
  std::uint64_t lines = 0;           ///< lines read from it
  std::uint64_t skipped_lines = 0;   ///< bad lines skipped (on_error = "skip")
  std::string content_hash;          ///< FNV-1a 64 of its bytes, 16 hex digits
};

/// Service-level objectives: a bound on a percentile of TTFT and of TPOT.
/// A target with bound 0 is absent; with none present (the default) no run
/// computes SLO figures and the results are those of a scenario without this
/// section. With targets, each policy's results carry, per target, its
/// attainment (the share of requests within the bound) and, over all of them,
/// the share of requests within every bound and the goodput (those requests
/// per second), run/slo.h. The SLO holds when each target's attainment is at
/// least its percentile: the nearest-rank percentile is within the bound.
struct SloSettings {
  double ttft_percentile = 99;  ///< percent of requests whose TTFT must be within ttft_ms
  double ttft_ms = 0;           ///< bound on TTFT; 0 = no TTFT target
  double tpot_percentile = 90;  ///< percent of requests whose TPOT must be within tpot_ms
  double tpot_ms = 0;           ///< bound on TPOT (batched engine); 0 = no TPOT target

  bool any() const { return ttft_ms > 0 || tpot_ms > 0; }
};

/// How a capacity search (run/capacity_search.h) is bounded and priced. Read
/// only by the capacity search; a plain run ignores it.
struct CapacitySettings {
  double resolution = 0.05;       ///< the load search stops when hi / lo - 1 is at most this
  std::uint32_t max_replicas = 256;  ///< the replica search tries no more than this many
  double gpu_hour_price = 0;      ///< price of one GPU-hour; > 0 gives a monthly cost (730 h)
};

/// The fields hardware.* can derive, in this order; bit i of
/// Scenario::given says whether the i-th was given. The raw cluster fields,
/// and hardware.mfu (the GPU preset's calibrated MFU unless given).
inline constexpr std::string_view kDerivableFields[] = {
    "cluster.cache_tokens",     "cluster.prefill_tokens_per_s", "cluster.step_overhead_ms",
    "cluster.attention_ns_per_token_pair", "cluster.weight_read_ms", "cluster.expert_read_ms",
    "cluster.expert_share_per_token",      "cluster.kv_read_ns_per_token", "hardware.mfu"};
inline constexpr std::size_t kDerivableCount = std::size(kDerivableFields);

/// Most replicates a scenario may ask for (`replicates`).
inline constexpr std::uint32_t kMaxReplicates = 1000;

struct Scenario {
  std::uint64_t seed = 42;
  /// Runs of the synthetic workload with seeds seed .. seed + replicates - 1;
  /// > 1 reports each metric as a mean with a 95 % interval (experiment.h).
  /// A replayed trace has one replicate (no seed changes its arrivals).
  std::uint32_t replicates = 1;
  WorkloadConfig workload;
  ClientConfig client;       ///< when each request is sent (workload/client.h)
  ClusterConfig cluster;     ///< the values in force (derived ones included)
  HardwareSettings hardware;
  std::uint32_t given = 0;   ///< bit i: kDerivableFields[i] was given
  RouterConfig router;
  TopologySettings topology; ///< aggregated (default) or a prefill and a decode pool (cluster/topology.h)
  TraceSettings trace;
  SloSettings slo;           ///< targets on TTFT and TPOT (none by default)
  CapacitySettings capacity; ///< the capacity search's bounds and price
  std::vector<std::string> policies;  ///< policy names, in report order
  PolicyParameters policy_params;     ///< every policy's parameters (defaults unless set)

  bool replays_trace() const { return !trace.name.empty(); }
  /// Whether the derivable field `key` was given (false for any other key).
  bool is_given(std::string_view key) const;

  /// The reference scenario (the defaults): the original write-up's setting, with
  /// the four baseline policies.
  static Scenario reference();
};

/// What a policy of `scenario` may know besides its own parameters.
PolicyContext policy_context(const Scenario& scenario);

/// Sets the numeric field `key` (e.g. "cluster.replicas",
/// "dynamo_kv.temperature") without validating the value; returns false when
/// no numeric field has that key. A derivable field set so counts as given;
/// setting a hardware.* number or cluster.kv_block_tokens derives again
/// (apply_hardware). For code that builds scenarios (tests, sweeps);
/// documents and overrides go through parse_scenario.
bool set_number(Scenario& scenario, std::string_view key, double value);



/// The numeric field `key`, or nullopt when no numeric field has that key.
std::optional<double> get_number(const Scenario& scenario, std::string_view key);

/// One problem with a scenario: the dotted field name and a message that says
/// what is allowed and what was given.
struct FieldError {
  std::string field;
  std::string message;
};

/// Puts the derived (or default) value into every derivable field not given,
/// from scenario.hardware (call it after changing hardware.* in code). Returns
/// the problem when the hardware cannot run (unknown preset, weights that do
/// not fit); the fields not given then keep their defaults.
std::vector<FieldError> apply_hardware(Scenario& scenario);

struct ScenarioParse {
  Scenario scenario;               ///< valid only when errors is empty
  std::vector<FieldError> errors;
  bool ok() const { return errors.empty(); }
  /// All errors, one "field: message" per line.
  std::string error_text() const;
};

/// A command-line style override: dotted key and the value's text.
/// The text is read as JSON when it parses as JSON, else as a string;
/// `policies` also accepts a comma-separated list ("affinity,round_robin").
using Override = std::pair<std::string, std::string>;

/// Parses a scenario document (empty text means "all defaults"), applies the
/// overrides in order, and validates the result.
ScenarioParse parse_scenario(std::string_view json_text, const std::vector<Override>& overrides = {});

/// Checks ranges and cross-field rules of an already-built scenario.
std::vector<FieldError> validate(const Scenario& scenario);

/// Canonical JSON of a scenario: every field, fixed key order. Parsing this
/// text gives back an equal scenario.
std::string scenario_to_json(const Scenario& scenario, int indent = -1);

/// Kind of a scenario field, for the schema.
enum class FieldKind { Integer, Number, Text, PolicyList };

/// One entry of the schema's field table.
struct FieldSpec {
  std::string key;               ///< dotted key, e.g. "workload.requests"
  std::string_view label;        ///< short human name, e.g. "Requests" (page controls, messages)
  FieldKind kind;
  double min;                    ///< allowed range, inclusive (numbers only)
  double max;
  std::string_view unit;
  std::string_view description;
  std::string_view choices = {};  ///< Text fields: allowed values, comma-separated ("" = free text)
  std::string_view policy = {};   ///< the policy whose parameter this is ("" = none)
  bool derivable = false;         ///< hardware.* derives it unless given (null = derive)
  /// Workload fields: the workload kinds that read it, comma-separated ("" =
  /// every kind, and every field outside `workload`).
  std::string_view kinds = {};
  /// Client fields: the client kinds that read it, comma-separated ("" =
  /// every kind, and every field outside `client`). Validation refuses a
  /// value other than 0 / empty under any other kind.
  std::string_view client_kinds = {};
  /// Client fields read only when one of these client fields is given
  /// (comma-separated keys; "" = always). Validation refuses it otherwise.
  std::string_view client_needs = {};
};

/// Every field, sections in order (seed, workload, cluster, hardware, router,
/// the policies' parameters in catalogue order, trace, policies). Rebuilt when a
/// policy is registered, which invalidates references to the old table.
const std::vector<FieldSpec>& scenario_fields();

/// JSON Schema (draft 2020-12) of the scenario document, generated from the
/// field table, with defaults taken from Scenario::reference().
std::string scenario_json_schema();

/// The clusters of a disaggregated scenario's two pools (cluster/topology.h):
/// the cluster section with each pool's replica count and, with a
/// hardware.model, every derivable field not given derived for the pool's
/// GPU and TP; the KV bytes per token sent. An error names the field (a
/// pool's model that does not fit its GPUs, a missing kv_bytes_per_token).
struct PoolClustersResult {
  PoolClusters pools;
  std::vector<FieldError> errors;
};
PoolClustersResult pool_clusters(const Scenario& scenario);

}  // namespace prefixroute
