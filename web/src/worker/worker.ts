// The simulation worker: every call into the wasm core happens here, so the
// page's main thread only draws. One job at a time; a job cannot be
// interrupted from outside except by terminating the worker, which is how the
// page cancels (see worker-client.ts). The page runs pools of these workers
// (worker-pool.ts), one for its scenario runs and one for sweeps; every
// worker serves every kind of job: a whole run or sweep, the plan of one (how
// many runs it is), a run unless the pool would split it (its plan then),
// one shard of it, and the merge of the shards.
//
// Trace replay: the worker reads the trace itself (a File or Blob handle, or
// the excerpt's URL, streamed in chunks into the core's TraceLoader) and
// keeps the last loaded trace (worker-trace.ts).
/// <reference lib="webworker" />

import { cdfPoints } from './cdf';
import { loadModule } from './load-module';
import type { FieldError, PolicySeries, PrefixrouteModule } from './prefixroute-module';
import type { FromWorker, InspectRequest, MergeRequest, TpPick, Plan, PlanRequest, RunOrPlanRequest, RunProgress, RunRequest, RunResult, ShardRequest, ToWorker } from './protocol';
import type { TraceSummary } from '../trace/trace-summary';
import { resolveOverrides, type Resolved } from '../state/resolve';
import { shardCount } from './shard-count';
import { runSweep, runSweepShard, sweepPlan } from './sweep-worker';
import { runCapacity } from './capacity-worker';
import type { Pair } from '../state/schema';
import { loadedSummary, loadTrace, PROGRESS_INTERVAL_MS } from './worker-trace';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (message: FromWorker) => scope.postMessage(message);
const progress = (id: number, p: RunProgress) => post({ type: 'progress', id, progress: p });

/** The scenario's policies, replicates (its run list is replicates x (policies + 2) runs) and requests. */
function shapeOf(scenarioJson: string): { policies: string[]; replicates: number; requests: number } {
  try {
    const doc = JSON.parse(scenarioJson) as { policies?: unknown; replicates?: unknown; workload?: { requests?: unknown } };
    const requests = doc.workload?.requests;
    return {
      policies: Array.isArray(doc.policies) ? doc.policies.map(String) : [],
      replicates: typeof doc.replicates === 'number' && doc.replicates >= 1 ? doc.replicates : 1,
      requests: typeof requests === 'number' && requests >= 0 ? requests : 0,
    };
  } catch {
    return { policies: [], replicates: 1, requests: 0 };
  }
}

function resolve(mod: PrefixrouteModule, overrides: Pair[]): Resolved {
  return resolveOverrides((o) => mod.validateScenario('{}', JSON.stringify(o)), overrides);
}

function errorText(errors: FieldError[], fallback: string): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ') || fallback;
}

/** The core's progress callback, throttled, as the page's RunProgress (policyIndex: the run's index in the run list). */
function policyProgress(id: number, policies: string[]) {
  let last = 0;
  return (run: number, done: number, total: number) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS || done === total) {
      last = now;
      progress(id, { kind: 'policy', policyIndex: run, policyCount: policies.length, policy: policies[run % (policies.length + 2)] ?? '', done, total });
    }
    return true;
  };
}

/** The overrides a replay runs with: the accepted ones, the bad-line mode and the content hash a link asks for. */
/** The scenario's trace reading settings (window, limit, time scale): the loader's, a change reads the trace again. */
function readSettings(resolved: Resolved): Pair[] {
  return resolved.accepted.filter(([key]) => key.startsWith('trace.'));
}

function traceOverrides(resolved: Resolved, trace: NonNullable<RunRequest['trace']>): string {
  const pairs: Pair[] = [...resolved.accepted, ['trace.on_error', trace.onError]];
  if (trace.contentHash) pairs.push(['trace.content_hash', trace.contentHash]);
  return JSON.stringify(pairs);
}

type Outcome<T> = ({ ok: true } & T) | { ok: false; errors: FieldError[] };

