// Pools of simulation workers: every core of the reader's machine busy on one
// scenario run (its policies and replicates) or one sweep (its points). A job
// is split into N shards by the core's run list (shard K of N runs the runs i
// with i mod N == K - 1: core/include/prefixroute/run/run_list.h), each shard runs
// in a worker of its own (runShard / runTraceShard / runSweepShard), and one
// worker merges the shard documents (mergeShards / mergeSweepShards) into
// exactly the results JSON one worker would have written: the module checks
// the set of shards and refuses a wrong one, and the results are the same
// bytes for any N (tests/e2e/pool.test.mjs compares 1 and 4 workers).
//
// N is navigator.hardwareConcurrency, at most MAX_WORKERS, and never more
// than the job has runs (shard-count.ts). The core counts the runs: a
// replay or a sweep asks the first worker for its plan first; a synthetic
// run goes to the first worker as runOrPlan, which runs it whole at once
// when it would not be split. A job of one run, a small one
// (MIN_SHARDED_WORK) or one that does not validate runs whole in the first
// worker.
// Workers start when a job first needs them and are kept for the next job.
//
// A replayed trace is read once: the pool reads the source (a picked file or
// the fetched excerpt) once into an in-memory Blob and hands that to each
// worker (to the one worker, too, when the job is not sharded), which
// streams it into its own TraceLoader (the core's parsed trace is per wasm
// instance; workers share no memory without cross-origin isolation) and
// keeps it for later runs, as a single worker keeps its trace. A worker
// started afresh (after a cancel) parses the Blob again, never the file. A
// large trace gets fewer workers (TRACE_POOL_BYTES), since each holds its own
// parsed copy; one over TRACE_POOL_BYTES is streamed from its file by one.
//
// Cancelling or superseding a job terminates its workers (the core runs
// synchronously in them); progress is the least advanced shard's.

import type { InspectRequest, InspectResult, Plan, RunProgress, RunRequest, RunResult, ShardOutput, SweepProgress, SweepRequest, SweepResult, TpPick, TraceRequest } from './protocol';
import type { Pair } from '../state/schema';
import { shardCount, TRACE_POOL_BYTES } from './shard-count';
import type { TraceSource } from '../trace/trace-source';
import { RunAborted, WorkerClient, type WorkerReady } from './worker-client';

/** Most workers in a pool: each holds a module instance and its heap, and the page's runs are a few dozen at most. */
export const MAX_WORKERS = 8;

/** Workers for this machine: its logical cores (navigator.hardwareConcurrency), 1 to MAX_WORKERS. */
export function defaultPoolSize(): number {
  const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 1;
  return Number.isInteger(cores) && cores > 0 ? Math.min(MAX_WORKERS, cores) : 1;
}

/** Of the shards' latest progress, the least advanced one (shards not started or finished excluded). */
function leastAdvanced<P>(latest: Map<number, P>, order: (p: P) => number): P | undefined {
  let best: P | undefined;
  for (const p of latest.values()) if (best === undefined || order(p) < order(best)) best = p;
  return best;
}

/** The workers of one kind of job, and what they share: the job in progress, crash reports. */
abstract class Pool<K extends 'run' | 'sweep'> {
  private readonly slots: WorkerClient<K>[] = [];
  /** Ends the job in progress (if any): it is then no longer current, for the reason given. */
  private endCurrent: ((reason: 'cancelled' | 'superseded') => void) | null = null;
  private running = 0;

  /** Called when a worker died, with the reason; the pool has already let it go. */
  onCrash: (message: string) => void = () => {};

  constructor(
    private readonly kind: K,
    readonly size: number = defaultPoolSize(),
    private readonly createWorker?: () => Worker,
  ) {}

  /** Loads the module in the first worker and returns the schema and the policy catalogue. */
  init(): Promise<WorkerReady> {
    return this.slot(0).init();
  }

  get busy(): boolean {
    return this.running > 0;
  }

  /** Cancels the job in progress, if any (its promise rejects as 'cancelled'), by letting its workers go. */
  cancel(): void {
    this.endCurrent?.('cancelled');
    for (const slot of this.slots) slot.cancel();
  }

  protected slot(index: number): WorkerClient<K> {
    while (this.slots.length <= index) {
      const slot = new WorkerClient(this.kind, this.createWorker);
      slot.onCrash = (message) => this.onCrash(message);
      this.slots.push(slot);
    }
    return this.slots[index];
  }

