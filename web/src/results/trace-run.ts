// Whether results are of a replayed trace, read from their scenario echo.

import type { Results } from './results';

/** A replayed trace, as the results' scenario echo shows it (its trace section names a file or counts lines). */
export function replaysTrace(results: Results): boolean {
  const trace = (results.scenario as { trace?: { name?: unknown; lines?: unknown } }).trace;
  return !!trace && ((typeof trace.name === 'string' && trace.name !== '') || (typeof trace.lines === 'number' && trace.lines > 0));
}
