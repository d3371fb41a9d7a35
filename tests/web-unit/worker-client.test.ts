// The page's worker handle (one generic client for runs and sweeps):
// results, progress, cancel (terminate + fresh worker), and recovery from a
// crashed worker, with a scripted stand-in for the worker.
import { describe, expect, it } from 'vitest';
import type { FromWorker, JobKind, ToWorker } from '../../web/src/worker/protocol';
import { RunAborted, WorkerClient } from '../../web/src/worker/worker-client';

class FakeWorker {
  static all: FakeWorker[] = [];
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror: ((e: { message: string; preventDefault(): void }) => void) | null = null;
  onmessageerror: (() => void) | null = null;
  received: ToWorker[] = [];
  terminated = false;
  constructor() {
    FakeWorker.all.push(this);
  }
  postMessage(m: ToWorker) {
    this.received.push(m);
  }
  terminate() {
    this.terminated = true;
  }
  reply(m: FromWorker) {
    this.onmessage?.({ data: m });
  }
  crash(message: string) {
    this.onerror?.({ message, preventDefault() {} });
  }
}

function client<K extends JobKind = 'run'>(kind: K = 'run' as K) {
  FakeWorker.all = [];
  const sim = new WorkerClient(kind, () => new FakeWorker() as unknown as Worker);
  const crashes: string[] = [];
  sim.onCrash = (m) => crashes.push(m);
  return { sim, crashes, worker: (i: number) => FakeWorker.all[i] };
}

const result = (id: number): FromWorker => ({
  type: 'done',
  id,
  result: {
    resultsJson: '{}',
    scenarioJson: '{}',
    accepted: [],
    rejected: [],
    cdf: [],
    timelines: [],
    elapsedMs: 1,
    memory: { heapBytes: 0, inUseBytes: 0 },
  },
});

describe('WorkerClient', () => {
  it('returns the worker’s result and reports progress', async () => {
    const { sim, worker } = client();
    const progress: number[] = [];
    const run = sim.run({ overrides: [['seed', '1']] }, (p) => progress.push(p.kind === 'policy' ? p.done : -1));
    const sent = worker(0).received[0];
    expect(sent).toEqual({ type: 'job', kind: 'run', id: 1, request: { overrides: [['seed', '1']] } });
    worker(0).reply({ type: 'progress', id: 1, progress: { kind: 'read', name: 'a.jsonl', bytes: 5, totalBytes: 10, lines: 1, requests: 1 } });
    worker(0).reply({ type: 'progress', id: 1, progress: { kind: 'policy', policyIndex: 0, policyCount: 4, policy: 'affinity', done: 10, total: 20 } });
    worker(0).reply(result(1));
    await expect(run).resolves.toMatchObject({ resultsJson: '{}', elapsedMs: 1 });
    expect(progress).toEqual([-1, 10]);
    expect(sim.busy).toBe(false);
  });

  it('drives a sweep the same way; replies to an older job are ignored', async () => {
    const { sim, worker } = client('sweep');
    const points: number[] = [];
    const first = sim.run({ overrides: [], spec: 'seed=1,2' });
    const second = sim.run({ overrides: [], spec: 'seed=1,2,3' }, (p) => points.push(p.pointCount));
    await expect(first).rejects.toMatchObject({ reason: 'superseded' });
    expect(worker(1).received[0]).toEqual({ type: 'job', kind: 'sweep', id: 2, request: { overrides: [], spec: 'seed=1,2,3' } });
    worker(1).reply({ type: 'progress', id: 1, progress: { point: 0, pointCount: 2, phase: 0, policyCount: 4, done: 0, total: 0 } });
    worker(1).reply({ type: 'done', id: 1, result: { sweepJson: 'old', elapsedMs: 1 } });
    worker(1).reply({ type: 'progress', id: 2, progress: { point: 0, pointCount: 3, phase: 0, policyCount: 4, done: 0, total: 0 } });
    worker(1).reply({ type: 'done', id: 2, result: { sweepJson: '{"schema":"prefixroute.sweep/1"}', elapsedMs: 2 } });
    await expect(second).resolves.toEqual({ sweepJson: '{"schema":"prefixroute.sweep/1"}', elapsedMs: 2 });
    expect(points).toEqual([3]);
  });

  it('cancels by terminating the worker; the next run gets a fresh one', async () => {
    const { sim, worker } = client();
    const run = sim.run({ overrides: [] });
    sim.cancel();
    await expect(run).rejects.toMatchObject({ reason: 'cancelled' });
    expect(worker(0).terminated).toBe(true);
    const next = sim.run({ overrides: [] });
    expect(FakeWorker.all).toHaveLength(2);
    worker(1).reply(result(2));
    await expect(next).resolves.toBeTruthy();
  });

  it('a newer run supersedes the one in progress', async () => {
    const { sim, worker } = client();
    const first = sim.run({ overrides: [['seed', '1']] });
    const second = sim.run({ overrides: [['seed', '2']] });
    await expect(first).rejects.toBeInstanceOf(RunAborted);
    await expect(first).rejects.toMatchObject({ reason: 'superseded' });
    worker(1).reply(result(2));
    await expect(second).resolves.toBeTruthy();
  });

  it('reports a crashed worker, rejects its run, and restarts on the next run', async () => {
    const { sim, crashes, worker } = client();
    const run = sim.run({ overrides: [] });
    worker(0).crash('out of memory');
    await expect(run).rejects.toMatchObject({ reason: 'crashed' });
    expect(crashes).toEqual(['out of memory']);
    expect(worker(0).terminated).toBe(true);
    const again = sim.run({ overrides: [] });
    worker(1).reply(result(2));
    await expect(again).resolves.toBeTruthy();
  });

  it('a failed run replaces the worker (the module may be broken after an abort)', async () => {
    const { sim, worker } = client();
    const run = sim.run({ overrides: [] });
    worker(0).reply({ type: 'failed', id: 1, message: 'RuntimeError: unreachable' });
    await expect(run).rejects.toMatchObject({ reason: 'failed', message: 'RuntimeError: unreachable' });
    expect(worker(0).terminated).toBe(true);
  });

  it('stops restarting a worker that keeps crashing', async () => {
    const { sim, worker } = client();
    for (let i = 0; i < 3; i++) {
      const run = sim.run({ overrides: [] });
      worker(i).crash('boom');
      await expect(run).rejects.toBeInstanceOf(RunAborted);
    }
    await expect(sim.run({ overrides: [] })).rejects.toThrow(/keeps crashing/);
  });

  it('init resolves with the schema and the catalogue', async () => {
    const { sim, worker } = client();
    const ready = sim.init();
    worker(0).reply({ type: 'ready', schema: '{}', catalogue: [{ name: 'affinity', label: 'Affinity' }] });
    await expect(ready).resolves.toEqual({ schema: '{}', catalogue: [{ name: 'affinity', label: 'Affinity' }] });
  });
});
