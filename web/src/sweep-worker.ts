// The worker's side of a sweep: expands the spec with the core's expandSweep
// (the values runSweep will run, integer fields rounded as the core rounds
// them), runs the core's runSweep on the page's scenario and posts throttled
// progress, then the sweep JSON. Runs inside a simulation worker
// (worker.ts), never on the page's main thread.

import type { PrefixrouteModule } from './prefixroute-module';
import type { FromWorker, SweepProgress, SweepRequest } from './protocol';

/** Progress messages at most this often. */
const PROGRESS_INTERVAL_MS = 50;

function policyCount(mod: PrefixrouteModule, overridesJson: string): number {
  const checked = mod.validateScenario('{}', overridesJson);
  try {
    const doc = JSON.parse(checked.ok ? checked.scenarioJson : '{}') as { policies?: unknown };
    return Array.isArray(doc.policies) ? doc.policies.length : 0;
  } catch {
    return 0;
  }
}

function errorText(errors: { field: string; message: string }[], fallback: string): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ') || fallback;
}

/** Runs one sweep job to completion (or failure) and posts its messages. */
export function runSweep(mod: PrefixrouteModule, id: number, request: SweepRequest, post: (m: FromWorker) => void): void {
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
  progress({ point: 0, pointCount, phase: 0, policyCount: policies, done: 0, total: 0 });
  let last = performance.now();
  const outcome = mod.runSweep('{}', overridesJson, request.spec, (point, phase, done, total) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS) {
      last = now;
      progress({ point, pointCount, phase, policyCount: policies, done, total });
    }
    return true;
  });
  if (!outcome.ok) {
    post({ type: 'failed', id, message: errorText(outcome.errors, 'the sweep failed') });
    return;
  }
  post({ type: 'done', id, result: { sweepJson: outcome.sweepJson, elapsedMs: performance.now() - started } });
}
