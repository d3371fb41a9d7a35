// The worker's side of a sweep: runs the core's runSweep on the page's
// scenario and posts throttled progress, then the sweep JSON. Runs inside
// the simulation worker (worker.ts), never on the page's main thread.

import type { PrefixrouteModule } from './prefixroute-module';
import type { FromWorker, SweepRequest } from './protocol';

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

/** Runs one sweep request to completion (or failure) and posts its messages. */
export function runSweep(mod: PrefixrouteModule, request: SweepRequest, post: (m: FromWorker) => void): void {
  const started = performance.now();
  const overridesJson = JSON.stringify(request.overrides);
  const policies = policyCount(mod, overridesJson);
  // The point count is the spec's value count; the core reports points by index.
  const eq = request.spec.indexOf('=');
  const rest = request.spec.slice(eq + 1);
  const range = rest.split(':');
  const pointCount = range.length === 3 ? Number(range[2]) : rest.split(',').length;
  let last = 0;
  const outcome = mod.runSweep('{}', overridesJson, request.spec, (point, phase, done, total) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS) {
      last = now;
      post({ type: 'sweep-progress', id: request.id, point, pointCount, phase, policyCount: policies, done, total });
    }
    return true;
  });
  if (!outcome.ok) {
    const text = outcome.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    post({ type: 'failed', id: request.id, message: text || 'the sweep failed' });
    return;
  }
  post({ type: 'sweep-result', id: request.id, sweepJson: outcome.sweepJson, elapsedMs: performance.now() - started });
}
