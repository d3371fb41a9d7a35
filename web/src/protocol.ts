// Messages between the page and the simulation worker. Only plain data
// crosses: JSON texts, small arrays and numbers.

import type { PolicyInfo } from './prefixroute-module';
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

export type ToWorker =
  | { type: 'init' }
  | { type: 'run'; id: number; overrides: Pair[] };

export type FromWorker =
  | { type: 'ready'; schema: string; catalogue: PolicyInfo[] }
  | { type: 'progress'; id: number; policyIndex: number; policyCount: number; policy: string; done: number; total: number }
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
    }
  | { type: 'failed'; id: number | null; message: string };
