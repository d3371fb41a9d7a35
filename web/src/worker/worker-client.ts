// The page's handle on a simulation worker, for one kind of job (a scenario
// run, a sweep). A job in progress cannot be interrupted inside the worker
// (the core runs synchronously there), so cancelling terminates the worker
// and the next job starts a fresh one; the module is compiled again from the
// browser's cache, which takes milliseconds. A worker that dies, or whose
// job failed (the module may be broken after an abort), is replaced the same
// way. One job at a time: a new one supersedes the one in progress.
//
// Every client drives the same worker entry (worker.ts serves every kind);
// each client has a worker of its own, so a sweep (seconds to minutes) never
// holds up the page's runs and cancelling one never touches the other. The
// page's pools (worker-pool.ts) hold several clients and send them the other
// kinds of job (plan, shard, merge) through runJob.

import type { PolicyInfo } from './prefixroute-module';
import type { FromWorker, JobKind, JobMessage, Jobs, ToWorker } from './protocol';
import type { TraceSummary } from '../trace/trace-summary';

/** What the worker reports once the module is loaded: the scenario schema and the policy catalogue. */
export interface WorkerReady {
  schema: string;
  catalogue: PolicyInfo[];
}

/** Why a job gave no result. */
export class RunAborted extends Error {
  constructor(
    message: string,
    readonly reason: 'cancelled' | 'superseded' | 'failed' | 'crashed',
    /** When a trace could not be read: what was read and its problems. */
    readonly trace?: TraceSummary,
  ) {
    super(message);
  }
}

/** Consecutive crashes (without a successful reply in between) after which no new worker is started. */
const MAX_CRASHES = 3;

interface Pending {
  id: number;
  resolve: (result: Jobs[JobKind]['result']) => void;
  reject: (error: RunAborted) => void;
  onProgress: (progress: Jobs[JobKind]['progress']) => void;
}

/** Runs jobs of one kind in a worker of its own. */
export class WorkerClient<K extends JobKind> {
  private worker: Worker | null = null;
  private pending: Pending | null = null;
  private readyWaiters: { resolve: (r: WorkerReady) => void; reject: (e: Error) => void }[] = [];
  private nextId = 1;
  private crashes = 0;

  /** Called when a worker died, with the reason; the client has already let it go. */
  onCrash: (message: string) => void = () => {};

  constructor(
    private readonly kind: K,
    private readonly createWorker: () => Worker = () => defaultWorker(kind),
  ) {}

  /** Loads the module (in a worker started now) and returns the schema and the policy catalogue. */
  init(): Promise<WorkerReady> {
    return new Promise((resolve, reject) => {
      this.readyWaiters.push({ resolve, reject });
      try {
        this.send({ type: 'init' });
      } catch (error) {
        this.readyWaiters = this.readyWaiters.filter((w) => w.resolve !== resolve);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  get busy(): boolean {
    return this.pending !== null;
  }

  /**
   * Runs a job; `onProgress` hears from it until it ends. A job still in
   * progress is cancelled first (its promise rejects as 'superseded').
   */
  run(request: Jobs[K]['request'], onProgress: (progress: Jobs[K]['progress']) => void = () => {}): Promise<Jobs[K]['result']> {
    return this.runJob(this.kind, request, onProgress);
  }

  /** As run, for a job of any kind (the pools' plans, shards and merges). */
  runJob<J extends JobKind>(kind: J, request: Jobs[J]['request'], onProgress: (progress: Jobs[J]['progress']) => void = () => {}): Promise<Jobs[J]['result']> {
    if (this.pending) this.abort('superseded', 'replaced by a newer job');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      try {
        this.send({ type: 'job', kind, id, request } as JobMessage);
        this.pending = {
          id,
          resolve: resolve as Pending['resolve'],
          reject,
          onProgress: onProgress as Pending['onProgress'],
        };
      } catch (error) {
        reject(new RunAborted(error instanceof Error ? error.message : String(error), 'crashed'));
      }
    });
  }

  /** Cancels the job in progress, if any (its promise rejects as 'cancelled'), by letting its worker go. */
  cancel(): void {
    if (this.pending) this.abort('cancelled', 'cancelled');
  }

  private abort(reason: RunAborted['reason'], message: string, trace?: TraceSummary): void {
    const p = this.pending;
    this.pending = null;
    this.dispose();
    p?.reject(new RunAborted(message, reason, trace));
  }

  private dispose(): void {
    this.worker?.terminate();
    this.worker = null;
  }

  private send(message: ToWorker): void {
    this.ensureWorker().postMessage(message);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    if (this.crashes >= MAX_CRASHES) throw new Error('the simulation worker keeps crashing; reload the page');
    const worker = this.createWorker();
    worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.crash(e.message || 'the simulation worker failed to start or crashed');
    };
    worker.onmessageerror = () => this.crash('a message from the simulation worker could not be read');
    this.worker = worker;
    return worker;
  }

  private crash(message: string): void {
    this.crashes++;
    const p = this.pending;
    const waiters = this.readyWaiters.splice(0);
    this.pending = null;
    this.dispose();
    this.onCrash(message);
    p?.reject(new RunAborted(message, 'crashed'));
    for (const w of waiters) w.reject(new Error(message));
  }

  private receive(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        this.crashes = 0;
        for (const w of this.readyWaiters.splice(0)) w.resolve({ schema: message.schema, catalogue: message.catalogue });
        return;
      case 'progress':
        // Replies carry the id of this client's own job, so they are of its kind.
        if (this.pending?.id === message.id) this.pending.onProgress(message.progress);
        return;
      case 'done': {
        this.crashes = 0;
        const p = this.pending;
        if (p?.id !== message.id) return;
        this.pending = null;
        p.resolve(message.result);
        return;
      }
      case 'failed':
        if (message.id === null) {
          // The module did not load: whoever waits for it hears why.
          const waiters = this.readyWaiters.splice(0);
          for (const w of waiters) w.reject(new Error(message.message));
          if (waiters.length === 0 && this.pending) this.abort('failed', message.message);
          return;
        }
        if (this.pending?.id !== message.id) return;
        this.abort('failed', message.message, message.trace);
        return;
    }
  }
}

function defaultWorker(kind: JobKind): Worker {
  // Literal options, as Vite's worker bundling wants them; the name tells the workers apart in the browser's tools.
  return kind === 'sweep'
    ? new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'prefixroute-sweep' })
    : new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'prefixroute-sim' });
}
