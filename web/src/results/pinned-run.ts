// Compare with a pinned run: the results on screen are pinned, and every later
// table shows the pinned figure and the change from it beside the current
// one. The pin lives in the page only (not in its link). What differs between
// the two runs' scenarios is named from their scenario echoes, so the reader
// knows what the comparison varies.

import type { Results } from './results';

type Json = Record<string, unknown>;

function flatten(node: unknown, prefix: string, out: Map<string, string>): void {
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
    for (const [k, v] of Object.entries(node as Json)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, Array.isArray(node) ? node.join(',') : String(node));
  }
}

/** The scenario keys whose values differ between two results, as "key a → b" (keys only in one side show "—"). */
export function scenarioDifferences(pinned: Results, current: Results): string[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  flatten(pinned.scenario, '', a);
  flatten(current.scenario, '', b);
  const keys = [...new Set([...a.keys(), ...b.keys()])];
  return keys.filter((k) => a.get(k) !== b.get(k)).map((k) => `${k} ${a.get(k) ?? '—'} → ${b.get(k) ?? '—'}`);
}

/** The few words the table's notes say about the pinned run against the current one. */
export function pinnedDescription(pinned: Results, current: Results): string {
  const diff = scenarioDifferences(pinned, current);
  if (!diff.length) return 'the same scenario';
  const shown = diff.slice(0, 4).join(', ');
  return `differs in ${shown}${diff.length > 4 ? ` and ${diff.length - 4} more` : ''}`;
}
