// The page's handle on the simulation worker. A run in progress cannot be
// interrupted inside the worker (the core runs synchronously there), so
// cancelling terminates the worker and starts a fresh one; the module is
// compiled again from the browser's cache, which takes milliseconds. A
// worker that dies is reported and replaced the same way.

import type { PolicyInfo } from './prefixroute-module';
import type { CdfSeries, FromWorker, Rejection, ToWorker, TraceRequest, TraceSummary } from './protocol';
import type { Pair } from './url-state';

export interface SimReady {
  schema: string;
  catalogue: PolicyInfo[];
}

export interface SimResult {
  resultsJson: string;
  scenarioJson: string;
  accepted: Pair[];
  rejected: Rejection[];
  cdf: CdfSeries[];
  elapsedMs: number;
  /** The worker's wasm heap and malloc'd bytes after the run. */
  memory: { heapBytes: number; inUseBytes: number };
  /** The replayed trace, when the run replayed one. */
  trace?: TraceSummary;
}

export interface ProgressInfo {
  policyIndex: number;
  policyCount: number;
  policy: string;
  done: number;
  total: number;
}

export type Progress = (info: ProgressInfo) => void;

/** Reading a trace before the run: bytes of totalBytes, lines and requests so far. */
export interface ReadProgressInfo {
  name: string;
  bytes: number;
  totalBytes: number;
  lines: number;
  requests: number;
}

export type ReadProgress = (info: ReadProgressInfo) => void;

/** Why a run did not give results. */
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

interface Pending {
  id: number;
  resolve: (r: SimResult) => void;
  reject: (e: RunAborted) => void;
  onProgress: Progress;
  onRead: ReadProgress;
}

export class SimClient {
  private worker: Worker | null = null;
  private pending: Pending | null = null;
  private readyWaiters: { resolve: (r: SimReady) => void; reject: (e: Error) => void }[] = [];
  private nextId = 1;
  /** Consecutive crashes without a successful message; stops restart loops. */
  private crashes = 0;

  /** Called when a worker died, with the reason; the client has already replaced it. */
  onCrash: (message: string) => void = () => {};

  constructor(private readonly createWorker: () => Worker = defaultWorker) {}

  /** Loads the module and returns the scenario schema and the policy catalogue. */
  init(): Promise<SimReady> {
    return new Promise((resolve, reject) => {
      this.readyWaiters.push({ resolve, reject });
      this.send({ type: 'init' });
    });
  }

  get busy(): boolean {
    return this.pending !== null;
  }

  /**
   * Runs a scenario, on a trace when one is given (the worker reads it first,
   * reporting through onRead, unless it still holds it from the last run); a
   * run still in progress is cancelled first (its promise rejects as 'superseded').
   */
  run(overrides: Pair[], onProgress: Progress = () => {}, trace?: TraceRequest, onRead: ReadProgress = () => {}): Promise<SimResult> {
    if (this.pending) this.abort('superseded', 'replaced by a newer run');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      try {
        this.send(trace ? { type: 'run', id, overrides, trace } : { type: 'run', id, overrides });
        this.pending = { id, resolve, reject, onProgress, onRead };
      } catch (error) {
        reject(new RunAborted(error instanceof Error ? error.message : String(error), 'crashed'));
      }
    });
  }

  /** Cancels the run in progress, if any, by replacing the worker. */
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
    if (this.crashes >= 3) throw new Error('the simulation worker keeps crashing; reload the page');
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
      case 'ready': {
        this.crashes = 0;
        for (const w of this.readyWaiters.splice(0)) w.resolve({ schema: message.schema, catalogue: message.catalogue });
        return;
      }
      case 'progress':
        if (this.pending?.id === message.id) {
          const { type: _type, id: _id, ...info } = message;
          this.pending.onProgress(info);
        }
        return;
      case 'read-progress':
        if (this.pending?.id === message.id) {
          const { type: _type, id: _id, ...info } = message;
          this.pending.onRead(info);
        }
        return;
      case 'result': {
        this.crashes = 0;
        const p = this.pending;
        if (p?.id !== message.id) return;
        this.pending = null;
        const { type: _type, id: _id, ...result } = message;
        p.resolve(result);
        return;
      }
      case 'failed': {
        if (message.id === null) {
          // init failed: the module did not load.
          const waiters = this.readyWaiters.splice(0);
          for (const w of waiters) w.reject(new Error(message.message));
          if (waiters.length === 0 && this.pending) this.abort('failed', message.message);
          return;
        }
        if (this.pending?.id !== message.id) return;
        // A failed run may have left the module in a bad state (e.g. out of memory): start afresh.
        this.abort('failed', message.message, message.trace);
        return;
      }
    }
  }
}

function defaultWorker(): Worker {
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'prefixroute-sim' });
}
