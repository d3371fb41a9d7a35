// Messages between the page and the simulation worker. Only plain data
// crosses: JSON texts, small arrays and numbers.

import type { PolicyInfo } from './prefixroute-module';
import type { OnError, TraceSource } from './trace-source';
import type { Pair } from './url-state';

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
}

/** One bad trace line (line 0: the trace as a whole), as the core reports it. */
export interface TraceProblemInfo {
  line: number;
  field: string;
  message: string;
}

/** The trace a run replayed: what was read and what was skipped. */
export interface TraceSummary {
  name: string;
  bytes: number;
  lines: number;
  requests: number;
  skippedLines: number;
  contentHash: string;
  problems: TraceProblemInfo[];
  unlistedProblems: number;
}

export type ToWorker =
  | { type: 'init' }
  | { type: 'run'; id: number; overrides: Pair[]; trace?: TraceRequest }
  | SweepRequest;

/** Runs a sweep (the CLI's --sweep text) on the scenario of these overrides. */
export interface SweepRequest {
  type: 'sweep';
  id: number;
  overrides: Pair[];
  spec: string;
}

/** Progress of a sweep: point `point` of `pointCount`, phase as in a run (policies, then the two bounds). */
export interface SweepProgressMessage {
  type: 'sweep-progress';
  id: number;
  point: number;
  pointCount: number;
  phase: number;
  policyCount: number;
  done: number;
  total: number;
}

/** A finished sweep: the core's sweep JSON, untouched. */
export interface SweepResultMessage {
  type: 'sweep-result';
  id: number;
  sweepJson: string;
  elapsedMs: number;
}

export type FromWorker =
  | { type: 'ready'; schema: string; catalogue: PolicyInfo[] }
  | { type: 'progress'; id: number; policyIndex: number; policyCount: number; policy: string; done: number; total: number }
  | { type: 'read-progress'; id: number; name: string; bytes: number; totalBytes: number; lines: number; requests: number }
  | {
      type: 'result';
      id: number;
      resultsJson: string;
      scenarioJson: string;
      accepted: Pair[];
      rejected: Rejection[];
      cdf: CdfSeries[];
      elapsedMs: number;
      /** The worker's wasm heap and malloc'd bytes after the run (leak checks). */
      memory: { heapBytes: number; inUseBytes: number };
      /** Present when the run replayed a trace. */
      trace?: TraceSummary;
    }
  | SweepProgressMessage
  | SweepResultMessage
  | {
      type: 'failed';
      id: number | null;
      message: string;
      /** Present when the trace could not be read: its problems (a bad line in stop mode). */
      trace?: TraceSummary;
    };
