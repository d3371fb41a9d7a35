// The cluster of a replay. The shipped excerpt is a preset: it runs on the
// cluster its button names. A file the reader loads runs on the cluster on
// screen, never changed behind the reader's back: when its prompts outgrow
// the caches, the page says so and offers a value the reader may take
// (cacheAdvice). The way back to the synthetic workload puts the cluster
// fields the excerpt preset set back to what they were before the replay (or
// their defaults), and drops the trace's own reading fields.

import type { Pair } from '../state/schema';

/**
 * Cluster settings the excerpt preset applies: the setting docs/guide/traces.md
 * uses for the conversation trace (8 replicas, a 1 M-token cache each). Prompts average
 * 14k tokens, so the reference scenario's 4,000-token caches would hold none.
 */
export const EXCERPT_PRESET: readonly Pair[] = [
  ['cluster.replicas', '8'],
  ['cluster.cache_tokens', '1000000'],
];

/** A replay's prompts against the cache per replica it ran with, and the cache the page offers instead. */
export interface CacheAdvice {
  meanPromptTokens: number;
  cacheTokens: number;
  /** A cache per replica to offer (the excerpt preset's), or null when the cache is the hardware's to derive. */
  suggestedTokens: number | null;
}

/**
 * Advice when a replayed trace's mean prompt (promptTokens / requests) is
 * larger than the cache per replica in force, so hardly a prefix stays
 * cached; null when it fits. `derived`: the cache comes from hardware.*
 * (a model is chosen), which the page never offers to override.
 */
export function cacheAdvice(promptTokens: number, requests: number, cacheTokens: number, derived: boolean): CacheAdvice | null {
  if (!(requests > 0) || !Number.isFinite(cacheTokens)) return null;
  const meanPromptTokens = promptTokens / requests;
  if (meanPromptTokens <= cacheTokens) return null;
  const preset = Number(EXCERPT_PRESET.find(([key]) => key === 'cluster.cache_tokens')?.[1]);
  return { meanPromptTokens, cacheTokens, suggestedTokens: !derived && preset > meanPromptTokens ? preset : null };
}

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