/** A whole scenario run; its result, or undefined when it posted its failure. */
async function runWhole(mod: PrefixrouteModule, id: number, { trace }: RunRequest, resolved: Resolved, started: number): Promise<RunResult | undefined> {
  const onProgress = policyProgress(id, shapeOf(resolved.scenarioJson).policies);
  let outcome: Outcome<{ resultsJson: string; series: PolicySeries[]; scenarioJson?: string }>;
  let summary: TraceSummary | undefined;
  if (trace) {
    const loader = await loadTrace(mod, id, trace, post, readSettings(resolved));
    if (!loader) return undefined;
    summary = loadedSummary();
    outcome = mod.runTrace(loader, '{}', traceOverrides(resolved, trace), onProgress);
  } else {
    outcome = mod.runScenario('{}', JSON.stringify(resolved.accepted), onProgress);
  }
  if (!outcome.ok) {
    post({ type: 'failed', id, message: errorText(outcome.errors, 'the run failed') });
    return undefined;
  }
  return {
    resultsJson: outcome.resultsJson,
    scenarioJson: outcome.scenarioJson ?? resolved.scenarioJson,
    accepted: resolved.accepted,
    rejected: resolved.rejected,
    cdf: outcome.series.map((s) => ({ policy: s.policy, ...cdfPoints(s.ttftMs) })),
    timelines: outcome.series.flatMap((s) => (s.timeline ? [{ policy: s.policy, ...s.timeline }] : [])),
    elapsedMs: performance.now() - started,
    memory: mod.memoryStats(),
    ...(summary ? { trace: summary } : {}),
  };
}

async function run(mod: PrefixrouteModule, id: number, request: RunRequest): Promise<void> {
  const started = performance.now();
  const result = await runWhole(mod, id, request, resolve(mod, request.overrides), started);
  if (result) post({ type: 'done', id, result });
}

/** How many runs a resolved scenario run is, and the requests its policies simulate. */
function runPlan(resolved: Resolved, isTrace: boolean): Plan {
  const { policies, replicates, requests } = shapeOf(resolved.scenarioJson);
  return {
    runs: policies.length > 0 ? replicates * (policies.length + 2) : 0,
    work: isTrace ? Infinity : requests * replicates * policies.length,
  };
}

/** Runs the plan of a run or a sweep: how many runs it is (0 when it does not validate). */
function plan(mod: PrefixrouteModule, request: PlanRequest): Plan {
  if (request.sweep) return sweepPlan(mod, request.sweep);
  if (!request.run) return { runs: 0, work: 0 };
  return runPlan(resolve(mod, request.run.overrides), Boolean(request.run.trace));
}

/** A run on a pool: whole here when the pool would not split it, else only its plan (resolved once either way). */
async function runOrPlan(mod: PrefixrouteModule, id: number, { run: request, poolSize }: RunOrPlanRequest): Promise<void> {
  const started = performance.now();
  const resolved = resolve(mod, request.overrides);
  const planned = runPlan(resolved, false);
  if (shardCount(poolSize, planned) > 1) {
    post({ type: 'done', id, result: { plan: planned } });
    return;
  }
  const result = await runWhole(mod, id, request, resolved, started);
  if (result) post({ type: 'done', id, result: { result } });
}

/** Runs one shard of a scenario run (runShard, or runTraceShard on the trace this worker holds). */
async function shard(mod: PrefixrouteModule, id: number, { run: request, shardIndex, shardCount: count }: ShardRequest): Promise<void> {
  const resolved = resolve(mod, request.overrides);
  const onProgress = policyProgress(id, shapeOf(resolved.scenarioJson).policies);
  const trace = request.trace;
  let outcome: Outcome<{ shardJson: string; series: (PolicySeries & { run: number })[]; scenarioJson?: string }>;
  let summary: TraceSummary | undefined;
  if (trace) {
    const loader = await loadTrace(mod, id, trace, post, readSettings(resolved));
    if (!loader) return;
    summary = loadedSummary();
    outcome = mod.runTraceShard(loader, '{}', traceOverrides(resolved, trace), shardIndex, count, onProgress);
  } else {
    outcome = mod.runShard('{}', JSON.stringify(resolved.accepted), shardIndex, count, onProgress);
  }
  if (!outcome.ok) {
    post({ type: 'failed', id, message: errorText(outcome.errors, 'the run failed') });
    return;
  }
  post({
    type: 'done',
    id,
    result: {
      shardJson: outcome.shardJson,
      scenarioJson: outcome.scenarioJson ?? resolved.scenarioJson,
      accepted: resolved.accepted,
      rejected: resolved.rejected,
      cdf: outcome.series.map((s) => ({ policy: s.policy, run: s.run, ...cdfPoints(s.ttftMs) })),
      timelines: outcome.series.flatMap((s) => (s.timeline ? [{ policy: s.policy, run: s.run, ...s.timeline }] : [])),
      memory: mod.memoryStats(),
      ...(summary ? { trace: summary } : {}),
    },
  });
}