  /**
   * Runs `body` as the pool's one job: a job in progress is superseded
   * first (its workers let go), and an error of a job that is no longer
   * current reads 'superseded' or 'cancelled' as a single worker's would.
   */
  protected async job<T>(body: (current: () => boolean) => Promise<T>): Promise<T> {
    this.endCurrent?.('superseded');
    for (const slot of this.slots) if (slot.busy) slot.cancel();
    let ended: 'cancelled' | 'superseded' | null = null;
    const end = (reason: 'cancelled' | 'superseded') => {
      ended ??= reason;
    };
    this.endCurrent = end;
    const current = () => ended === null;
    this.running++;
    try {
      return await body(current);
    } catch (error) {
      if (ended === null) {
        // One shard failed: the others' work is for nothing.
        for (const slot of this.slots) if (slot.busy) slot.cancel();
        throw error;
      }
      throw new RunAborted(ended === 'cancelled' ? 'cancelled' : 'replaced by a newer job', ended);
    } finally {
      this.running--;
      if (this.endCurrent === end) this.endCurrent = null;
    }
  }

  /** Throws when the job is no longer current (between its steps); job() gives the reason. */
  protected static check(current: () => boolean): void {
    if (!current()) throw new RunAborted('replaced by a newer job', 'superseded');
  }
}

/** Scenario runs (the page's table and charts) on a pool of workers. */
export class RunPool extends Pool<'run'> {
  /** The trace read into memory for the workers, by source key. */
  private held: { key: string; source: TraceSource } | null = null;

  constructor(size?: number, createWorker?: () => Worker) {
    super('run', size, createWorker);
  }

  /** Runs a scenario (on a trace when given); as WorkerClient.run, spread over the pool. */
  run(request: RunRequest, onProgress: (progress: RunProgress) => void = () => {}): Promise<RunResult> {
    // Back on the synthetic workload: the in-memory trace goes (a link or a pick reads it again).
    if (!request.trace) this.held = null;
    return this.job(async (current) => {
      const started = performance.now();
      const first = this.slot(0);
      // A pool of one never shards: no plan to ask for. On the synthetic
      // workload the first worker runs the job at once unless it would be
      // split (and then answers with the plan): a whole run, the page's
      // usual one, costs no round trip for its plan (6 - 8 ms in Chromium
      // while the page redraws). A replay asks for its plan first: the pool
      // reads the trace into memory before any worker replays it.
      let plan: Plan = { runs: 1, work: 0 };
      if (this.size > 1 && !request.trace) {
        const reply = await first.runJob('runOrPlan', { run: { overrides: request.overrides }, poolSize: this.size }, onProgress);
        if ('result' in reply) return reply.result;
        plan = reply.plan;
      } else if (this.size > 1) {
        plan = await first.runJob('plan', { run: request });
      }
      Pool.check(current);
      const traceBytes = request.trace?.source.bytes ?? 0;
      const n = shardCount(this.size, plan, traceBytes);
      // A trace that fits the budget is read once into memory, however many workers replay it.
      const trace = request.trace && traceBytes <= TRACE_POOL_BYTES ? await this.inMemory(request.trace) : request.trace;
      Pool.check(current);
      if (n <= 1) return first.run(trace ? { overrides: request.overrides, trace } : request, onProgress);

      const shardRequest: RunRequest = trace ? { overrides: request.overrides, trace } : { overrides: request.overrides };
      const latest = new Map<number, Extract<RunProgress, { kind: 'policy' }>>();
      const outputs: ShardOutput[] = await Promise.all(
        Array.from({ length: n }, (_, k) =>
          this.slot(k)
            .runJob('shard', { run: shardRequest, shardIndex: k + 1, shardCount: n }, (p) => {
              if (p.kind === 'read') {
                if (k === 0) onProgress(p);
                return;
              }
              latest.set(k, p);
              const least = leastAdvanced(latest, (q) => q.policyIndex + (q.total > 0 ? q.done / q.total : 0));
              if (least) onProgress(least);
            })
            .then((output) => {
              latest.delete(k);
              return output;
            }),
        ),
      );
      Pool.check(current);
      const merged = await first.runJob('merge', { kind: 'run', documents: outputs.map((o) => o.shardJson) });
      const head = outputs[0];
      return {
        resultsJson: merged.json,
        scenarioJson: head.scenarioJson,
        accepted: head.accepted,
        rejected: head.rejected,
        cdf: outputs.flatMap((o) => o.cdf).sort((a, b) => a.run - b.run).map(({ policy, x, y }) => ({ policy, x, y })),
        timelines: outputs.flatMap((o) => o.timelines).sort((a, b) => a.run - b.run),
        elapsedMs: performance.now() - started,
        memory: {
          heapBytes: outputs.reduce((sum, o) => sum + o.memory.heapBytes, 0),
          inUseBytes: outputs.reduce((sum, o) => sum + o.memory.inUseBytes, 0),
        },
        ...(head.trace ? { trace: head.trace } : {}),
      };
    });
  }

