// The Sweep panel's handle on a simulation worker of its own, so that a
// sweep (seconds to minutes) never holds up the page's scenario runs and
// cancelling one never touches the other. Like SimClient, it cancels by
// terminating the worker; the next sweep starts a fresh one.

import type { FromWorker, SweepProgressMessage, ToWorker } from './protocol';
import { RunAborted } from './sim-client';
import type { Pair } from './url-state';

/** Where a sweep is: point of pointCount, then phase (policy, or the bounds) and requests done. */
export type SweepProgressInfo = Omit<SweepProgressMessage, 'type' | 'id'>;

/** A finished sweep: the core's sweep JSON and the time it took in the worker. */
export interface SweepRunResult {
  sweepJson: string;
  elapsedMs: number;
}

interface Pending {
  id: number;
  resolve: (r: SweepRunResult) => void;
  reject: (e: RunAborted) => void;
  onProgress: (info: SweepProgressInfo) => void;
}

/** One sweep at a time; a new one supersedes the one running. */
export class SweepClient {
  private worker: Worker | null = null;
  private pending: Pending | null = null;
  private nextId = 1;

  constructor(private readonly createWorker: () => Worker = defaultWorker) {}

  get busy(): boolean {
    return this.pending !== null;
  }

  /** Runs `spec` (the CLI's --sweep text) on the scenario of `overrides`. */
  run(overrides: Pair[], spec: string, onProgress: (info: SweepProgressInfo) => void = () => {}): Promise<SweepRunResult> {
    if (this.pending) this.abort('superseded', 'replaced by a newer sweep');
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      try {
        const message: ToWorker = { type: 'sweep', id, overrides, spec };
        this.ensureWorker().postMessage(message);
        this.pending = { id, resolve, reject, onProgress };
      } catch (error) {
        reject(new RunAborted(error instanceof Error ? error.message : String(error), 'crashed'));
      }
    });
  }

  /** Stops the sweep in progress, if any (its promise rejects as 'cancelled'). */
  cancel(): void {
    if (this.pending) this.abort('cancelled', 'cancelled');
  }

  private abort(reason: RunAborted['reason'], message: string): void {
    const p = this.pending;
    this.pending = null;
    this.worker?.terminate();
    this.worker = null;
    p?.reject(new RunAborted(message, reason));
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = this.createWorker();
    worker.onmessage = (e: MessageEvent<FromWorker>) => this.receive(e.data);
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.abort('crashed', e.message || 'the sweep worker failed to start or crashed');
    };
    worker.onmessageerror = () => this.abort('crashed', 'a message from the sweep worker could not be read');
    this.worker = worker;
    return worker;
  }

  private receive(message: FromWorker): void {
    const p = this.pending;
    if (!p || !('id' in message) || message.id !== p.id) return;
    if (message.type === 'sweep-progress') {
      const { type: _type, id: _id, ...info } = message;
      p.onProgress(info);
    } else if (message.type === 'sweep-result') {
      this.pending = null;
      p.resolve({ sweepJson: message.sweepJson, elapsedMs: message.elapsedMs });
    } else if (message.type === 'failed') {
      // A failed sweep may have left the module in a bad state: start afresh next time.
      this.abort('failed', message.message);
    }
  }
}

function defaultWorker(): Worker {
  return new Worker(new URL('./worker.ts', import.meta.url), { type: 'module', name: 'prefixroute-sweep' });
}