/**
 * Reads the trace of the guided import (kept, as a run's, for the replay
 * that follows) and reports what the core read and the cluster the scenario
 * models: its canonical JSON and the hardware summary.
 */
async function inspect(mod: PrefixrouteModule, id: number, { overrides, trace }: InspectRequest): Promise<void> {
  const resolved = resolve(mod, overrides);
  const loader = await loadTrace(mod, id, trace, post, readSettings(resolved));
  if (!loader) return;
  const summary = loadedSummary();
  if (!summary) throw new Error('the trace was read but no summary was kept');
  const hardware = mod.hardwareSummary('{}', JSON.stringify(resolved.accepted));
  post({
    type: 'done',
    id,
    result: { trace: summary, scenarioJson: resolved.scenarioJson, hardwareJson: hardware.ok ? hardware.summaryJson : '', rejected: resolved.rejected },
  });
}

/**
 * The core's smallest tensor parallelism for the scenario's model on its GPU
 * (cluster/tp_choice.h), with its one-line reason; null when the scenario
 * names no model or the fields the choice reads are refused (the run says why).
 */
function smallestTp(mod: PrefixrouteModule, overrides: Pair[]): TpPick | null {
  const choice = mod.smallestTp('{}', JSON.stringify(overrides));
  return choice.ok ? { tp: choice.tp, minFitTp: choice.minFitTp, holdsContext: choice.holdsContext, reason: choice.reason } : null;
}

/** Merges a split's shard documents into the results (or sweep) JSON one worker would have written. */
function merge(mod: PrefixrouteModule, id: number, { kind, documents }: MergeRequest): void {
  const merged = kind === 'run' ? mod.mergeShards(documents) : mod.mergeSweepShards(documents);
  if (!merged.ok) {
    post({ type: 'failed', id, message: errorText(merged.errors, 'the shards could not be merged') });
    return;
  }
  post({ type: 'done', id, result: { json: 'resultsJson' in merged ? merged.resultsJson : merged.sweepJson } });
}

// Registered synchronously: awaiting the module first could lose the first message.
scope.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  const id = message.type === 'job' ? message.id : null;
  try {
    const mod = await loadModule();
    if (message.type === 'init') {
      post({ type: 'ready', schema: mod.scenarioSchema(), catalogue: mod.policyCatalogue() });
      return;
    }
    switch (message.kind) {
      case 'run':
        return await run(mod, message.id, message.request);
      case 'sweep':
        return await runSweep(mod, message.id, message.request, post);
      case 'capacity':
        return await runCapacity(mod, message.id, message.request, post);
      case 'plan':
        return post({ type: 'done', id: message.id, result: plan(mod, message.request) });
      case 'runOrPlan':
        return await runOrPlan(mod, message.id, message.request);
      case 'shard':
        return await shard(mod, message.id, message.request);
      case 'sweepShard':
        return runSweepShard(mod, message.id, message.request, post);
      case 'merge':
        return merge(mod, message.id, message.request);
      case 'inspect':
        return await inspect(mod, message.id, message.request);
      case 'smallestTp':
        return post({ type: 'done', id: message.id, result: { pick: smallestTp(mod, message.request.overrides) } });
    }
  } catch (error) {
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  }
};
