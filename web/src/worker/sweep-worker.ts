// The worker's side of a sweep: expands the spec with the core's expandSweep
// (the values runSweep will run, integer fields rounded as the core rounds
// them), runs the core's runSweep (or one shard of it, runSweepShard, for the
// page's pool of workers; or runTraceSweep on a replayed trace, whole) on the
// page's scenario and posts throttled progress, then the sweep (or shard) JSON. Runs inside a simulation worker
// (worker.ts), never on the page's main thread.

import type { PrefixrouteModule } from './prefixroute-module';
import type { Pair } from '../state/schema';
import type { FromWorker, Plan, SweepProgress, SweepRequest, SweepShardRequest } from './protocol';
import { loadTrace } from './worker-trace';

/** Progress messages at most this often. */
const PROGRESS_INTERVAL_MS = 50;

/** The base scenario's policy, replicate and request counts (0 policies: it does not validate). */
function shapeOf(mod: PrefixrouteModule, overridesJson: string): { policies: number; replicates: number; requests: number } {
  const checked = mod.validateScenario('{}', overridesJson);
  try {
    const doc = JSON.parse(checked.ok ? checked.scenarioJson : '{}') as { policies?: unknown; replicates?: unknown; workload?: { requests?: unknown } };
    const requests = doc.workload?.requests;
    return {
      policies: Array.isArray(doc.policies) ? doc.policies.length : 0,
      replicates: typeof doc.replicates === 'number' && doc.replicates >= 1 ? doc.replicates : 1,
      requests: typeof requests === 'number' && requests >= 0 ? requests : 0,
    };
  } catch {
    return { policies: 0, replicates: 1, requests: 0 };
  }
}

function policyCount(mod: PrefixrouteModule, overridesJson: string): number {
  return shapeOf(mod, overridesJson).policies;
}

/**
 * How many runs the sweep is, points x replicates x (policies + 2), and the
 * requests its policy runs simulate, from the base scenario (a sweep of
 * policies, replicates or requests makes these estimates, which only size
 * the pool). 0 runs when the spec or the scenario does not read.
 */
export function sweepPlan(mod: PrefixrouteModule, request: SweepRequest): Plan {
  const expansion = mod.expandSweep(request.spec);
  if (!expansion.ok) return { runs: 0, work: 0 };
  const { policies, replicates, requests } = shapeOf(mod, JSON.stringify(request.overrides));
  const points = expansion.values.length;
  return { runs: policies > 0 ? points * replicates * (policies + 2) : 0, work: points * replicates * policies * requests };
}

function errorText(errors: { field: string; message: string }[], fallback: string): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ') || fallback;
}

/**
 * Runs one sweep job to completion (or failure) and posts its messages. A
 * sweep of a trace reads it first (or reuses the one this worker holds:
 * worker-trace.ts) and runs the core's runTraceSweep, every point replaying it.
 */
export async function runSweep(mod: PrefixrouteModule, id: number, request: SweepRequest, post: (m: FromWorker) => void): Promise<void> {
  const started = performance.now();
  const expansion = mod.expandSweep(request.spec);
  if (!expansion.ok) {
    post({ type: 'failed', id, message: errorText(expansion.errors, 'the sweep could not be read') });
    return;
  }
  const overridesJson = JSON.stringify(request.overrides);
  const pointCount = expansion.values.length;
  const policies = policyCount(mod, overridesJson);
  const progress = (p: SweepProgress) => post({ type: 'progress', id, progress: p });
  // At once: the page learns how many points the core makes of the spec.
  progress({ kind: 'point', point: 0, pointCount, phase: 0, policyCount: policies, done: 0, total: 0 });
  let last = performance.now();
  const onPoint = (point: number, phase: number, done: number, total: number) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS) {
      last = now;
      progress({ kind: 'point', point, pointCount, phase, policyCount: policies, done, total });
    }
    return true;
  };
  let outcome;
  const trace = request.trace;
  if (trace) {
    // The trace's reading settings (window, limit, time scale) read it; the bad-line mode and a link's hash go with the run.
    const loader = await loadTrace(mod, id, trace, post, request.overrides.filter(([key]) => key.startsWith('trace.')));
    if (!loader) return;
    const pairs: Pair[] = [...request.overrides, ['trace.on_error', trace.onError]];
    if (trace.contentHash) pairs.push(['trace.content_hash', trace.contentHash]);
    outcome = mod.runTraceSweep(loader, '{}', JSON.stringify(pairs), request.spec, onPoint);
  } else {
    outcome = mod.runSweep('{}', overridesJson, request.spec, onPoint);
  }
  if (!outcome.ok) {
    post({ type: 'failed', id, message: errorText(outcome.errors, 'the sweep failed') });
    return;
  }
  post({ type: 'done', id, result: { sweepJson: outcome.sweepJson, elapsedMs: performance.now() - started } });
}

/** Runs one shard of a sweep job (runSweepShard) and posts its progress, then its shard document. */
export function runSweepShard(mod: PrefixrouteModule, id: number, request: SweepShardRequest, post: (m: FromWorker) => void): void {
  const { sweep, shardIndex, shardCount } = request;
  const expansion = mod.expandSweep(sweep.spec);
  const pointCount = expansion.ok ? expansion.values.length : 0;
  const overridesJson = JSON.stringify(sweep.overrides);
  const policies = policyCount(mod, overridesJson);
  let last = 0;
  const outcome = mod.runSweepShard('{}', overridesJson, sweep.spec, shardIndex, shardCount, (point, phase, done, total) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS) {
      last = now;
      post({ type: 'progress', id, progress: { kind: 'point', point, pointCount, phase, policyCount: policies, done, total } });
    }
    return true;
  });
  if (!outcome.ok) {
    post({ type: 'failed', id, message: errorText(outcome.errors, 'the sweep failed') });
    return;
  }
  post({ type: 'done', id, result: { shardJson: outcome.shardJson } });
}
