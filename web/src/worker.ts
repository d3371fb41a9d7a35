// The simulation worker: every call into the wasm core happens here, so the
// page's main thread only draws. One run at a time; a run cannot be
// interrupted from outside except by terminating the worker, which is how the
// page cancels (see sim-client.ts).
/// <reference lib="webworker" />

import { cdfPoints } from './cdf';
import { loadModule } from './load-module';
import type { PrefixrouteModule } from './prefixroute-module';
import type { FromWorker, ToWorker } from './protocol';
import { resolveOverrides } from './resolve';
import { runSweep } from './sweep-worker';
import type { Pair } from './url-state';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (message: FromWorker) => scope.postMessage(message);

/** Progress messages at most this often: enough for a smooth bar, cheap for the page. */
const PROGRESS_INTERVAL_MS = 50;

function policiesOf(scenarioJson: string): string[] {
  try {
    const doc = JSON.parse(scenarioJson) as { policies?: unknown };
    return Array.isArray(doc.policies) ? doc.policies.map(String) : [];
  } catch {
    return [];
  }
}

function run(mod: PrefixrouteModule, id: number, overrides: Pair[]): void {
  const started = performance.now();
  const resolved = resolveOverrides((o) => mod.validateScenario('{}', JSON.stringify(o)), overrides);
  const policies = policiesOf(resolved.scenarioJson);
  let last = 0;
  const outcome = mod.runScenario('{}', JSON.stringify(resolved.accepted), (policyIndex, done, total) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS || done === total) {
      last = now;
      post({ type: 'progress', id, policyIndex, policyCount: policies.length, policy: policies[policyIndex] ?? '', done, total });
    }
    return true;
  });
  if (!outcome.ok) {
    const text = outcome.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    post({ type: 'failed', id, message: text || 'the run failed' });
    return;
  }
  post({
    type: 'result',
    id,
    resultsJson: outcome.resultsJson,
    scenarioJson: resolved.scenarioJson,
    accepted: resolved.accepted,
    rejected: resolved.rejected,
    cdf: outcome.series.map((s) => ({ policy: s.policy, ...cdfPoints(s.ttftMs) })),
    elapsedMs: performance.now() - started,
  });
}

// Registered synchronously: awaiting the module first could lose the first message.
scope.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  const id = message.type === 'run' || message.type === 'sweep' ? message.id : null;
  try {
    const mod = await loadModule();
    if (message.type === 'init') {
      post({ type: 'ready', schema: mod.scenarioSchema(), catalogue: mod.policyCatalogue() });
    } else if (message.type === 'run') {
      run(mod, message.id, message.overrides);
    } else if (message.type === 'sweep') {
      runSweep(mod, message, post);
    }
  } catch (error) {
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  }
};
