// Messages between the page and the simulation worker (worker-client.ts on
// the page's side, worker.ts inside). Only plain data crosses: JSON texts,
// small arrays and numbers (and a picked trace's File handle).

import type { PolicyInfo, PolicyTimeline } from './prefixroute-module';
import type { OnError, TraceSource } from '../trace/trace-source';
import type { TraceSummary } from '../trace/trace-summary';
import type { Pair } from '../state/schema';

/** An override the core refused, and why (the core's message, naming the field). */
export interface Rejection {
  key: string;
  value: string;
  message: string;
}

/** Downsampled empirical CDF of one policy's TTFTs: x in ms, y in (0, 1]. */
export interface CdfSeries {
  policy: string;
  x: number[];
  y: number[];
}

/** A trace to replay instead of the synthetic workload, and what to do on a bad line. */
export interface TraceRequest {
  source: TraceSource;
  onError: OnError;
  /** Content hash the file must have (from a link), or "" for any. */
  contentHash: string;
  /** The https URL the file was fetched from and its SHA-256, checked (a hosted trace: the page's link names them). */
  hosted?: { url: string; sha256: string };
}

/** A scenario run: these overrides, on a trace when one is given (else the synthetic workload). */
export interface RunRequest {
  overrides: Pair[];
  trace?: TraceRequest;
}

/**
 * Where a run is: reading its trace (bytes of totalBytes, lines and requests
 * so far), then each policy in turn (policy phases past the last one are the
 * core's cache bounds, reported once).
 */
export type RunProgress =
  | { kind: 'read'; name: string; bytes: number; totalBytes: number; lines: number; requests: number }
  | { kind: 'policy'; policyIndex: number; policyCount: number; policy: string; done: number; total: number };

/** One policy's run over time, the module's typed arrays as they are (timeline-chart.ts draws them). */
export type PolicyTimelineData = PolicyTimeline & { policy: string };

/** A finished run: the core's results JSON and what the page draws beside it. */
export interface RunResult {
  resultsJson: string;
  /** Canonical scenario JSON of the accepted overrides (of the replayed trace, when there was one). */
  scenarioJson: string;
  accepted: Pair[];
  rejected: Rejection[];
  cdf: CdfSeries[];
  /** Per policy, in the results' order. */
  timelines: PolicyTimelineData[];
  elapsedMs: number;
  /** The worker's wasm heap and malloc'd bytes after the run (leak checks). */
  memory: { heapBytes: number; inUseBytes: number };
  /** Present when the run replayed a trace. */
  trace?: TraceSummary;
}

/** A sweep: the CLI's --sweep text on the scenario of these overrides, replaying a trace when given (every point). */
export interface SweepRequest {
  overrides: Pair[];
  spec: string;
  trace?: TraceRequest;
}

/**
 * Where a sweep is: point `point` of `pointCount` (the core's expansion of
 * the spec), then phase as in a run (the policies, then the two bounds) and
 * requests done of total; before those, a sweep of a trace reads it.
 */
export type SweepProgress =
  | Extract<RunProgress, { kind: 'read' }>
  | { kind: 'point'; point: number; pointCount: number; phase: number; policyCount: number; done: number; total: number };

/** A finished sweep: the core's sweep JSON, untouched, and the time it took in the worker. */
export interface SweepResult {
  sweepJson: string;
  elapsedMs: number;
}

/**
 * How many independent runs a scenario run or a sweep is (the core's run
 * list: replicates x (policies + 2) per point), so the page's pool starts no
 * more workers than there are runs. 0: the request does not validate (the
 * pool then runs it whole, for the ordinary error).
 */
export interface PlanRequest {
  run?: RunRequest;
  sweep?: SweepRequest;
}

export interface Plan {
  runs: number;
  /**
   * Requests simulated by the policy runs in all (workload.requests x
   * replicates x policies, x points for a sweep); Infinity for a replay,
   * whose size is the file's.
   */
  work: number;
}

/**
 * A scenario run on the synthetic workload for a pool of poolSize workers:
 * the worker runs it whole when it would not be split (shard-count.ts), else
 * answers with its plan and runs nothing.
 */
export interface RunOrPlanRequest {
  run: Omit<RunRequest, 'trace'>;
  poolSize: number;
}

/** Shard shardIndex (1-based) of shardCount of a scenario run (the core's runShard / runTraceShard). */
export interface ShardRequest {
  run: RunRequest;
  shardIndex: number;
  shardCount: number;
}

