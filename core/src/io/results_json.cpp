#include "prefixroute/io/results_json.h"

#include <nlohmann/json.hpp>

#include "base/json_text.h"
#include "prefixroute/base/hashing.h"
#include "prefixroute/policies/catalogue.h"
#include "prefixroute/run/replicates.h"
#include "prefixroute/scenario/hardware_summary.h"

namespace prefixroute {
namespace {

using Json = nlohmann::ordered_json;

// Metrics as a one-seed row writes them: counts as integers, an absent metric
// as null (null_when_absent) or not at all.
void write_metrics(Json& out, const std::vector<RowMetric>& metrics) {
  for (const RowMetric& m : metrics) {
    if (!m.value) {
      if (null_when_absent(m.key)) out[m.key] = nullptr;
    } else if (m.integer) {
      out[m.key] = static_cast<std::uint64_t>(*m.value);
    } else {
      out[m.key] = *m.value;
    }
  }
}

Json interval_json(const std::vector<ReplicatedMetric>& metrics) {
  Json out = Json::object();
  for (const ReplicatedMetric& m : metrics) {
    Json& entry = out[m.key];
    entry["half_width"] = m.interval.half_width;
    entry["low"] = m.interval.low();
    entry["high"] = m.interval.high();
  }
  return out;
}

Json bound_json(const CacheBound& b) {
  Json out = Json::object();
  out["capacity_tokens"] = b.capacity_tokens;
  out["hit_rate"] = b.hit_rate;
  out["cached_tokens"] = b.cached_tokens;
  out["prefill_tokens"] = b.prefill_tokens;
  return out;
}

Json replicated_bound_json(const std::vector<ReplicatedMetric>& metrics, const std::vector<SeedReport>& seeds,
                           CacheBound SeedReport::*which) {
  Json out = Json::object();
  for (const ReplicatedMetric& m : metrics) out[m.key] = m.interval.mean;
  out["interval"] = interval_json(metrics);
  Json per_seed = Json::array();
  for (const SeedReport& r : seeds) {
    Json entry = Json::object();
    entry["seed"] = r.seed;
    entry.update(bound_json(r.*which));  // its keys after "seed", in bound_json's order
    per_seed.push_back(std::move(entry));
  }
  out["per_seed"] = std::move(per_seed);
  return out;
}

// `span_s`: the run's span (RunSummary::span_s), for the batched engine's
// per-replica output rate.
Json replicas_json(const std::vector<ReplicaTotals>& replicas, bool batched, double span_s) {
  Json out = Json::array();
  for (const ReplicaTotals& r : replicas) {
    Json entry = Json::object();
    write_metrics(entry, replica_metrics(r, batched, span_s));
    out.push_back(std::move(entry));
  }
  return out;
}

// A disaggregated run's pools (sim/pool_totals.h), prefill then decode.
Json pools_json(const std::vector<PoolTotals>& pools) {
  Json out = Json::array();
  for (const PoolTotals& p : pools) {
    Json entry = Json::object();
    entry["pool"] = p.name;
    entry["replicas"] = p.replicas;
    entry["requests"] = p.requests;
    entry["prefills"] = p.prefills;
    entry["busy_share"] = p.busy_share;
    entry["mean_queue_ms"] = p.mean_queue_ms;
    entry["peak_kv_usage"] = p.peak_kv_usage;
    if (p.name == "decode") {
      entry["mean_active"] = p.mean_active;
      entry["transfers"] = p.transfers;
      entry["transferred_tokens"] = p.transferred_tokens;
      entry["decode_hit_tokens"] = p.decode_hit_tokens;
      entry["mean_transfer_ms"] = p.mean_transfer_ms;
      entry["peak_link_transfers"] = p.peak_link_transfers;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// Per replica index, the mean of each per-replica figure over the seeds.
Json mean_replicas_json(const std::vector<SeedReport>& seeds, std::size_t policy) {
  Json out = Json::array();
  const std::size_t replicas = seeds.front().outcomes[policy].run.replicas.size();
  const bool batched = seeds.front().outcomes[policy].run.batched;
  for (std::size_t i = 0; i < replicas; ++i) {
    std::vector<std::vector<RowMetric>> per_seed;
    for (const SeedReport& r : seeds) {
      const PolicyOutcome& o = r.outcomes[policy];
      per_seed.push_back(replica_metrics(o.run.replicas[i], batched, o.summary.span_s));
    }
    Json entry = Json::object();
    for (std::size_t k = 0; k < per_seed.front().size(); ++k) {
      std::vector<double> values;
      for (const std::vector<RowMetric>& metrics : per_seed) values.push_back(*metrics[k].value);
      entry[per_seed.front()[k].key] = t_interval(values).mean;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// A run's client stages, each its figures.
Json stages_json(const std::vector<StageSummary>& stages) {
  Json out = Json::array();
  for (const StageSummary& st : stages) {
    Json entry = Json::object();
    write_metrics(entry, stage_metrics(st));
    out.push_back(std::move(entry));
  }
  return out;
}

// Per stage index, each figure's mean over the seeds that ran that stage.
Json mean_stages_json(const std::vector<SeedReport>& seeds, std::size_t policy) {
  std::size_t stages = 0;
  for (const SeedReport& r : seeds) stages = std::max(stages, r.outcomes[policy].summary.stages.size());
  Json out = Json::array();
  for (std::size_t k = 0; k < stages; ++k) {
    std::vector<std::vector<RowMetric>> per_seed;
    for (const SeedReport& r : seeds) {
      const std::vector<StageSummary>& list = r.outcomes[policy].summary.stages;
      if (k < list.size()) per_seed.push_back(stage_metrics(list[k]));
    }
    Json entry = Json::object();
    for (std::size_t m = 0; m < per_seed.front().size(); ++m) {
      std::vector<double> values;
      for (const std::vector<RowMetric>& metrics : per_seed)
        if (metrics[m].value) values.push_back(*metrics[m].value);
      if (!values.empty()) entry[per_seed.front()[m].key] = t_interval(values).mean;
      else if (null_when_absent(per_seed.front()[m].key)) entry[per_seed.front()[m].key] = nullptr;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

// Batch size and KV held over time, per replica (charts): the samples the
// run takes of in-flight counts, kv_block_tokens-token blocks.
Json timeline_json(const Scenario& scenario, const SimulationRun& run) {
  const std::size_t n = run.replicas.size();
  const std::size_t samples = n > 0 ? run.batch_samples.size() / n : 0;
  Json batch = Json::array(), blocks = Json::array();
  for (std::size_t r = 0; r < n; ++r) {
    Json b = Json::array(), k = Json::array();
    for (std::size_t i = 0; i < samples; ++i) {
      b.push_back(run.batch_samples[i * n + r]);
      k.push_back(run.kv_block_samples[i * n + r]);
    }
    batch.push_back(std::move(b));
    blocks.push_back(std::move(k));
  }
  const std::uint64_t block = scenario.cluster.kv_block_tokens;
  Json out = Json::object();
  out["period_ms"] = ticks_to_ms(run.in_flight_period);
  out["kv_capacity_blocks"] = scenario.cluster.cache_tokens / block;
  out["batch"] = std::move(batch);
  out["kv_blocks"] = std::move(blocks);
  return out;
}

std::string label_of(const std::string& policy) {
  const PolicySpec* spec = find_policy(policy);
  return std::string(spec != nullptr ? spec->label() : std::string_view(policy));
}

Json workload_json(const ExperimentReport& report) {
  Json workload = Json::object();
  workload["requests"] = report.requests;
  workload["prompt_tokens"] = report.prompt_tokens;
  workload["fingerprint"] = hashing::to_hex16(report.fingerprint);
  return workload;
}

Json replicated_workload_json(const std::vector<SeedReport>& seeds, const ReplicateStats& stats) {
  std::vector<double> requests;
  hashing::Fnv1a64 combined;
  Json per_seed = Json::array();
  for (const SeedReport& r : seeds) {
    requests.push_back(static_cast<double>(r.requests));
    combined.feed(r.fingerprint);
    Json entry = Json::object();
    entry["seed"] = r.seed;
    entry["requests"] = r.requests;
    entry["prompt_tokens"] = r.prompt_tokens;
    entry["fingerprint"] = hashing::to_hex16(r.fingerprint);
    per_seed.push_back(std::move(entry));
  }
  const std::vector<ReplicatedMetric> metrics = {replicated("requests", requests), stats.prompt_tokens};
  Json workload = Json::object();
  workload["requests"] = metrics[0].interval.mean;
  workload["prompt_tokens"] = metrics[1].interval.mean;
  workload["fingerprint"] = hashing::to_hex16(combined.value);
  workload["interval"] = interval_json(metrics);
  workload["per_seed"] = std::move(per_seed);
  return workload;
}

// A replicated row: each metric's mean over the seeds, in the one-seed key
// order (a metric no seed has, such as TPOT when no request generated two
// tokens, is written as one seed writes it), then its replicas, timeline,
// intervals and every seed's own metrics.
Json replicated_row_json(const Scenario& scenario, const ExperimentReport& report, const PolicyReplicates& pr,
                         std::size_t p) {
  const std::vector<SeedReport>& seeds = report.seeds;
  const bool decode = seeds.front().outcomes[p].run.decode;
  const bool batched = seeds.front().outcomes[p].run.batched;
  Json row = Json::object();
  row["policy"] = pr.policy;
  row["label"] = label_of(pr.policy);
  for (const RowMetric& key : row_metrics(RunSummary{}, 0, decode, batched)) {
    const ReplicatedMetric* m = pr.find(key.key);
    if (m != nullptr) {
      row[key.key] = m->interval.mean;
    } else if (null_when_absent(key.key)) {
      row[key.key] = nullptr;
    }
  }
  row["replicas"] = mean_replicas_json(seeds, p);
  // The timeline's samples are taken at times set by each seed's own
  // arrival span (the sampling period differs from seed to seed), so they
  // cannot be averaged sample by sample: replicate 0's is kept.
  if (batched) row["timeline"] = timeline_json(scenario, report.outcomes[p].run);
  if (!report.outcomes[p].summary.stages.empty()) row["stages"] = mean_stages_json(seeds, p);
  row["interval"] = interval_json(pr.metrics);
  Json per_seed = Json::array();
  for (const SeedReport& r : seeds) {
    Json entry = Json::object();
    entry["seed"] = r.seed;
    write_metrics(entry, row_metrics(r.outcomes[p].summary, r.ideal.hit_rate, decode, batched));
    per_seed.push_back(std::move(entry));
  }
  row["per_seed"] = std::move(per_seed);
  return row;
}

Json replicates_section(const std::vector<SeedReport>& seeds, const ReplicateStats& stats) {
  Json seed_list = Json::array();
  for (const SeedReport& r : seeds) seed_list.push_back(r.seed);
  Json headline = Json::array();
  Json pairs = Json::object();
  for (const std::string_view metric : kHeadlineMetrics) {
    headline.push_back(std::string(metric));
    Json list = Json::array();
    for (const ReplicateStats::Pair& pair : stats.not_distinguishable)
      if (pair.metric == metric) {
        Json two = Json::array();
        two.push_back(pair.a);
        two.push_back(pair.b);
        list.push_back(std::move(two));
      }
    pairs[std::string(metric)] = std::move(list);
  }
  Json section = Json::object();
  section["count"] = stats.count;
  section["seeds"] = std::move(seed_list);
  section["confidence"] = 0.95;
  section["t"] = stats.t;
  section["headline_metrics"] = std::move(headline);
  section["not_distinguishable"] = std::move(pairs);
  return section;
}

}  // namespace

std::string results_to_json(const Scenario& scenario, const ExperimentReport& report) {
  Json doc = Json::object();
  doc["schema"] = "prefixroute.results/1";
  doc["recommended"] = recommended_policy();
  doc["scenario"] = json_text::parse_unbounded(scenario_to_json(scenario));
  const bool with_replicates = !report.seeds.empty() && !report.cancelled;
  const ReplicateStats stats = with_replicates ? replicate_stats(report) : ReplicateStats{};
  doc["workload"] = with_replicates ? replicated_workload_json(report.seeds, stats) : workload_json(report);
  // The batched engine's or the hardware's figures for one replica.
  if (scenario.cluster.engine == EngineKind::Batched || scenario.hardware.enabled())
    doc["hardware"] = json_text::parse_unbounded(hardware_summary_json(scenario));
  if (with_replicates) {
    Json& bounds = doc["bounds"];
    bounds["ideal"] = replicated_bound_json(stats.ideal, report.seeds, &SeedReport::ideal);
    bounds["pooled"] = replicated_bound_json(stats.pooled, report.seeds, &SeedReport::pooled);
  } else if (!report.cancelled) {
    Json& bounds = doc["bounds"];
    bounds["ideal"] = bound_json(report.ideal);
    bounds["pooled"] = bound_json(report.pooled);
  }
  Json results = Json::array();
  if (with_replicates) {
    for (std::size_t p = 0; p < stats.policies.size(); ++p)
      results.push_back(replicated_row_json(scenario, report, stats.policies[p], p));
  } else {
    for (const PolicyOutcome& o : report.outcomes) {
      Json row = Json::object();
      row["policy"] = o.policy;
      row["label"] = label_of(o.policy);
      write_metrics(row, row_metrics(o.summary, report.ideal.hit_rate, o.run.decode, o.run.batched));
      row["replicas"] = replicas_json(o.run.replicas, o.run.batched, o.summary.span_s);
      if (!o.run.pools.empty()) row["pools"] = pools_json(o.run.pools);
      if (o.run.batched) row["timeline"] = timeline_json(scenario, o.run);
      if (!o.summary.stages.empty()) row["stages"] = stages_json(o.summary.stages);
      results.push_back(std::move(row));
    }
  }
  doc["results"] = std::move(results);
  if (with_replicates) doc["replicates"] = replicates_section(report.seeds, stats);
  if (report.cancelled) doc["cancelled"] = true;
  return doc.dump(2) + "\n";
}

}  // namespace prefixroute
