// The capacity JSON (prefixroute.capacity/1, core/src/io/capacity_json.cpp)
// as the page reads it: per policy the highest load meeting the SLO and the
// fewest replicas (GPUs) meeting it at the scenario's load, their 95 %
// intervals with replicates, and every step of both searches per seed. Only
// reading: every figure is the core's.

/** A 95 % interval of a mean over seeds. */
export interface Interval {
  low: number;
  high: number;
  half_width: number;
}

/** One run of a search: the value tried, whether the SLO held, the latency at the SLO's percentile. */
export interface CapacityStep {
  value: number;
  met: boolean;
  slo_attainment: number;
  goodput_per_s: number;
  /** Present when the SLO bounds TTFT (null: no request finished). */
  ttft_ms?: number | null;
  tpot_ms?: number | null;
}

export interface CapacitySeed {
  seed: number;
  max_load: number | null;
  max_load_limited: boolean;
  replicas: number | null;
  gpus: number | null;
  load_steps: CapacityStep[];
  replica_steps: CapacityStep[];
}

/** One policy's answer: means over seeds (null: the SLO was not met within the search's range). */
export interface CapacityRow {
  policy: string;
  label: string;
  max_load: number | null;
  max_load_limited: boolean;
  replicas: number | null;
  gpus: number | null;
  cost_per_month?: number | null;
  interval?: { max_load?: Interval; replicas?: Interval; gpus?: Interval };
  per_seed: CapacitySeed[];
}

export interface CapacityResults {
  schema: string;
  scenario: {
    replicates?: number;
    slo: { ttft_percentile: number; ttft_ms: number; tpot_percentile: number; tpot_ms: number };
    capacity?: { gpu_hour_price?: number; max_replicas?: number };
  };
  load: { key: string; unit: string; base: number; min: number; max: number; integer: boolean };
  replicas: { base: number; max: number; gpus_per_replica: number };
  results: CapacityRow[];
}

/** Reads the capacity JSON; throws with a message when it is not one. */
export function parseCapacityResults(json: string): CapacityResults {
  const doc = JSON.parse(json) as CapacityResults;
  if (doc.schema !== 'prefixroute.capacity/1' || !Array.isArray(doc.results)) throw new Error('not a prefixroute.capacity/1 document');
  return doc;
}
