// The worker's side of a capacity search: the core's runCapacity on the
// page's scenario (or runTraceCapacity on the replayed trace this worker
// holds: worker-trace.ts), throttled progress, then the capacity JSON
// untouched. The search is the core's (core/include/prefixroute/run/
// capacity_search.h): tens of simulations per policy, all in this call, so
// it runs in a simulation worker (worker.ts), never on the page's main
// thread; the page cancels it by terminating the worker.

import type { FieldError, PrefixrouteModule } from './prefixroute-module';
import type { Pair } from '../state/schema';
import type { CapacityRequest, FromWorker } from './protocol';
import { loadTrace, PROGRESS_INTERVAL_MS } from './worker-trace';

function errorText(errors: FieldError[], fallback: string): string {
  return errors.map((e) => `${e.field}: ${e.message}`).join('; ') || fallback;
}

/** Runs one capacity job to completion (or failure) and posts its messages. */
export async function runCapacity(mod: PrefixrouteModule, id: number, request: CapacityRequest, post: (m: FromWorker) => void): Promise<void> {
  const started = performance.now();
  let last = 0;
  const onProgress = (runs: number, searchesDone: number, searches: number) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS || searchesDone === searches) {
      last = now;
      post({ type: 'progress', id, progress: { kind: 'search', runs, searchesDone, searches } });
    }
    return true;
  };
  const trace = request.trace;
  let outcome;
  if (trace) {
    // As a sweep of a trace: its reading settings read it; the bad-line mode and a link's hash go with the search.
    const loader = await loadTrace(mod, id, trace, post, request.overrides.filter(([key]) => key.startsWith('trace.')));
    if (!loader) return;
    const pairs: Pair[] = [...request.overrides, ['trace.on_error', trace.onError]];
    if (trace.contentHash) pairs.push(['trace.content_hash', trace.contentHash]);
    outcome = mod.runTraceCapacity(loader, '{}', JSON.stringify(pairs), onProgress);
  } else {
    outcome = mod.runCapacity('{}', JSON.stringify(request.overrides), onProgress);
  }
  if (!outcome.ok) {
    post({ type: 'failed', id, message: errorText(outcome.errors, 'the capacity search failed') });
    return;
  }
  post({ type: 'done', id, result: { capacityJson: outcome.capacityJson, elapsedMs: performance.now() - started } });
}
