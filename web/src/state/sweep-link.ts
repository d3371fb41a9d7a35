// The Sweep panel's part of the page's link: `sweep.param`, `sweep.from`,
// `sweep.to`, `sweep.steps`. Only a sweep that differs from the default is
// written, and then all four; a link naming any of them runs its sweep when
// opened (page-state.ts). Decoding never throws: bad values are dropped with
// a message; checkSweep (sweep-state.ts) has the last word on the range.

import { DEFAULT_SWEEP, isDefaultSweep, type SweepState } from '../sweep/sweep-state';
import { decodeComponent, preview, URL_LIMITS } from './link-text';
import type { Pair } from './schema';

/** Query keys of the Sweep panel's four inputs. */
export const SWEEP_KEYS: Readonly<Record<keyof SweepState, string>> = {
  param: 'sweep.param',
  from: 'sweep.from',
  to: 'sweep.to',
  steps: 'sweep.steps',
};

const NUMBER_SHAPE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const SWEEP_SHAPES: Record<keyof SweepState, { re: RegExp; what: string }> = {
  param: { re: /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/, what: 'a dotted scenario key' },
  from: { re: NUMBER_SHAPE, what: 'a number' },
  to: { re: NUMBER_SHAPE, what: 'a number' },
  steps: { re: /^[0-9]{1,4}$/, what: 'a whole number' },
};

/**
 * Reads the sweep keys of a query (its first URL_LIMITS.query characters and
 * URL_LIMITS.params parameters) over the default sweep. Drops bad
 * percent-encoding, unknown `sweep.` keys, values over URL_LIMITS.key
 * characters and values of the wrong shape, each with a message; the last of
 * repeated keys wins. `present`: the query named a sweep key. Never throws.
 */
export function decodeSweepKeys(search: string): { state: SweepState; present: boolean; messages: string[] } {
  const result = { state: { ...DEFAULT_SWEEP }, present: false, messages: [] as string[] };
  try {
    const byKey = new Map(Object.entries(SWEEP_KEYS).map(([input, key]) => [key, input as keyof SweepState]));
    let query = String(search ?? '');
    if (query.startsWith('?')) query = query.slice(1);
    const parts = query.slice(0, URL_LIMITS.query).split('&').slice(0, URL_LIMITS.params);
    for (const part of parts) {
      if (!part.startsWith('sweep.') && !part.startsWith('sweep%2E') && !part.startsWith('sweep%2e')) continue;
      const eq = part.indexOf('=');
      const key = decodeComponent(eq >= 0 ? part.slice(0, eq) : part);
      const value = decodeComponent(eq >= 0 ? part.slice(eq + 1) : '');
      if (key === null || value === null) {
        result.messages.push(`Sweep: ignored ${preview(part)}: not valid percent-encoding.`);
        continue;
      }
      const input = byKey.get(key);
      if (!input) {
        result.messages.push(`Sweep: ignored unknown key ${preview(key)}.`);
        continue;
      }
      result.present = true;
      if (value.length > URL_LIMITS.key) {
        result.messages.push(`Sweep: ignored ${key}: its value has ${value.length} characters (at most ${URL_LIMITS.key}).`);
        continue;
      }
      const shape = SWEEP_SHAPES[input];
      if (!shape.re.test(value)) {
        result.messages.push(`Sweep: ignored ${key}: ${preview(value)} is not ${shape.what}.`);
        continue;
      }
      result.state[input] = value;
    }
  } catch (error) {
    result.state = { ...DEFAULT_SWEEP };
    result.messages.push(`Sweep: the link could not be read (${preview(String(error), 80)}); the default sweep is used.`);
  }
  return result;
}

/** The link's sweep keys: none for the default sweep, else all four. */
export function sweepLinkPairs(state: SweepState): Pair[] {
  if (isDefaultSweep(state)) return [];
  return (Object.keys(SWEEP_KEYS) as (keyof SweepState)[]).map((input) => [SWEEP_KEYS[input], state[input].trim()]);
}
