// How many shards a job is split into on the page's pool of workers: the
// one rule both sides apply, the pool (worker-pool.ts) before it sends a job
// and a worker (worker.ts) that is asked to run a job unless it would be
// split (the pool's `runOrPlan`, which saves a synthetic run the round trip
// of asking for its plan first).

import type { Plan } from './protocol';

/**
 * Raw trace bytes times workers at most: each worker parses its own copy of
 * the trace, and its wasm heap after replaying it is about the file's size
 * (343 MiB for the 319 MiB conversation trace repeated 100 times), so the
 * workers' heaps stay near 400 MB together, under the 512 MB the page's
 * targets allow a long replay (docs/performance.md); that trace runs in one
 * worker.
 */
export const TRACE_POOL_BYTES = 384 * 1024 * 1024;

/**
 * Requests simulated (Plan.work) below which a job runs whole. Every shard
 * generates its seed's workload again and hashes its fingerprint, and the
 * merge parses every shard's document, so a small job gains little for far
 * more CPU. `node bench/shard_cpu.mjs` (CPU time of the wasm module in Node,
 * whole run against the slowest of 2 shards plus the merge): the default
 * scenario (4 x 4,000 requests) 20.0 against 18.2 ms, 30.6 ms of CPU in all;
 * the page's six policies (24,000) 35.4 against 26.3 ms, 45.1 in all. In
 * Chromium on 2 cores, where the workers share the cores with the page,
 * sharding the page's six did not move the re-run median beyond the noise
 * (`node bench/page_perf.mjs`, three interleaved runs each). The bare
 * page's eight policies (32,000) and the ten original policies on the
 * default workload (40,000) are sharded.
 */
export const MIN_SHARDED_WORK = 30_000;

/** How many shards a job gets in a pool of `size` workers (a trace of `traceBytes`: fewer when large). */
export function shardCount(size: number, plan: Plan, traceBytes = 0): number {
  if (plan.work < MIN_SHARDED_WORK) return 1;
  const byMemory = traceBytes > 0 ? Math.max(1, Math.floor(TRACE_POOL_BYTES / traceBytes)) : size;
  return Math.max(1, Math.min(size, plan.runs, byMemory));
}
