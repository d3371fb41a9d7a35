// The cluster a replay of the shipped excerpt runs on, and the way back to
// the synthetic workload: the cluster fields the excerpt preset set go back
// to what they were before the replay (or their defaults), and the trace's
// own reading fields are dropped with the trace.

import type { Pair } from '../state/schema';

/**
 * Cluster settings the excerpt preset applies: the README's setting for the
 * conversation trace (8 replicas, a 1 M-token cache each). Prompts average
 * 14k tokens, so the reference scenario's 4,000-token caches would hold none.
 */
export const EXCERPT_PRESET: readonly Pair[] = [
  ['cluster.replicas', '8'],
  ['cluster.cache_tokens', '1000000'],
];

/** A cluster field put back after a replay: from the value the replay ran with to the one before it (null: the default). */
export interface RestoredField {
  key: string;
  /** The value during the replay (null: the default). */
  from: string | null;
  to: string | null;
}

/**
 * The overrides to go back to the synthetic workload with: `current` (the
 * replay's), with the fields the excerpt preset sets (EXCERPT_PRESET: a
 * trace-sized cluster) put back to their values in `before` (the synthetic
 * scenario shown before the replay), or to their defaults when there was
 * none (a replay opened from a link), and without the trace's own fields
 * (trace.start_s, end_s, limit, time_scale). Also lists what changed, for the page to
 * say so.
 */
export function overridesAfterReplay(current: readonly Pair[], before: readonly Pair[] | null): { overrides: Pair[]; restored: RestoredField[] } {
  const values = new Map<string, string>(current);
  const earlier = new Map<string, string>(before ?? []);
  const restored: RestoredField[] = [];
  for (const [key] of EXCERPT_PRESET) {
    const from = values.get(key) ?? null;
    const to = earlier.get(key) ?? null;
    if (from === to) continue;
    if (to === null) values.delete(key);
    else values.set(key, to);
    restored.push({ key, from, to });
  }
  // The trace slicing fields (request limit, time scale) belong to the replay.
  for (const key of [...values.keys()]) if (key.startsWith('trace.')) values.delete(key);
  return { overrides: [...values], restored };
}
