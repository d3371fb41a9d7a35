// The sweep in the page's link: `&sweep.param=workload.arrival_rate_per_s&
// sweep.from=50&sweep.to=150&sweep.steps=5`, next to the scenario's keys
// (url-state.ts leaves every `sweep.` key to this module). Only a sweep that
// differs from the default is written, and then all four keys.
//
// Decoding is as defensive as url-state's and never throws: bad
// percent-encoding, over-long or malformed values, unknown `sweep.` keys
// are dropped with a message; the last of repeated keys wins. What is left
// is only lexically plausible: checkSweep (sweep-state.ts) judges the range.

import { DEFAULT_SWEEP, isDefaultSweep, type SweepState } from './sweep-state';
import { preview, URL_LIMITS, type Pair, type UrlMessage } from './url-state';

/** Query keys of the four inputs. */
export const SWEEP_KEYS: Readonly<Record<keyof SweepState, string>> = {
  param: 'sweep.param',
  from: 'sweep.from',
  to: 'sweep.to',
  steps: 'sweep.steps',
};

const SHAPES: Record<keyof SweepState, { re: RegExp; what: string }> = {
  param: { re: /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/, what: 'a dotted scenario key' },
  from: { re: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/, what: 'a number' },
  to: { re: /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/, what: 'a number' },
  steps: { re: /^[0-9]{1,4}$/, what: 'a whole number' },
};

export interface SweepUrlState {
  /** The link's sweep over the defaults. */
  state: SweepState;
  /** Whether the link named any sweep key at all (a shared sweep runs at once). */
  present: boolean;
  messages: UrlMessage[];
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/** Reads the sweep keys of a query string. Never throws. */
export function decodeSweepUrl(search: string): SweepUrlState {
  const result: SweepUrlState = { state: { ...DEFAULT_SWEEP }, present: false, messages: [] };
  try {
    const byKey = new Map(Object.entries(SWEEP_KEYS).map(([input, key]) => [key, input as keyof SweepState]));
    let query = String(search ?? '');
    if (query.startsWith('?')) query = query.slice(1);
    const parts = query.slice(0, URL_LIMITS.query).split('&').slice(0, URL_LIMITS.params);
    for (const part of parts) {
      if (!part.startsWith('sweep.') && !part.startsWith('sweep%2E') && !part.startsWith('sweep%2e')) continue;
      const eq = part.indexOf('=');
      const key = decode(eq >= 0 ? part.slice(0, eq) : part);
      const value = decode(eq >= 0 ? part.slice(eq + 1) : '');
      if (key === null || value === null) {
        result.messages.push({ key: null, text: `Sweep: ignored ${preview(part)}: not valid percent-encoding.` });
        continue;
      }
      const input = byKey.get(key);
      if (!input) {
        result.messages.push({ key: null, text: `Sweep: ignored unknown key ${preview(key)}.` });
        continue;
      }
      result.present = true;
      if (value.length > URL_LIMITS.key) {
        result.messages.push({ key: null, text: `Sweep: ignored ${key}: its value has ${value.length} characters (at most ${URL_LIMITS.key}).` });
        continue;
      }
      const shape = SHAPES[input];
      if (!shape.re.test(value)) {
        result.messages.push({ key: null, text: `Sweep: ignored ${key}: ${preview(value)} is not ${shape.what}.` });
        continue;
      }
      result.state[input] = value; // the last occurrence wins, as elsewhere in the link
    }
  } catch (error) {
    result.state = { ...DEFAULT_SWEEP };
    result.messages.push({ key: null, text: `Sweep: the link could not be read (${preview(String(error), 80)}); the default sweep is used.` });
  }
  return result;
}

/** The link's sweep keys: none for the default sweep, else all four. */
export function sweepUrlPairs(state: SweepState): Pair[] {
  if (isDefaultSweep(state)) return [];
  return (Object.keys(SWEEP_KEYS) as (keyof SweepState)[]).map((input) => [SWEEP_KEYS[input], state[input].trim()]);
}
