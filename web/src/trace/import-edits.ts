// The overrides a guided import replays with: the scenario it started from,
// with the reader's edits in the dialog (a mapping choice, a cluster field)
// applied over it, so only what the reader changed differs.

import type { Pair } from '../state/schema';

/** Applies edits (null: remove the key, back to its default or derived value) over overrides, new keys last. */
export function applyEdits(base: readonly Pair[], edits: ReadonlyMap<string, string | null>): Pair[] {
  const map = new Map<string, string>(base);
  for (const [key, value] of edits) {
    if (value === null) map.delete(key);
    else map.set(key, value);
  }
  return [...map];
}
