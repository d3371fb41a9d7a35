// The page's pools of workers (web/src/worker/worker-pool.ts), with scripted
// stand-ins for the workers: how many shards a job gets, that every shard is
// asked for once and their documents merged in one worker, that a job of one
// run runs whole (a synthetic one in a single job: runOrPlan), that a newer
// job supersedes the one in progress and lets its workers go, and that a
// replayed trace is read from its source once.
// (The real module's merge is byte-identical to one worker's: tests/js/shards.test.mjs,
// tests/e2e/pool.test.mjs.)
import { describe, expect, it } from 'vitest';
import type { FromWorker, ShardOutput, ToWorker } from '../../web/src/worker/protocol';
import type { TraceSource } from '../../web/src/trace/trace-source';
import { RunAborted } from '../../web/src/worker/worker-client';
import { MIN_SHARDED_WORK, shardCount, TRACE_POOL_BYTES } from '../../web/src/worker/shard-count';
import { MAX_WORKERS, RunPool, SweepPool } from '../../web/src/worker/worker-pool';

/** A worker that answers each job by `answer` after a tick (or never, when it returns null). */
class ScriptedWorker {
  static all: ScriptedWorker[] = [];
  onmessage: ((e: { data: FromWorker }) => void) | null = null;
  onerror = null;
  onmessageerror = null;
  received: ToWorker[] = [];
  terminated = false;
  constructor(private readonly answer: (m: ToWorker) => FromWorker | null) {
    ScriptedWorker.all.push(this);
  }
  postMessage(m: ToWorker) {
    this.received.push(m);
    const reply = this.answer(m);
    if (reply) setTimeout(() => !this.terminated && this.onmessage?.({ data: reply }), 0);
  }
  terminate() {
    this.terminated = true;
  }
}

const shardOutput = (shardJson: string, runs: number[]): ShardOutput => ({
  shardJson,
  scenarioJson: '{"seed":1}',
  accepted: [],
  rejected: [],
  cdf: runs.map((run) => ({ policy: `p${run}`, run, x: [run], y: [1] })),
  // Only the fields the pool reads; the arrays pass through untouched.
  timelines: runs.map((run) => ({ policy: `p${run}`, run }) as ShardOutput['timelines'][number]),
  memory: { heapBytes: 10, inUseBytes: 1 },
});

const wholeRun = { resultsJson: 'whole', scenarioJson: '{}', accepted: [], rejected: [], cdf: [], timelines: [], elapsedMs: 1, memory: { heapBytes: 0, inUseBytes: 0 } };

/** Answers as the real worker would for a job of `runs` runs (shard K of N: the runs i with i mod N == K - 1). */
function scripted(runs: number, hang = false) {
  return (m: ToWorker): FromWorker | null => {
    if (m.type !== 'job' || hang) return null;
    switch (m.kind) {
      case 'plan':
        return { type: 'done', id: m.id, result: { runs, work: runs * 10_000 } };
      case 'shard': {
        const { shardIndex: k, shardCount: n } = m.request;
        const mine = Array.from({ length: runs }, (_, i) => i).filter((i) => i % n === k - 1);
        return { type: 'done', id: m.id, result: shardOutput(`${k}/${n}`, mine) };
      }
      case 'sweepShard':
        return { type: 'done', id: m.id, result: { shardJson: `${m.request.shardIndex}/${m.request.shardCount}` } };
      case 'merge':
        return { type: 'done', id: m.id, result: { json: `merged ${m.request.kind}: ${m.request.documents.join(' ')}` } };
      case 'runOrPlan': {
        const plan = { runs, work: runs * 10_000 };
        return { type: 'done', id: m.id, result: shardCount(m.request.poolSize, plan) > 1 ? { plan } : { result: wholeRun } };
      }
      case 'run':
        return { type: 'done', id: m.id, result: wholeRun };
      case 'sweep':
        return { type: 'done', id: m.id, result: { sweepJson: 'whole sweep', elapsedMs: 1 } };
    }
  };
}

function runPool(size: number, answer: (m: ToWorker) => FromWorker | null) {
  ScriptedWorker.all = [];
  return new RunPool(size, () => new ScriptedWorker(answer) as unknown as Worker);
}