  /**
   * Reads a trace and describes it and the scenario's cluster (the guided
   * import: worker.ts, inspect), in the first worker, from the in-memory
   * copy a replay of the same source then reuses (that worker keeps the
   * parsed trace); a job of the pool's, as a run.
   */
  inspect(request: InspectRequest, onProgress: (progress: RunProgress) => void = () => {}): Promise<InspectResult> {
    return this.job(async (current) => {
      const trace = request.trace.source.bytes <= TRACE_POOL_BYTES ? await this.inMemory(request.trace) : request.trace;
      Pool.check(current);
      return this.slot(0).runJob('inspect', { overrides: request.overrides, trace }, onProgress);
    });
  }

  /** The core's smallest tensor parallelism for these overrides' model and GPU, with its reason (worker.ts); a job of the pool's, as a run. */
  smallestTp(overrides: Pair[]): Promise<TpPick | null> {
    return this.job(async () => (await this.slot(0).runJob('smallestTp', { overrides })).pick);
  }

  /**
   * The trace as an in-memory Blob, read from its source once per source
   * key: every worker streams this copy, never the file or the network.
   */
  private async inMemory(trace: TraceRequest): Promise<TraceRequest> {
    const source = trace.source;
    if (this.held?.key !== source.key) {
      let blob: Blob;
      try {
        if (source.kind === 'file') {
          blob = await new Response(source.file.stream()).blob();
        } else {
          const response = await fetch(source.url);
          if (!response.ok) throw new Error(`the trace excerpt could not be fetched (HTTP ${response.status})`);
          blob = await response.blob();
        }
      } catch (error) {
        throw new RunAborted(`${source.name} could not be read: ${error instanceof Error ? error.message : String(error)}`, 'failed');
      }
      const file = new File([blob], source.name);
      this.held = { key: source.key, source: { kind: 'file', key: source.key, name: source.name, file, bytes: file.size } };
    }
    return { ...trace, source: this.held.source };
  }
}

/** Sweeps (the Sweep panel) on a pool of workers. */
export class SweepPool extends Pool<'sweep'> {
  constructor(size?: number, createWorker?: () => Worker) {
    super('sweep', size, createWorker);
  }

  /**
   * Runs a sweep; as WorkerClient.run, spread over the pool. A sweep of a
   * trace runs whole in the first worker, which reads the trace once and
   * keeps it for the next sweep (the core merges no shards of a replay's sweep).
   */
  run(request: SweepRequest, onProgress: (progress: SweepProgress) => void = () => {}): Promise<SweepResult> {
    return this.job(async (current) => {
      const started = performance.now();
      const first = this.slot(0);
      if (request.trace) return first.run(request, onProgress);
      const plan: Plan = this.size > 1 ? await first.runJob('plan', { sweep: request }) : { runs: 1, work: 0 };
      Pool.check(current);
      const n = shardCount(this.size, plan);
      if (n <= 1) return first.run(request, onProgress);

      const latest = new Map<number, Extract<SweepProgress, { kind: 'point' }>>();
      const documents = await Promise.all(
        Array.from({ length: n }, (_, k) =>
          this.slot(k)
            .runJob('sweepShard', { sweep: request, shardIndex: k + 1, shardCount: n }, (p) => {
              if (p.kind === 'read') return; // a synthetic sweep reads no trace
              latest.set(k, p);
              const least = leastAdvanced(latest, (q) => q.point * (q.policyCount + 2) + q.phase + (q.total > 0 ? q.done / q.total : 0));
              if (least) onProgress(least);
            })
            .then((output) => {
              latest.delete(k);
              return output.shardJson;
            }),
        ),
      );
      Pool.check(current);
      const merged = await first.runJob('merge', { kind: 'sweep', documents });
      return { sweepJson: merged.json, elapsedMs: performance.now() - started };
    });
  }
}