/** One shard's part of a RunResult: its shard document and what the page draws of its own policy runs. */
export interface ShardOutput {
  shardJson: string;
  scenarioJson: string;
  accepted: Pair[];
  rejected: Rejection[];
  /** The CDFs of this shard's policy runs, each with its run index (policy order = run order). */
  cdf: (CdfSeries & { run: number })[];
  /** The timelines of this shard's policy runs, each with its run index. */
  timelines: (PolicyTimelineData & { run: number })[];
  memory: { heapBytes: number; inUseBytes: number };
  trace?: TraceSummary;
}

/** Shard shardIndex of shardCount of a sweep (the core's runSweepShard). */
export interface SweepShardRequest {
  sweep: SweepRequest;
  shardIndex: number;
  shardCount: number;
}

/** All shard documents of one split, to merge into the document one worker would have written. */
export interface MergeRequest {
  kind: 'run' | 'sweep';
  documents: string[];
}

/** A capacity search (the core's runCapacity, or runTraceCapacity on a replayed trace) on the scenario of these overrides. */
export interface CapacityRequest {
  overrides: Pair[];
  trace?: TraceRequest;
}

/** Where a capacity search is: runs done so far, searches finished of all (per policy and seed: load, then replicas). */
export type CapacityProgress =
  | Extract<RunProgress, { kind: 'read' }>
  | { kind: 'search'; runs: number; searchesDone: number; searches: number };

/** A finished capacity search: the core's capacity JSON (prefixroute.capacity/1), untouched, and the time it took in the worker. */
export interface CapacityResult {
  capacityJson: string;
  elapsedMs: number;
}

/** A trace to read before it is replayed (the guided import): with the scenario of these overrides (its trace.* reading settings, its cluster). */
export interface InspectRequest {
  overrides: Pair[];
  trace: TraceRequest;
}

/** What the import shows: what the core read, and the cluster the scenario would model (the module's derived values). */
export interface InspectResult {
  trace: TraceSummary;
  /** Canonical scenario JSON of the accepted overrides. */
  scenarioJson: string;
  /** The core's hardware summary of that scenario ("prefixroute.hardware/1"; "" when it does not validate). */
  hardwareJson: string;
  rejected: Rejection[];
}

/** The core's choice of tensor parallelism for a model on a GPU (SmallestTpSuccess, trimmed). */
export interface TpPick {
  /** 1, 2, 4 or 8; 0 when no degree up to 8 holds the weights. */
  tp: number;
  /** The smallest degree the core accepts at all (weights and one KV block fit); 0: none. */
  minFitTp: number;
  holdsContext: boolean;
  reason: string;
}

/** What each kind of job takes, reports while it runs, and gives back. */
export interface Jobs {
  run: { request: RunRequest; progress: RunProgress; result: RunResult };
  sweep: { request: SweepRequest; progress: SweepProgress; result: SweepResult };
  capacity: { request: CapacityRequest; progress: CapacityProgress; result: CapacityResult };
  plan: { request: PlanRequest; progress: never; result: Plan };
  runOrPlan: { request: RunOrPlanRequest; progress: RunProgress; result: { result: RunResult } | { plan: Plan } };
  shard: { request: ShardRequest; progress: RunProgress; result: ShardOutput };
  sweepShard: { request: SweepShardRequest; progress: SweepProgress; result: { shardJson: string } };
  /** The merged results JSON (kind 'run') or sweep JSON (kind 'sweep'). */
  merge: { request: MergeRequest; progress: never; result: { json: string } };
  /** Reads a trace (kept for the replay that follows) and describes it and the cluster: the guided import. */
  inspect: { request: InspectRequest; progress: RunProgress; result: InspectResult };
  /** The core's smallest tensor parallelism for this scenario's model and GPU (null: no model, or its fields refused). */
  smallestTp: { request: { overrides: Pair[] }; progress: never; result: { pick: TpPick | null } };
}

export type JobKind = keyof Jobs;

/** A job for the worker; `id` matches its replies to it. */
export type JobMessage = { [K in JobKind]: { type: 'job'; kind: K; id: number; request: Jobs[K]['request'] } }[JobKind];

export type ToWorker = { type: 'init' } | JobMessage;

/**
 * The worker's replies: 'ready' to init (the module loaded), then per job
 * any number of 'progress' and one 'done' or 'failed' ('failed' with id null:
 * the module did not load).
 */
export type FromWorker =
  | { type: 'ready'; schema: string; catalogue: PolicyInfo[] }
  | { type: 'progress'; id: number; progress: Jobs[JobKind]['progress'] }
  | { type: 'done'; id: number; result: Jobs[JobKind]['result'] }
  | {
      type: 'failed';
      id: number | null;
      message: string;
      /** Present when the trace could not be read: its problems (a bad line in stop mode). */
      trace?: TraceSummary;
    };