const jobsOf = (w: ScriptedWorker) => w.received.flatMap((m) => (m.type === 'job' ? [m.kind] : []));

describe('shardCount', () => {
  it('is the pool size, at most the runs, fewer for a large trace, one for a small job', () => {
    const big = (runs: number) => ({ runs, work: MIN_SHARDED_WORK });
    expect(shardCount(8, big(6))).toBe(6);
    expect(shardCount(4, big(6))).toBe(4);
    expect(shardCount(4, big(0))).toBe(1);
    expect(shardCount(4, { runs: 6, work: MIN_SHARDED_WORK - 1 })).toBe(1);
    expect(shardCount(4, { runs: 12, work: Infinity }, 1000)).toBe(4);
    expect(shardCount(4, big(40), TRACE_POOL_BYTES / 2)).toBe(2);
    expect(shardCount(4, big(40), TRACE_POOL_BYTES * 2)).toBe(1);
    expect(MAX_WORKERS).toBe(8);
  });
});

describe('RunPool', () => {
  it('runs shard K of N in worker K and merges the documents in the first worker', async () => {
    const pool = runPool(4, scripted(6));
    const result = await pool.run({ overrides: [['seed', '1']] });
    expect(ScriptedWorker.all).toHaveLength(4);
    expect(jobsOf(ScriptedWorker.all[0])).toEqual(['runOrPlan', 'shard', 'merge']);
    for (const w of ScriptedWorker.all.slice(1)) expect(jobsOf(w)).toEqual(['shard']);
    expect(result.resultsJson).toBe('merged run: 1/4 2/4 3/4 4/4');
    // The charts' series in run order, as one worker gives them.
    expect(result.cdf.map((c) => c.policy)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(result.timelines.map((t) => t.policy)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    expect(result.memory).toEqual({ heapBytes: 40, inUseBytes: 4 });
    expect(result.scenarioJson).toBe('{"seed":1}');
  });

  it('runs a job of one run (or a small one, or one that does not validate) whole in the first worker, in one job', async () => {
    const pool = runPool(4, scripted(1));
    expect((await pool.run({ overrides: [] })).resultsJson).toBe('whole');
    expect(ScriptedWorker.all).toHaveLength(1);
    expect(jobsOf(ScriptedWorker.all[0])).toEqual(['runOrPlan']);
  });

  it('passes on the progress of a whole runOrPlan run, and cancels it', async () => {
    const progress = { type: 'progress', id: 0, progress: { kind: 'policy', policyIndex: 1, policyCount: 2, policy: 'p1', done: 5, total: 10 } } as const;
    // A worker that reports progress for the job, then answers it or hangs (null).
    const pool = (hang: boolean) =>
      runPool(2, (m) => {
        if (m.type !== 'job') return null;
        const w = ScriptedWorker.all.at(-1)!;
        setTimeout(() => !w.terminated && w.onmessage?.({ data: { ...progress, id: m.id } }), 0);
        return hang ? null : scripted(1)(m);
      });
    const heard: unknown[] = [];
    expect((await pool(false).run({ overrides: [] }, (p) => heard.push(p))).resultsJson).toBe('whole');
    expect(heard).toEqual([progress.progress]);
    const hanging = pool(true);
    const run = hanging.run({ overrides: [] });
    await new Promise((r) => setTimeout(r, 5));
    hanging.cancel();
    await expect(run).rejects.toMatchObject({ reason: 'cancelled' });
    expect(ScriptedWorker.all.every((w) => w.terminated)).toBe(true);
  });

  it('asks for the plan of a replay first, then runs a small one whole', async () => {
    const bytes = new TextEncoder().encode('{"timestamp":0}\n');
    const file = { stream: () => new Blob([bytes]).stream() } as unknown as File;
    const source: TraceSource = { kind: 'file', key: 'f0', name: 't.jsonl', file, bytes: bytes.length };
    const pool = runPool(2, scripted(1));
    expect((await pool.run({ overrides: [], trace: { source, onError: 'stop', contentHash: '' } })).resultsJson).toBe('whole');
    expect(jobsOf(ScriptedWorker.all[0])).toEqual(['plan', 'run']);
  });

  it('a newer job supersedes the one in progress and lets its workers go', async () => {
    let hang = true;
    const pool = runPool(2, (m) => scripted(6, hang && m.type === 'job' && m.kind === 'shard')(m));
    const first = pool.run({ overrides: [['seed', '1']] });
    await new Promise((r) => setTimeout(r, 5));
    expect(pool.busy).toBe(true);
    const stuck = ScriptedWorker.all.slice();
    expect(stuck).toHaveLength(2);
    hang = false;
    const second = pool.run({ overrides: [['seed', '2']] });
    await expect(first).rejects.toMatchObject({ reason: 'superseded' });
    expect(stuck.every((w) => w.terminated)).toBe(true);
    expect((await second).resultsJson).toBe('merged run: 1/2 2/2');
    expect(pool.busy).toBe(false);
  });

  it('cancel rejects the job as cancelled', async () => {
    const pool = runPool(2, (m) => scripted(6, m.type === 'job' && m.kind === 'shard')(m));
    const run = pool.run({ overrides: [] });
    await new Promise((r) => setTimeout(r, 5));
    pool.cancel();
    await expect(run).rejects.toBeInstanceOf(RunAborted);
    await expect(run).rejects.toMatchObject({ reason: 'cancelled' });
  });

  it('reads a replayed trace from its source once, and hands every worker the same in-memory copy', async () => {
    let reads = 0;
    const bytes = new TextEncoder().encode('{"timestamp":0}\n');
    const file = { stream: () => (reads++, new Blob([bytes]).stream()) } as unknown as File;
    const source: TraceSource = { kind: 'file', key: 'f1', name: 't.jsonl', file, bytes: bytes.length };
    const pool = runPool(3, scripted(6));
    await pool.run({ overrides: [], trace: { source, onError: 'stop', contentHash: '' } });
    await pool.run({ overrides: [['seed', '2']], trace: { source, onError: 'stop', contentHash: '' } });
    expect(reads).toBe(1);
    const handed = ScriptedWorker.all.flatMap((w) =>
      w.received.flatMap((m) => (m.type === 'job' && m.kind === 'shard' ? [m.request.run.trace!.source] : [])));
    expect(handed).toHaveLength(6);
    for (const s of handed) {
      expect(s.kind).toBe('file');
      expect(s.key).toBe('f1');
      expect(s === handed[0]).toBe(true);
    }
  });
});

describe('RunPool, one worker', () => {
  it('hands the one worker the in-memory copy too: a cancel never makes it read the file again', async () => {
    let reads = 0;
    const bytes = new TextEncoder().encode('{"timestamp":0}\n');
    const file = { stream: () => (reads++, new Blob([bytes]).stream()) } as unknown as File;
    const source: TraceSource = { kind: 'file', key: 'f2', name: 't.jsonl', file, bytes: bytes.length };
    let runs = 0;
    // The first run never answers (it is cancelled); the next does.
    const pool = runPool(1, (m) => scripted(6, m.type === 'job' && m.kind === 'run' && runs++ === 0)(m));
    const first = pool.run({ overrides: [], trace: { source, onError: 'stop', contentHash: '' } });
    while (runs === 0) await new Promise((r) => setTimeout(r, 1));
    pool.cancel();
    await expect(first).rejects.toMatchObject({ reason: 'cancelled' });
    await pool.run({ overrides: [], trace: { source, onError: 'stop', contentHash: '' } });
    expect(reads).toBe(1);
    const handed = ScriptedWorker.all.flatMap((w) => w.received.flatMap((m) => (m.type === 'job' && m.kind === 'run' ? [m.request.trace!.source] : [])));
    expect(handed.length).toBeGreaterThan(0);
    for (const s of handed) expect(s.kind === 'file' && s.file !== file).toBe(true);
  });
});

describe('SweepPool', () => {
  it('shards a sweep and merges it as a sweep', async () => {
    ScriptedWorker.all = [];
    const pool = new SweepPool(3, () => new ScriptedWorker(scripted(30)) as unknown as Worker);
    expect((await pool.run({ overrides: [], spec: 'seed=1,2' })).sweepJson).toBe('merged sweep: 1/3 2/3 3/3');
    expect(jobsOf(ScriptedWorker.all[0])).toEqual(['plan', 'sweepShard', 'merge']);
  });
});
